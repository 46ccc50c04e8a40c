import { currency, isGateway as chargedThroughGateway, quoteCurrency as settlementOf, type Currency } from '#shared/domain/currencies';
import { decimalFromNumber, formatFixed } from '#shared/domain/money';
import { networkName } from '#shared/domain/networks';

/**
 * Amounts and currencies for every web app. Decimals, kinds and settlement currencies come from
 * the service's own currency table (shared/domain/currencies.ts, bundled at build time), so the
 * apps and the API cannot disagree about them. Apart from format.ts, which needs no table. An
 * amount for reading is formatted by shared/domain/amount-format.ts, as the emails' are.
 */

const known = (code: string): Currency | undefined => {
  try {
    return currency(code);
  } catch {
    return undefined;
  }
};

export const isGateway = (code: string): boolean => chargedThroughGateway(code);

/** What a pay amount is quoted in: gateways charge their settlement fiat (CNY), Lightning is bitcoin, a token its coin (USDT_ARB: USDT). */
export const quoteCurrency = (code: string): string => {
  const quoted = known(code) ? settlementOf(code) : code;
  return quoted === 'CUSD' ? 'cUSD' : quoted;
};

/**
 * The network a coin or token is sent on, named (Arbitrum One), where the address alone does
 * not say it: ether and every token (an Ethereum address is the same on every EVM network).
 */
export const network = (code: string): string | undefined => (code === 'ETH' || known(code)?.chain ? networkName(code) : undefined);

/**
 * A pay amount exactly as it must be sent, to be copied into a wallet: the currency's pay
 * decimals, no grouping, never an exponent (String(0.0000001) would be "1e-7"), the same digits
 * as the amount in the payment URI (both are money.ts's formatFixed). Where a person only reads
 * an amount, it is shared/domain/amount-format.ts's formatAmount.
 */
export function payAmount(amount: number, currency: string): string {
  return formatFixed(decimalFromNumber(amount), known(currency)?.payPrecision ?? 8);
}
