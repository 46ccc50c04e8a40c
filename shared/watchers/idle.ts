/**
 * Pay-per-use in AWS: a chain that nothing needs (no open invoice, no payment maturing) is not
 * stepped; one idle look at its source keeps its health fresh, at most every
 * WATCH_IDLE_LOOK_SECONDS. A chain in demand is stepped (stepped.ts).
 */
import { watchConfig } from '#shared/core/config';
import { watchingNeeded } from '#shared/store/watch-demand';
import type { StepReport } from '#shared/watchers/block-report';
import { blockWatcherOf, indexedWatcherOf, reporterOf } from '#shared/watchers/container-cache';
import type { IndexedStepReport } from '#shared/watchers/indexed-watcher';
import { asIndexedChain, blockSourceConfigOf, INDEXED_SOURCE, type SecretReader } from '#shared/watchers/runnable';
import type { PollSummary } from '#shared/watchers/watch-loop';

/**
 * A run that did not step a chain in demand: nothing needs the chain (it looked once, or
 * `rested`: it had looked within WATCH_IDLE_LOOK_SECONDS).
 */
export type IdleSummary = PollSummary<StepReport | IndexedStepReport> & { idle: true; rested?: true };

/**
 * When this container last looked at each idle chain successfully. Scheduled runs come every
 * minute; an idle chain's look (source requests, the cursor and health writes) is most of an
 * idle run's bill, and its health needs one only every few minutes (SOURCE_MAX_SILENCE_SECONDS).
 * Forgotten once the chain is needed again, so the next idle spell starts with a look.
 */
const lastIdleLook = new Map<string, number>();

/**
 * Pay-per-use: when no open invoice needs `chain` and no payment is maturing on it, one idle
 * look (block chains: the tip, the cursor moves there; indexed sources: one step, which for
 * TRON and Solana with no watched address is a Query of the watch list that finds nothing new)
 * and its health report, at most every WATCH_IDLE_LOOK_SECONDS (the runs between check the
 * demand only). Undefined when the chain is needed: the caller steps it
 * (shared/watchers/stepped.ts). An idle run is one Lambda invocation of a few hundred ms.
 */
export async function idleRun(chain: string, now: Date, readSecret?: SecretReader): Promise<IdleSummary | undefined> {
  if (await watchingNeeded(chain, now)) {
    lastIdleLook.delete(chain);
    return undefined;
  }
  const looked = lastIdleLook.get(chain);
  // Looked at recently (this container): its health report is fresh, the demand was all this run had to check.
  if (looked !== undefined && now.getTime() - looked < watchConfig().idleLookSeconds * 1000) return { steps: 0, failures: 0, idle: true, rested: true };
  const look = await idleLook(chain, readSecret);
  if (look.steps > 0) lastIdleLook.set(chain, now.getTime());
  return { ...look, idle: true };
}

/** One look at an idle chain's source, reported as its health (caught up: nothing is owed). */
async function idleLook(chain: string, readSecret: SecretReader | undefined): Promise<PollSummary<StepReport | IndexedStepReport>> {
  const indexed = asIndexedChain(chain);
  const config = indexed ? undefined : blockSourceConfigOf(chain);
  const reporter = reporterOf(chain, indexed ? INDEXED_SOURCE[indexed] : (config?.kind ?? 'unknown'));
  try {
    if (indexed) {
      // Indexed sources read only what reached our node or account, TRON and Solana only their
      // watched addresses (none: the step is one Query of the watch list): a step is already cheap.
      const watcher = indexedWatcherOf(indexed);
      const report = await watcher.step();
      await reporter.succeeded({ caughtUp: true, note: watcher.source.health?.() });
      return { steps: 1, failures: 0, last: report };
    }
    if (!config) throw new Error(`${chain}: no source configured for this watcher`);
    const watcher = await blockWatcherOf(config, readSecret);
    const look = await watcher.idleLook();
    await reporter.succeeded({ tipHeight: look.tip.height, tipTime: look.tip.time, cursorHeight: look.cursor.height, caughtUp: true, note: watcher.source.health?.() });
    return { steps: 1, failures: 0 };
  } catch (error) {
    await reporter.failed(error);
    return { steps: 0, failures: 1 };
  }
}
