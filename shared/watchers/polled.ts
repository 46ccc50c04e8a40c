/**
 * A chain polled until stopped: the local runtime's run of each of its watchers
 * (runnable.ts), every WATCH_INTERVAL_SECONDS on the shared loop (watch-loop.ts) with the
 * chain's step hooks (step-hooks.ts). In AWS a chain is stepped instead, one invocation a step
 * (stepped.ts).
 */
import { watchConfig } from '#shared/core/config';
import type { StepReport } from '#shared/watchers/block-report';
import type { IndexedStepReport } from '#shared/watchers/indexed-watcher';
import type { SecretReader } from '#shared/watchers/runnable';
import { chainStepper } from '#shared/watchers/step-hooks';
import { pollChain, type PollSummary } from '#shared/watchers/watch-loop';

/**
 * One run of `chain`'s watcher that polls until `signal` (the local runtime: once per chain of
 * runnableWatchers, until it stops). In AWS a chain is stepped instead, one invocation a step
 * (shared/watchers/stepped.ts).
 */
export async function watchChainRun(chain: string, signal: AbortSignal, readSecret?: SecretReader): Promise<PollSummary<StepReport | IndexedStepReport>> {
  const { watcher, onStep, onError } = await chainStepper(chain, readSecret);
  return pollChain(watcher, { intervalMs: watchConfig().watchIntervalSeconds * 1000, signal, onStep, onError });
}
