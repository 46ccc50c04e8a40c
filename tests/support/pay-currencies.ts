/**
 * The payment page's currencies in the order a buyer sees them, written out by hand: the tests'
 * own statement of the contract, not read from shared/schemas/pay.ts, so a change there that
 * reorders, adds or drops one fails them. A sandbox merchant is offered all of them.
 */
const CHAIN_CURRENCIES: readonly string[] = [
  'BTC',
  'LTC',
  'ETH',
  'USDT_ERC20',
  'USDC_ERC20',
  'USDT_TRC20',
  'USDT_ARB',
  'USDC_ARB',
  'ETH_ARB',
  'USDC_BASE',
  'ETH_BASE',
  'USDC_POL',
  'USDT_BNB',
  'USDT_CELO',
  'CUSD',
  'USDC_SOL',
  'PYUSD',
  'USDT_TON',
  'TON',
  'USDC_XLM',
  'EOS',
  'BCH',
  'LBTC',
];
const GATEWAY_CURRENCIES: readonly string[] = ['ALIPAY', 'ALIGLOBAL', 'WECHAT'];
export const SANDBOX_CURRENCIES: readonly string[] = [...CHAIN_CURRENCIES, ...GATEWAY_CURRENCIES];
