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
  USDT_TRC20: 'https://tronscan.org/#/transaction/',
  TON: 'https://tonviewer.com/transaction/',
  USDT_TON: 'https://tonviewer.com/transaction/',
  USDC_XLM: 'https://stellar.expert/explorer/public/tx/',
  USDC_SOL: 'https://solscan.io/tx/',
  PYUSD: 'https://solscan.io/tx/',
};

/** A transaction id a page can be asked for: hex (most chains), or a base58 signature (Solana). */
const TXID = /^((0x)?[0-9a-fA-F]{40,128}|[1-9A-HJ-NP-Za-km-z]{64,88})$/;

/** The explorer page of `txid` paid in `currency`, or null when there is none. */
export function explorerUrl(currency: string, txid: string, sandbox: boolean): string | null {
  const base = EXPLORERS[currency];
  if (sandbox || !base || !TXID.test(txid)) return null;
  return `${base}${encodeURIComponent(txid)}`;
}
