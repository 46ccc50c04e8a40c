import type { Context } from 'aws-lambda';
import { readSecureParameter } from '#shared/aws/parameters';
import { watchFunctionConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { publishGauge } from '#shared/core/metrics';
import type { ChainWatcher } from '#shared/services/chain-watcher';
import { watchableChains, watcherFor, watchUntil } from '#shared/services/chain-watchers';
import { chainSourcesConfig } from '#shared/payments/watchers/config';

/** Stop starting steps this long before the function's timeout: a step (bounded) must finish. */
const STOP_MARGIN_MS = 60_000;
/** Polling window of one run: the next scheduled run (every minute) takes over. */
const WINDOW_MS = 55_000;

let watcher: Promise<ChainWatcher> | undefined;

/**
 * Scheduled every minute (EventBridge): polls this chain every WATCH_INTERVAL_SECONDS for
 * about a minute, publishing how far its cursor is behind the tip (ChainBlocksBehind, the
 * lag alarm's metric). Fails (the errors alarm) when no look at the chain succeeded at all.
 */
export const handler = async (_event: unknown, context: Context): Promise<{ steps: number; failures: number; behind?: number }> => {
  // The chain this function watches (one function per configured chain).
  const { chain } = watchFunctionConfig();
  const config = watchableChains(chainSourcesConfig().sources).find((candidate) => candidate.chain === chain);
  if (!config) throw new Error(`${chain}: no source configured for this watcher`);
  // One watcher per container: it keeps the mempool transactions it examined across runs.
  watcher ??= watcherFor(config, readSecureParameter).catch((error: unknown) => {
    watcher = undefined;
    throw error;
  });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.min(WINDOW_MS, context.getRemainingTimeInMillis() - STOP_MARGIN_MS));
  const summary = await watchUntil(await watcher, controller.signal, {
    onStep: (report) => {
      publishGauge('ChainBlocksBehind', report.behind, { name: 'Chain', value: chain });
      if (report.blocks > 0 || report.booked > 0 || report.retracted > 0) logger.info('chain watched', { ...report, kept: undefined });
      for (const kept of report.kept) logger.error('a decided order kept a payment whose block left the chain', { chain, ...kept });
    },
    onError: (error, inARow) => logger.warn('chain watcher step failed', { chain, inARow, error: error as Error }),
  }).finally(() => clearTimeout(timer));
  if (summary.steps === 0) throw new Error(`${chain}: no look at the chain succeeded in this run (${summary.failures} failures)`);
  return { steps: summary.steps, failures: summary.failures, behind: summary.last?.behind };
};
