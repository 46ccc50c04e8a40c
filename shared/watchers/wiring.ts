/**
 * Each watcher and source built from the process's configuration: a block chain's watcher on
 * its configured source (the endpoint read from its SSM parameter when it has one), and each
 * indexed source's watcher (LND's settlements, Hyperion's EOS transfers, TRON's, Solana's,
 * TON's and Stellar's) with its watch list. The refund check (refund-check.ts) builds its
 * sources here too.
 */
import { eosConfig } from '#shared/chains/eos';
import { solanaSettings } from '#shared/chains/solana';
import type { ChainSourceConfig } from '#shared/chains/sources';
import { stellarSettings } from '#shared/chains/stellar';
import { tonSettings } from '#shared/chains/ton';
import { tronSettings } from '#shared/chains/tron';
import { readSecret } from '#shared/aws/parameters';
import { currency } from '#shared/domain/currencies';
import { lndConfig } from '#shared/payments/lightning/lnd-config';
import { PER_ADDRESS_ITEMS, type WatchedAddress, WatchList } from '#shared/store/watch-list';
import { BlockWatcher } from '#shared/watchers/block-watcher';
import { IndexedWatcher, walletWatcher } from '#shared/watchers/indexed-watcher';
import type { IndexedChain, SecretReader } from '#shared/watchers/runnable';
import { createBlockSource } from '#shared/watchers/sources/factories';
import { StellarPayments } from '#shared/watchers/sources/horizon';
import { HyperionTransfers } from '#shared/watchers/sources/hyperion';
import { LndSettlements } from '#shared/watchers/sources/lnd-settlements';
import type { BlockSource } from '#shared/watchers/sources/port';
import { SolanaTransfers } from '#shared/watchers/sources/solana';
import { TonTransfers } from '#shared/watchers/sources/toncenter';
import { TronTransfers } from '#shared/watchers/sources/tron';

/** The watcher of one configured chain; the endpoint read from its SSM parameter when it has one. */
export async function watcherFor(config: ChainSourceConfig, readSecret?: SecretReader): Promise<BlockWatcher> {
  return new BlockWatcher(await blockSourceFor(config, readSecret));
}

/** The source of one configured chain; the endpoint read from its SSM parameter when it has one. */
export async function blockSourceFor(config: ChainSourceConfig, readSecret?: SecretReader): Promise<BlockSource> {
  let url = config.url;
  if (url === undefined && config.urlParameter !== undefined) {
    if (!readSecret) throw new Error(`${config.chain}: ${config.urlParameter} is an SSM parameter and no reader was given`);
    url = (await readSecret(config.urlParameter)).trim();
  }
  if (!url) throw new Error(`${config.chain}: no endpoint configured`);
  return createBlockSource(config, url);
}

/** Horizon's paging token moves with every ledger of the network: its cursor is written once a minute while nothing is booked. */
export const STELLAR_CURSOR_EVERY_MS = 60_000;

/**
 * The watcher of an indexed source, from the process's configuration: LND's settlements (its
 * macaroon and certificate read from SSM, a file or the environment on first use) or the EOS
 * account's transfers from Hyperion, TRON's, Solana's, TON's and Stellar's. Every one but
 * Lightning keeps unmatched payments in the table (a Lightning node may also serve other
 * applications, whose settled invoices are not ours); TON's and Stellar's also under the
 * merchant whose own wallet was paid.
 */
