/**
 * The currency table: what each code is and how many decimals its amounts carry.
 * `precision` is the currency's smallest unit on its ledger; `payPrecision` is the number of
 * decimals a buyer is asked to pay (ETH has 18 decimals on chain but is quoted to 8).
 * A `token` lives on another currency's chain (USDT_ERC20 is USDT on Ethereum).
 */
export type CurrencyKind = 'fiat' | 'crypto' | 'stable' | 'token' | 'gateway';

export interface Currency {
  readonly code: string;
  readonly kind: CurrencyKind;
  readonly precision: number;
  readonly payPrecision: number;
  /** For gateways: the fiat currency the buyer is charged in. */
  readonly settles?: string;
  /** Confirmations before a payment in this currency counts as PAID. */
  readonly confirmations?: number;
  /** Tokens: the chain they live on (they share its blocks, addresses and confirmations). */
  readonly chain?: string;
}

const table: readonly Currency[] = [
  { code: 'USD', kind: 'fiat', precision: 2, payPrecision: 2 },
  { code: 'CNY', kind: 'fiat', precision: 2, payPrecision: 2 },
  { code: 'EUR', kind: 'fiat', precision: 2, payPrecision: 2 },
  { code: 'GBP', kind: 'fiat', precision: 2, payPrecision: 2 },
  { code: 'HKD', kind: 'fiat', precision: 2, payPrecision: 2 },
  { code: 'SGD', kind: 'fiat', precision: 2, payPrecision: 2 },
  { code: 'CAD', kind: 'fiat', precision: 2, payPrecision: 2 },
  { code: 'AUD', kind: 'fiat', precision: 2, payPrecision: 2 },
  { code: 'JPY', kind: 'fiat', precision: 0, payPrecision: 0 },
  { code: 'BTC', kind: 'crypto', precision: 8, payPrecision: 8, confirmations: 2 },
  { code: 'LTC', kind: 'crypto', precision: 8, payPrecision: 8, confirmations: 6 },
  { code: 'BCH', kind: 'crypto', precision: 8, payPrecision: 8, confirmations: 6 },
  { code: 'ETH', kind: 'crypto', precision: 18, payPrecision: 8, confirmations: 12 },
  { code: 'EOS', kind: 'crypto', precision: 4, payPrecision: 4, confirmations: 1 },
  // Lightning settles in millisatoshi; buyers are quoted whole satoshi.
  { code: 'LBTC', kind: 'crypto', precision: 11, payPrecision: 8, confirmations: 1 },
  { code: 'USDT', kind: 'stable', precision: 6, payPrecision: 6 },
  { code: 'USDC', kind: 'stable', precision: 6, payPrecision: 6 },
  // ERC-20 tokens on Ethereum, paid to the same kind of per-invoice address as ETH. Both
  // mainnet contracts have 6 decimals (the watcher reads and checks them from the contract).
  { code: 'USDT_ERC20', kind: 'token', precision: 6, payPrecision: 6, confirmations: 12, chain: 'ETH' },
  { code: 'USDC_ERC20', kind: 'token', precision: 6, payPrecision: 6, confirmations: 12, chain: 'ETH' },
  { code: 'ALIPAY', kind: 'gateway', precision: 2, payPrecision: 2, settles: 'CNY' },
  { code: 'ALIGLOBAL', kind: 'gateway', precision: 2, payPrecision: 2, settles: 'CNY' },
  { code: 'WECHAT', kind: 'gateway', precision: 2, payPrecision: 2, settles: 'CNY' },
];

const byCode = new Map(table.map((currency) => [currency.code, currency]));

/** The `pay_currency` values of the contract, in its order, then MugglePay's ERC-20 stable coins. */
export const PAY_CURRENCIES = ['ALIPAY', 'ALIGLOBAL', 'WECHAT', 'BTC', 'LTC', 'ETH', 'EOS', 'BCH', 'LBTC', 'USDT_ERC20', 'USDC_ERC20'] as const;
export type PayCurrency = (typeof PAY_CURRENCIES)[number];

export const GATEWAY_CURRENCIES: readonly PayCurrency[] = ['ALIPAY', 'ALIGLOBAL', 'WECHAT'];

/** Currencies a price may be set in: fiat, crypto and stable coins (not gateways, not a chain's tokens). */
export const PRICE_CURRENCIES: readonly string[] = table
  .filter((c) => c.kind !== 'gateway' && c.kind !== 'token')
  .map((c) => c.code);

/** Settlement currencies a merchant may choose (USD by default, or a stable coin). */
export const RECEIVE_CURRENCIES: readonly string[] = ['USD', 'USDT', 'USDC'];

export function currency(code: string): Currency {
  const found = byCode.get(code);
  if (!found) throw new RangeError(`unknown currency ${code}`);
  return found;
}

export function isGateway(code: string): boolean {
  return byCode.get(code)?.kind === 'gateway';
}

/** The currency an amount is actually quoted in: a gateway's settlement fiat, else itself. */
export function quoteCurrency(code: string): string {
  return currency(code).settles ?? code;
}

/** Confirmations a payment needs before it counts (gateways and Lightning settle at once: 1). */
export function requiredConfirmations(code: string): number {
  return currency(code).confirmations ?? 1;
}
