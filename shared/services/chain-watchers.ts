import { watchConfig } from '#shared/core/config';
import type { ChainSourceConfig } from '#shared/payments/watchers/config';
import { createBlockSource, SOURCE_FACTORIES } from '#shared/payments/watchers/sources';
import { ChainWatcher } from '#shared/services/chain-watcher';
import { type PollSummary, pollChain } from '#shared/services/watch-loop';

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

/** Polls a watcher every WATCH_INTERVAL_SECONDS until `signal` (the shared loop, configured). */
export function watchUntil(watcher: ChainWatcher, signal: AbortSignal, hooks: Pick<Parameters<typeof pollChain>[1], 'onStep' | 'onError'> = {}): Promise<PollSummary> {
  return pollChain(watcher, { intervalMs: watchConfig().watchIntervalSeconds * 1000, signal, ...hooks });
}