export function indexedWatcherFor(chain: IndexedChain): IndexedWatcher {
  if (chain === 'LBTC') {
    const { client } = lndConfig();
    if (!client) throw new Error('LBTC: LND_REST_URL is not configured');
    return new IndexedWatcher(new LndSettlements(client), { keepUnmatched: false });
  }
  // Solidified TRON transfers, finalized Solana ones and irreversible EOS ones are final: booked confirmed at once.
  if (chain === 'TRON') return new IndexedWatcher(tronTransfers(watchListOf('TRON')), { keepUnmatched: true });
  if (chain === 'SOLANA') return new IndexedWatcher(solanaTransfers(watchListOf('SOLANA')), { keepUnmatched: true });
  // TON and Stellar: what the indexer or Horizon serves is final. A transfer to a merchant's
  // account whose comment or memo matches no invoice is kept as unmatched (the merchant's portal shows it).
  if (chain === 'TON' || chain === 'STELLAR') {
    const list = new WatchList(PER_ADDRESS_ITEMS, chain);
    const watched = (now: Date) => list.current(now);
    const source = chain === 'TON' ? tonTransfers(watched) : stellarPayments(watched);
    return walletWatcher(source, list, chain === 'STELLAR' ? { cursorEveryMs: STELLAR_CURSOR_EVERY_MS } : {});
  }
  return new IndexedWatcher(hyperionTransfers(), { keepUnmatched: true });
}

/** TRON's source, configured (TRON_API_URL), watching `watched`. */
export function tronTransfers(watched: (now: Date) => Promise<WatchedAddress[]>): TronTransfers {
  const { apiUrl, apiKey, contract, genesisHash, maxBlockRange, watched: configured } = tronSettings();
  if (!configured) throw new Error('TRON: TRON_API_URL is not configured');
  return new TronTransfers({
    url: apiUrl!,
    ...(apiKey ? { apiKey } : {}),
    contract,
    genesisHash,
    maxBlockRange,
    currency: 'USDT_TRC20',
    decimals: currency('USDT_TRC20').precision,
    watched,
  });
}

/** Solana's source, configured (SOLANA_RPC_URL), watching `watched`. */
export function solanaTransfers(watched: (now: Date) => Promise<WatchedAddress[]>): SolanaTransfers {
  const { rpcUrl, tokens, genesisHash, watched: configured } = solanaSettings();
  if (!configured) throw new Error('SOLANA: SOLANA_RPC_URL is not configured');
  // USDC_SOL and PYUSD: one source, one watch list, each token's accounts derived with its program.
  return new SolanaTransfers({ url: rpcUrl!, tokens: tokens.map((token) => ({ ...token, decimals: currency(token.currency).precision })), genesisHash, watched });
}

/** TON's source, configured (TON_API_URL), watching `watched` (merchants' wallets). */
export function tonTransfers(watched: (now: Date) => Promise<WatchedAddress[]>): TonTransfers {
  const { apiUrl, apiKey, usdtMaster, watched: configured } = tonSettings();
  if (!configured) throw new Error('TON: TON_API_URL is not configured');
  // The key is a secret (an SSM parameter in AWS): read on the first request, then kept.
  return new TonTransfers({ url: apiUrl!, ...(apiKey ? { apiKey: async () => (await readSecret(apiKey)).toString('utf8').trim() } : {}), usdtMaster, watched });
}

/** Stellar's source, configured (STELLAR_HORIZON_URL), watching `watched` (merchants' accounts). */
export function stellarPayments(watched: (now: Date) => Promise<WatchedAddress[]>): StellarPayments {
  const { horizonUrl, issuer, passphrase, watched: configured } = stellarSettings();
  if (!configured) throw new Error('STELLAR: STELLAR_HORIZON_URL is not configured');
  return new StellarPayments({ url: horizonUrl!, issuer, networkPassphrase: passphrase, currency: 'USDC_XLM', decimals: 7, watched });
}

/** The EOS account's transfers from Hyperion, configured (EOS_ACCOUNT and EOS_HISTORY_URL). */
export function hyperionTransfers(): HyperionTransfers {
  const { account, historyUrl, watched } = eosConfig();
  if (!watched) throw new Error('EOS: EOS_ACCOUNT and EOS_HISTORY_URL are not both configured');
  return new HyperionTransfers({ url: historyUrl!, account: account! });
}

/**
 * A per-address source's watch list, kept by its watcher (one per container, like a block
 * chain's, shared/watchers/open-addresses.ts): read whole at the first step, then only what was added.
 */
function watchListOf(chain: 'TRON' | 'SOLANA' | 'TON' | 'STELLAR'): (now: Date) => Promise<WatchedAddress[]> {
  const list = new WatchList(PER_ADDRESS_ITEMS, chain);
  return (now) => list.current(now);
}
