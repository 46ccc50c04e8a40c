/**
 * What a container keeps across runs (a warm Lambda, the local runtime): one watcher per chain,
 * so a block watcher keeps the mempool transactions it examined and its open-address list, and
 * an indexed one its watch list; and one health reporter per chain, so its writes are spaced
 * across runs. Both the step hooks (step-hooks.ts) and the idle look (idle.ts) take them from here.
 */
import type { ChainSourceConfig } from '#shared/chains/sources';
import { tipAgeSettings } from '#shared/chains/tip-age';
import type { BlockWatcher } from '#shared/watchers/block-watcher';
import { HealthReporter } from '#shared/watchers/health-reports';
import type { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import { asIndexedChain, type IndexedChain, type SecretReader } from '#shared/watchers/runnable';
import { indexedWatcherFor, watcherFor } from '#shared/watchers/wiring';

const blockWatchers = new Map<string, Promise<BlockWatcher>>();
const indexedWatchers = new Map<IndexedChain, IndexedWatcher>();
const reporters = new Map<string, HealthReporter>();

/** The container's watcher of a configured block chain; one that could not be built is forgotten, so the next run tries again. */
export function blockWatcherOf(config: ChainSourceConfig, readSecret: SecretReader | undefined): Promise<BlockWatcher> {
  let pending = blockWatchers.get(config.chain);
  if (!pending) {
    pending = watcherFor(config, readSecret).catch((error: unknown) => {
      blockWatchers.delete(config.chain);
      throw error;
    });
    blockWatchers.set(config.chain, pending);
  }
  return pending;
}

/** The container's watcher of an indexed source. */
export function indexedWatcherOf(chain: IndexedChain): IndexedWatcher {
  let watcher = indexedWatchers.get(chain);
  if (!watcher) indexedWatchers.set(chain, (watcher = indexedWatcherFor(chain)));
  return watcher;
}

/** The health reporter of `chain`'s source (one per process, so its writes are spaced across runs). */
export function reporterOf(chain: string, kind: string): HealthReporter {
  let reporter = reporters.get(chain);
  // A block chain's tip is judged by its time too (chains/tip-age.ts); indexed sources say it themselves.
  if (!reporter) reporters.set(chain, (reporter = new HealthReporter(chain, kind, undefined, asIndexedChain(chain) ? 0 : (tipAgeSettings()[chain] ?? 0))));
  return reporter;
}
