import { eosConfig, lightningConfig, type readEosConfig, type readLightningConfig, watchConfig } from '#shared/core/config';
import { lndConfig } from '#shared/payments/lightning/lnd-config';
import type { ChainSourceConfig } from '#shared/payments/watchers/config';
import { HyperionTransfers } from '#shared/payments/watchers/hyperion';
import { LndSettlements } from '#shared/payments/watchers/lnd-settlements';
import { createBlockSource, SOURCE_FACTORIES } from '#shared/payments/watchers/sources';
import { ChainWatcher } from '#shared/services/chain-watcher';
import { IndexedWatcher } from '#shared/services/indexed-watcher';
import { type PollOptions, type PollSummary, type Progress, type Stepper, pollChain } from '#shared/services/watch-loop';

/** Reads a secret (the SSM parameter holding a node's URL with its credentials, in AWS). */
export type SecretReader = (name: string) => Promise<string>;

/** The configured chains that have an adapter: the ones a watcher runs for. */
export function watchableChains(sources: readonly ChainSourceConfig[]): ChainSourceConfig[] {
  return sources.filter((config) => SOURCE_FACTORIES[config.kind] !== undefined);
}

/** The watcher of one configured chain; the endpoint read from its SSM parameter when it has one. */
export async function watcherFor(config: ChainSourceConfig, readSecret?: SecretReader): Promise<ChainWatcher> {
  let url = config.url;
  if (url === undefined && config.urlParameter !== undefined) {
    if (!readSecret) throw new Error(`${config.chain}: ${config.urlParameter} is an SSM parameter and no reader was given`);
    url = (await readSecret(config.urlParameter)).trim();
  }
  if (!url) throw new Error(`${config.chain}: no endpoint configured`);
  return new ChainWatcher(createBlockSource(config, url));
}

/** Sources read by their own index rather than by block: Lightning settlements and EOS transfers. */
export type IndexedChain = 'LBTC' | 'EOS';

/** The configured indexed sources: LBTC with `LND_REST_URL`, EOS with `EOS_ACCOUNT` and `EOS_HISTORY_URL`. */
export function indexedChains(
  lightning: ReturnType<typeof readLightningConfig> = lightningConfig(),
  eos: ReturnType<typeof readEosConfig> = eosConfig(),
): IndexedChain[] {
  const chains: IndexedChain[] = [];
  if (lightning.restUrl !== undefined) chains.push('LBTC');
  if (eos.watched) chains.push('EOS');
  return chains;
}

/**
 * The watcher of an indexed source, from the process's configuration: LND's settlements (its
 * macaroon and certificate read from SSM, a file or the environment on first use) or the EOS
 * account's transfers from Hyperion. Only EOS keeps unmatched payments in the table: a
 * Lightning node may also serve other applications, whose settled invoices are not ours.
 */
export function indexedWatcherFor(chain: IndexedChain): IndexedWatcher {
  if (chain === 'LBTC') {
    const { client } = lndConfig();
    if (!client) throw new Error('LBTC: LND_REST_URL is not configured');
    return new IndexedWatcher(new LndSettlements(client), { keepUnmatched: false });
  }
  const { account, historyUrl, watched } = eosConfig();
  if (!watched) throw new Error('EOS: EOS_ACCOUNT and EOS_HISTORY_URL are not both configured');
  return new IndexedWatcher(new HyperionTransfers({ url: historyUrl!, account: account! }), { keepUnmatched: true });
}

/** Polls a watcher every WATCH_INTERVAL_SECONDS until `signal` (the shared loop, configured). */
export function watchUntil<R extends Progress>(
  watcher: Stepper<R>,
  signal: AbortSignal,
  hooks: Pick<PollOptions<R>, 'onStep' | 'onError'> = {},
): Promise<PollSummary<R>> {
  return pollChain(watcher, { intervalMs: watchConfig().watchIntervalSeconds * 1000, signal, ...hooks });
}
