import type { Context } from 'aws-lambda';
import { readSecureParameter } from '#shared/aws/parameters';
import { watchFunctionConfig } from '#shared/core/config';
import { type SteppedSummary, watchChainStep } from '#shared/watchers/stepped';
import { queueTickSender, tickOf } from '#shared/watchers/ticks';

/** Steps again at once while behind for at most this long; then the next tick (without delay) goes on. */
const BUDGET_MS = 30_000;
/** A step in flight when the budget ends must still finish before the function's timeout. */
const STOP_MARGIN_MS = 60_000;

/**
 * One chain's watcher (one function per configured chain, LBTC, EOS, TRON and Solana included),
 * invoked by the minute's schedule, by wake-watchers when a checkout finds the chain idle, and by
 * tick-watchers for each step of a chain in demand: an idle chain gets its look (at most every
 * WATCH_IDLE_LOOK_SECONDS), a chain in demand one step and its next tick on the step timer's
 * queue (shared/watchers/stepped.ts). Fails when the chain could not be looked at.
 */
export const handler = async (event: unknown, context: Context): Promise<SteppedSummary> => {
  const { chain, tickQueueUrl } = watchFunctionConfig();
  const summary = await watchChainStep(chain, tickOf(event, chain), {
    send: queueTickSender(tickQueueUrl),
    readSecret: readSecureParameter,
    budgetMs: Math.max(0, Math.min(BUDGET_MS, context.getRemainingTimeInMillis() - STOP_MARGIN_MS)),
  });
  // Its source turns unhealthy too; this makes the failure visible in the function's own errors.
  if (summary.failures > 0 && summary.steps === 0) throw new Error(`${chain}: the look at the chain failed`);
  return summary;
};
