import type { Context } from 'aws-lambda';
import { readSecureParameter } from '#shared/aws/parameters';
import { watchFunctionConfig } from '#shared/core/config';
import { watchChainOnDemand } from '#shared/watchers/run';

/** Stop starting steps this long before the function's timeout: a step (bounded) must finish. */
const STOP_MARGIN_MS = 60_000;
/** Polling window of one run: the next scheduled run (every minute) takes over. */
const WINDOW_MS = 55_000;

/**
 * Scheduled every minute (EventBridge), and invoked at once by wake-watchers when a checkout
 * finds the chain idle; pay-per-use: while an open invoice or a maturing payment needs this
 * chain, polls it every WATCH_INTERVAL_SECONDS for about a minute, one run at a time (a lease: a
 * run that finds it held waits for it); otherwise one look at the source and done
 * (shared/watchers/run.ts), at most every WATCH_IDLE_LOOK_SECONDS (the runs between check the
demand only). Fails when no look at the source succeeded at all (its source then turns unhealthy).
 */
export const handler = async (_event: unknown, context: Context): Promise<{ steps: number; failures: number; behind?: number; idle?: true; leased?: true }> => {
  // The chain this function watches (one function per configured chain, LBTC and EOS included).
  const { chain } = watchFunctionConfig();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.min(WINDOW_MS, context.getRemainingTimeInMillis() - STOP_MARGIN_MS));
  const summary = await watchChainOnDemand(chain, controller.signal, readSecureParameter).finally(() => clearTimeout(timer));
  if (summary.leased) return { steps: 0, failures: 0, leased: true };
  // Idle and looked at within WATCH_IDLE_LOOK_SECONDS: the demand check was the whole run.
  if (summary.rested) return { steps: 0, failures: 0, idle: true };
  if (summary.steps === 0) throw new Error(`${chain}: no look at the chain succeeded in this run (${summary.failures} failures)`);
  return { steps: summary.steps, failures: summary.failures, behind: summary.last?.behind, ...(summary.idle ? { idle: true as const } : {}) };
};
