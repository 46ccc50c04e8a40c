import { currency, isGateway as chargedThroughGateway, quoteCurrency as settlementOf, type Currency } from '#shared/domain/currencies';
import { networkName } from '#shared/domain/networks';
import type { Lang } from './i18n';

/**
 * Amounts and currencies for every web app. Decimals, kinds and settlement currencies come from
 * the service's own currency table (shared/domain/currencies.ts, bundled at build time), so the
 * apps and the API cannot disagree about them. Apart from format.ts, which needs no table.
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
 * A pay amount exactly as it must be sent: fixed decimals, no grouping, never an exponent
 * (String(0.0000001) would be "1e-7"), matching the amount in the payment URI.
 */
export function payAmount(amount: number, currency: string): string {
  return amount.toFixed(known(currency)?.payPrecision ?? 8);
}

/** A price for reading: grouped for the language, fiat with 2 decimals (JPY none), coins up to 8. */
export function price(amount: number, code: string, lang: Lang): string {
  const found = known(code);
  const coin = found !== undefined && found.kind !== 'fiat';
  const fiatDecimals = found?.kind === 'fiat' ? found.precision : 2;
  const formatted = new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en-US', {
    minimumFractionDigits: coin ? 0 : fiatDecimals,
    maximumFractionDigits: coin ? 8 : fiatDecimals,
  }).format(amount);
  return `${formatted} ${code}`;
}

/**
 * An exact amount as the API writes it (a decimal string: the portal's amounts) for reading, in
 * the same form as {@link price}: the whole part grouped for the language, a fiat amount to its
 * decimals (24.5 USD reads 24.50 USD, as the buyer sees it), a coin's digits all kept (never
 * rounded: a payment of 0.123456789 ETH is what it is).
 */
export function exactAmount(amount: string | number, code: string, lang: Lang): string {
  if (typeof amount === 'number') return price(amount, code, lang);
  const parts = /^(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!parts) return `${amount} ${code}`;
  const found = known(code);
  const fraction = found?.kind === 'fiat' ? (parts[2] ?? '').padEnd(found.precision, '0') : (parts[2] ?? '');
  const whole = new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en-US').format(BigInt(parts[1]!));
  return `${whole}${fraction ? `.${fraction}` : ''} ${code}`;
}
