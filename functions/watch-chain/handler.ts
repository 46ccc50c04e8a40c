import type { Context } from 'aws-lambda';
import { readSecureParameter } from '#shared/aws/parameters';
import { watchFunctionConfig } from '#shared/core/config';
import { watchChainRun } from '#shared/watchers/run';

/** Stop starting steps this long before the function's timeout: a step (bounded) must finish. */
const STOP_MARGIN_MS = 60_000;
/** Polling window of one run: the next scheduled run (every minute) takes over. */
const WINDOW_MS = 55_000;

/**
 * Scheduled every minute (EventBridge): polls this chain every WATCH_INTERVAL_SECONDS for
 * about a minute (shared/watchers/run.ts). Fails (the errors alarm) when no look at
 * the source succeeded at all.
 */
export const handler = async (_event: unknown, context: Context): Promise<{ steps: number; failures: number; behind?: number }> => {
  // The chain this function watches (one function per configured chain, LBTC and EOS included).
  const { chain } = watchFunctionConfig();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.min(WINDOW_MS, context.getRemainingTimeInMillis() - STOP_MARGIN_MS));
  const summary = await watchChainRun(chain, controller.signal, readSecureParameter).finally(() => clearTimeout(timer));
  if (summary.steps === 0) throw new Error(`${chain}: no look at the chain succeeded in this run (${summary.failures} failures)`);
  return { steps: summary.steps, failures: summary.failures, behind: summary.last?.behind };
};
