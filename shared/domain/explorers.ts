/**
 * Public block explorers the portal links a payment's transaction to, by pay currency (mainnet).
 * Sandbox payments, gateway trades and Lightning payments have no public page: no link.
 */
const EXPLORERS: Readonly<Record<string, string>> = {
  BTC: 'https://mempool.space/tx/',
  LTC: 'https://litecoinspace.org/tx/',
  BCH: 'https://blockchair.com/bitcoin-cash/transaction/',
  ETH: 'https://etherscan.io/tx/',
  USDT_ERC20: 'https://etherscan.io/tx/',
  USDC_ERC20: 'https://etherscan.io/tx/',
  EOS: 'https://bloks.io/transaction/',
};

/** The explorer page of `txid` paid in `currency`, or null when there is none. */
export function explorerUrl(currency: string, txid: string, sandbox: boolean): string | null {
  const base = EXPLORERS[currency];
  if (sandbox || !base || !/^(0x)?[0-9a-fA-F]{40,128}$/.test(txid)) return null;
  return `${base}${encodeURIComponent(txid)}`;
}
