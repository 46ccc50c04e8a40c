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
  /**
   * Currencies paid on another chain than their own name says: the chain (network) they live
   * on, the one watcher that sees them (USDT_ERC20 and ETH_ARB: ETH and ARBITRUM).
   */
  readonly chain?: string;
  /**
   * The receiving key their addresses are derived from, where it is not the chain's own: every
   * EVM network's addresses come from the merchant's one ETH key (m/44'/60'/0').
   */
  readonly key?: string;
  /** What the amount is worth and priced as (USDT_ARB is USDT, ETH_BASE is ETH, LBTC is BTC). */
  readonly asset?: string;
}

/** The currencies of one EVM network: [code, asset, decimals on chain, decimals quoted]. */
function evm(chain: string, confirmations: number, codes: readonly (readonly [string, string, number, number])[]): Currency[] {
  return codes.map(([code, asset, precision, payPrecision]) => ({ code, kind: 'token', precision, payPrecision, confirmations, chain, key: 'ETH', asset }));
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
  { code: 'LBTC', kind: 'crypto', precision: 11, payPrecision: 8, confirmations: 1, asset: 'BTC' },
  { code: 'USDT', kind: 'stable', precision: 6, payPrecision: 6 },
  { code: 'USDC', kind: 'stable', precision: 6, payPrecision: 6 },
  // ERC-20 tokens on Ethereum, paid to the same kind of per-invoice address as ETH. Both
  // mainnet contracts have 6 decimals (the watcher reads and checks them from the contract).
  { code: 'USDT_ERC20', kind: 'token', precision: 6, payPrecision: 6, confirmations: 12, chain: 'ETH', asset: 'USDT' },
  { code: 'USDC_ERC20', kind: 'token', precision: 6, payPrecision: 6, confirmations: 12, chain: 'ETH', asset: 'USDC' },
  // Other EVM networks (shared/payments/networks/evm.ts): addresses from the ETH key, each
  // network's own watcher, confirmations in that network's blocks (docs/merchant-guide.md "Networks").
  // `precision` is the contract's decimals (18 for BNB Smart Chain's USDT and Celo's cUSD),
  // so payments are booked to the token's last unit; buyers are quoted to 6 (8 for ether).
  ...evm('ARBITRUM', 300, [
    ['ETH_ARB', 'ETH', 18, 8],
    ['USDT_ARB', 'USDT', 6, 6],
    ['USDC_ARB', 'USDC', 6, 6],
  ]),
  ...evm('BASE', 10, [
    ['ETH_BASE', 'ETH', 18, 8],
    ['USDC_BASE', 'USDC', 6, 6],
  ]),
  ...evm('POLYGON', 12, [['USDC_POL', 'USDC', 6, 6]]),
  ...evm('BSC', 4, [['USDT_BNB', 'USDT', 18, 6]]),
  ...evm('CELO', 20, [
    ['USDT_CELO', 'USDT', 6, 6],
    ['CUSD', 'CUSD', 18, 6],
  ]),
  // TRON: addresses from the merchant's TRON key (m/44'/195'/0'); counted once solidified.
  { code: 'USDT_TRC20', kind: 'token', precision: 6, payPrecision: 6, confirmations: 1, chain: 'TRON', key: 'TRX', asset: 'USDT' },
  // Solana: the merchant's one wallet and a reference key per invoice; counted at `finalized`.
  { code: 'USDC_SOL', kind: 'token', precision: 6, payPrecision: 6, confirmations: 1, chain: 'SOLANA', key: 'SOL', asset: 'USDC' },
  // PayPal's dollar on Solana, a Token-2022 mint: the same wallet and references as USDC_SOL; priced as PYUSD.
  { code: 'PYUSD', kind: 'token', precision: 6, payPrecision: 6, confirmations: 1, chain: 'SOLANA', key: 'SOL', asset: 'PYUSD' },
  // TON: the merchant's one wallet and a comment per invoice; final once the indexer has it.
  // Toncoin has 9 decimals (nanotons); buyers are quoted to 6, as ether is to 8.
  { code: 'TON', kind: 'crypto', precision: 9, payPrecision: 6, confirmations: 1, chain: 'TON' },
  { code: 'USDT_TON', kind: 'token', precision: 6, payPrecision: 6, confirmations: 1, chain: 'TON', key: 'TON', asset: 'USDT' },
  // Stellar: the merchant's one account, a muxed address (and MEMO_ID) per invoice; 7 decimals on the ledger.
  { code: 'USDC_XLM', kind: 'token', precision: 7, payPrecision: 6, confirmations: 1, chain: 'STELLAR', key: 'XLM', asset: 'USDC' },
  { code: 'ALIPAY', kind: 'gateway', precision: 2, payPrecision: 2, settles: 'CNY' },
  { code: 'ALIGLOBAL', kind: 'gateway', precision: 2, payPrecision: 2, settles: 'CNY' },
  { code: 'WECHAT', kind: 'gateway', precision: 2, payPrecision: 2, settles: 'CNY' },
];

const byCode = new Map(table.map((currency) => [currency.code, currency]));

/**
 * The `pay_currency` values of the contract, in its order, then MugglePay's codes for coins on
 * other networks, each under MugglePay's own name.
 */
export const PAY_CURRENCIES = [
  'ALIPAY',
  'ALIGLOBAL',
  'WECHAT',
  'BTC',
  'LTC',
  'ETH',
  'EOS',
  'BCH',
  'LBTC',
  'USDT_ERC20',
  'USDC_ERC20',
  'USDT_TRC20',
  'USDT_ARB',
  'USDT_BNB',
  'USDT_CELO',
  'USDC_ARB',
  'USDC_SOL',
  'USDC_BASE',
  'USDC_POL',
  'CUSD',
  'ETH_ARB',
  'ETH_BASE',
  'PYUSD',
  'USDT_TON',
  'TON',
  'USDC_XLM',
] as const;
export type PayCurrency = (typeof PAY_CURRENCIES)[number];

export const GATEWAY_CURRENCIES: readonly PayCurrency[] = ['ALIPAY', 'ALIGLOBAL', 'WECHAT'];

/** Currencies a price may be set in: fiat, crypto and stable coins (not gateways, not a chain's tokens). */
export const PRICE_CURRENCIES: readonly string[] = table
  // TON came with MugglePay's token list, as a pay currency only.
  .filter((c) => c.kind !== 'gateway' && c.kind !== 'token' && c.code !== 'TON')
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

/**
 * The currency an amount is actually quoted and priced in: a gateway's settlement fiat, a
 * token's asset (USDT_ARB is USDT, ETH_BASE is ether, LBTC is bitcoin), else itself.
 */
export function quoteCurrency(code: string): string {
  const found = currency(code);
  return found.settles ?? found.asset ?? code;
}

/** The chain (network) whose watcher sees payments in `code`: a token's chain, else itself. */
export function chainOf(code: string): string {
  return currency(code).chain ?? code;
}

/** The receiving key `code`'s addresses come from: ETH for every EVM network, TRX for TRON, else its chain's. */
export function keyOf(code: string): string {
  const found = currency(code);
  return found.key ?? found.chain ?? code;
}

/** Confirmations a payment needs before it counts (gateways and Lightning settle at once: 1). */
export function requiredConfirmations(code: string): number {
  return currency(code).confirmations ?? 1;
}
