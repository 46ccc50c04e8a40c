import { PaymentNotAvailableError } from '#shared/domain/errors';
import { PAY_CURRENCIES, type PayCurrency } from '#shared/domain/currencies';

/**
 * MugglePay's `pay_currency` codes (its API/faq/SupportedTokens.md and CreateOrder.md, and the
 * plugins' codes) and what each one is here: the pay currency of this service that takes it,
 * or `null` for a code this service knows but cannot take yet (answered 400
 * PAYMENT_NOT_AVAILABLE, naming what it can take). A code in neither this table nor
 * {@link PAY_CURRENCIES} is unknown (400 PARAMETERS_INVALID).
 *
 * THE place to make a code available: when a watcher for it lands, write its pay currency
 * here (as USDT_ERC20 and USDC_ERC20 are, since the Ethereum watcher sees ERC-20 transfers).
 */
export const MUGGLEPAY_CODES: Readonly<Record<string, PayCurrency | null>> = {
  // Ethereum mainnet
  ETH_ERC20: 'ETH',
  USDT_ERC20: 'USDT_ERC20',
  USDC_ERC20: 'USDC_ERC20',
  // Other networks: each one's own watcher (docs/merchant-guide.md "Networks"); MugglePay's codes are ours.
  USDT_TRC20: 'USDT_TRC20',
  USDT_ARB: 'USDT_ARB',
  USDT_BNB: 'USDT_BNB',
  USDT_CELO: 'USDT_CELO',
  USDC_ARB: 'USDC_ARB',
  USDC_SOL: 'USDC_SOL',
  USDC_BASE: 'USDC_BASE',
  USDC_POL: 'USDC_POL',
  ETH_ARB: 'ETH_ARB',
  ETH_BASE: 'ETH_BASE',
  CUSD: 'CUSD',
  PYUSD: 'PYUSD',
  USDT_TON: 'USDT_TON',
  TON: 'TON',
  USDC_XLM: 'USDC_XLM',
  // Not taken.
  // The Go SDK's README example (MugglePay's peer-to-peer BTC flow).
  P2P_BTC: null,
};

/**
 * Plain `USDT` / `USDC` (what the WHMCS plugin sends; older MugglePay docs list them without a
 * network): the ERC-20 token on Ethereum, the one network this service watches for them; they
 * follow USDT_ERC20 / USDC_ERC20 above. `USDT_ARBI` is USDT on Arbitrum as MugglePay's own
 * Create Order example spells it.
 */
export const MUGGLEPAY_ALIASES: Readonly<Record<string, string>> = {
  USDT: 'USDT_ERC20',
  USDC: 'USDC_ERC20',
  USDT_ARBI: 'USDT_ARB',
};

/** Every `pay_currency` a request may name: this service's codes, then MugglePay's. */
export const PAY_CODES: readonly string[] = [
  ...PAY_CURRENCIES,
  ...Object.keys(MUGGLEPAY_CODES).filter((code) => !(PAY_CURRENCIES as readonly string[]).includes(code)),
  ...Object.keys(MUGGLEPAY_ALIASES),
];

const isPayCurrency = (code: string): code is PayCurrency => (PAY_CURRENCIES as readonly string[]).includes(code);

/** The codes a request can name and be taken, for error messages: ours, then MugglePay's that map to ours. */
export function takenCodes(): string[] {
  const mapped = [...Object.keys(MUGGLEPAY_CODES), ...Object.keys(MUGGLEPAY_ALIASES)].filter((code) => !isPayCurrency(code) && resolvable(code) !== null);
  return [...PAY_CURRENCIES, ...mapped];
}

function resolvable(code: string): PayCurrency | null | undefined {
  if (isPayCurrency(code)) return code;
  const target = MUGGLEPAY_ALIASES[code];
  if (target !== undefined) return resolvable(target) ?? null;
  return Object.hasOwn(MUGGLEPAY_CODES, code) ? MUGGLEPAY_CODES[code]! : undefined;
}

/**
 * This service's pay currency for a requested code (one of {@link PAY_CODES}, as the schema
 * checked). A known code it cannot take yet is PaymentNotAvailableError naming what it can.
 */
export function payCurrencyFor(code: string): PayCurrency {
  const found = resolvable(code);
  if (found) return found;
  throw new PaymentNotAvailableError(`${code} is not available on this service; pay_currency can be ${takenCodes().join(', ')}`);
}
