/**
 * Which watchers this process runs: every chain with a configured source (followed block by
 * block, shared/watchers/block-watcher.ts), then the indexed sources that are configured
 * (LBTC, EOS, TRON, Solana, TON and Stellar, each read by its own cursor,
 * shared/watchers/indexed-watcher.ts). Each one's watcher is built in wiring.ts.
 */
import { eosConfig, type readEosConfig } from '#shared/chains/eos';
import { lightningConfig, type readLightningConfig } from '#shared/chains/lightning';
import { type readSolanaConfig, solanaSettings } from '#shared/chains/solana';
import { type ChainSourceConfig, chainSourcesConfig } from '#shared/chains/sources';
import { type readStellarConfig, stellarSettings } from '#shared/chains/stellar';
import { type readTonConfig, tonSettings } from '#shared/chains/ton';
import { type readTronConfig, tronSettings } from '#shared/chains/tron';

/** Reads a secret (the SSM parameter holding a node's URL with its credentials, in AWS). */
export type SecretReader = (name: string) => Promise<string>;

/** The kind of source each indexed chain reads. */
export const INDEXED_SOURCE = { LBTC: 'lnd', EOS: 'hyperion', TRON: 'trongrid', SOLANA: 'solana-rpc', TON: 'toncenter', STELLAR: 'horizon' } as const;

/** A watcher this process can run: its chain and the kind of source it reads. */
export interface RunnableWatcher {
  chain: string;
  source: string;
}

/**
 * The watchers this process can run: every chain with a configured source (one whose endpoint
 * is an SSM parameter only when a secret reader is given: locally a node's URL is given
 * directly), then the indexed sources that are configured (indexedChains).
 */
export function runnableWatchers(readSecret?: SecretReader): RunnableWatcher[] {
  const blocks = chainSourcesConfig().sources.filter((config) => readSecret !== undefined || config.url !== undefined);
  return [...blocks.map((config) => ({ chain: config.chain, source: config.kind })), ...indexedChains().map((chain) => ({ chain, source: INDEXED_SOURCE[chain] }))];
}

/** Sources read by their own cursor, not by the block watcher: Lightning settlements, EOS transfers, TRON's Transfer events by solid block, Solana's, TON's and Stellar's per-address histories. */
export type IndexedChain = 'LBTC' | 'EOS' | 'TRON' | 'SOLANA' | 'TON' | 'STELLAR';

/** `chain` when it is an indexed source's (read by its own cursor), else undefined: a block chain's. */
export function asIndexedChain(chain: string): IndexedChain | undefined {
  return chain in INDEXED_SOURCE ? (chain as IndexedChain) : undefined;
}

/** The configured source of block chain `chain`, if any. */
export function blockSourceConfigOf(chain: string): ChainSourceConfig | undefined {
  return chainSourcesConfig().sources.find((candidate) => candidate.chain === chain);
}

/** The configured indexed sources (LBTC with `LND_REST_URL`, EOS with `EOS_ACCOUNT` and `EOS_HISTORY_URL`, TRON with `TRON_API_URL`, and the others with theirs, as below). */
export function indexedChains(
  lightning: ReturnType<typeof readLightningConfig> = lightningConfig(),
  eos: ReturnType<typeof readEosConfig> = eosConfig(),
  tron: ReturnType<typeof readTronConfig> = tronSettings(),
  solana: ReturnType<typeof readSolanaConfig> = solanaSettings(),
  ton: ReturnType<typeof readTonConfig> = tonSettings(),
  stellar: ReturnType<typeof readStellarConfig> = stellarSettings(),
): IndexedChain[] {
  const chains: IndexedChain[] = [];
  if (lightning.restUrl !== undefined) chains.push('LBTC');
  if (eos.watched) chains.push('EOS');
  if (tron.watched) chains.push('TRON');
  if (solana.watched) chains.push('SOLANA');
  if (ton.watched) chains.push('TON');
  if (stellar.watched) chains.push('STELLAR');
  return chains;
}
