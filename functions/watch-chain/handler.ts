import type { Context } from 'aws-lambda';
import { readSecureParameter } from '#shared/aws/parameters';
import { watchFunctionConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { publishGauge } from '#shared/core/metrics';
import { formatDecimal } from '#shared/domain/money';
import type { ChainWatcher, StepReport } from '#shared/services/chain-watcher';
import { type IndexedChain, indexedChains, indexedWatcherFor, watchableChains, watcherFor, watchUntil } from '#shared/services/chain-watchers';
import type { IndexedStepReport, IndexedWatcher } from '#shared/services/indexed-watcher';
import type { PollSummary } from '#shared/services/watch-loop';
import { chainSourcesConfig } from '#shared/payments/watchers/config';

/** Stop starting steps this long before the function's timeout: a step (bounded) must finish. */
const STOP_MARGIN_MS = 60_000;
/** Polling window of one run: the next scheduled run (every minute) takes over. */
const WINDOW_MS = 55_000;

let blockWatcher: Promise<ChainWatcher> | undefined;
let indexedWatcher: IndexedWatcher | undefined;

const onError = (chain: string) => (error: unknown, inARow: number) => logger.warn('chain watcher step failed', { chain, inARow, error: error as Error });

/** A block chain (BTC, LTC, BCH, ETH): blocks behind the tip, payments kept on decided orders. */
async function watchBlocks(chain: string, signal: AbortSignal): Promise<PollSummary<StepReport>> {
  const config = watchableChains(chainSourcesConfig().sources).find((candidate) => candidate.chain === chain);
  if (!config) throw new Error(`${chain}: no source configured for this watcher`);
  // One watcher per container: it keeps the mempool transactions it examined across runs.
  blockWatcher ??= watcherFor(config, readSecureParameter).catch((error: unknown) => {
    blockWatcher = undefined;
    throw error;
  });
  return watchUntil(await blockWatcher, signal, {
    onStep: (report) => {
      publishGauge('ChainBlocksBehind', report.behind, { name: 'Chain', value: chain });
      if (report.blocks > 0 || report.booked > 0 || report.retracted > 0) logger.info('chain watched', { ...report, kept: undefined });
      for (const kept of report.kept) logger.error('a decided order kept a payment whose block left the chain', { chain, ...kept });
    },
    onError: onError(chain),
  });
}

/**
 * LBTC (LND settlements) or EOS (Hyperion transfers): ChainBlocksBehind is 1 while the cursor
 * still moves (more to read), 0 once caught up, so the lag alarm fires when a watcher never
 * catches up or falls silent. A payment that finds no invoice is logged and counted
 * (UnmatchedPayments); EOS ones are also kept in the table for an operator.
 */
async function watchIndexed(chain: IndexedChain, signal: AbortSignal): Promise<PollSummary<IndexedStepReport>> {
  if (!indexedChains().includes(chain)) throw new Error(`${chain}: no source configured for this watcher`);
  indexedWatcher ??= indexedWatcherFor(chain);
  return watchUntil(indexedWatcher, signal, {
    onStep: (report) => {
      const fresh = report.unmatched.filter((found) => found.first);
      publishGauge('ChainBlocksBehind', report.behind, { name: 'Chain', value: chain });
      publishGauge('UnmatchedPayments', fresh.length, { name: 'Chain', value: chain });
      if (report.booked > 0) logger.info('payments watched', { ...report, unmatched: report.unmatched.length });
      for (const { transfer, reason } of fresh) {
        const details = { chain, reason, key: transfer.key, txid: transfer.txid, address: transfer.address, memo: transfer.memo, amount: formatDecimal(transfer.amount) };
        // Another application's settled invoice on a shared LND node is normal; an EOS transfer without an invoice is a buyer's money.
        if (chain === 'EOS') logger.error('a payment matches no invoice: return it to its sender', details);
        else logger.info('a settled invoice is not one of ours', details);
      }
    },
    onError: onError(chain),
  });
}

/**
 * Scheduled every minute (EventBridge): polls this chain every WATCH_INTERVAL_SECONDS for
 * about a minute, publishing how far its cursor is behind (ChainBlocksBehind, the lag alarm's
 * metric). Fails (the errors alarm) when no look at the source succeeded at all.
 */
export const handler = async (_event: unknown, context: Context): Promise<{ steps: number; failures: number; behind?: number }> => {
  // The chain this function watches (one function per configured chain, LBTC and EOS included).
  const { chain } = watchFunctionConfig();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), Math.min(WINDOW_MS, context.getRemainingTimeInMillis() - STOP_MARGIN_MS));
  const watching = chain === 'LBTC' || chain === 'EOS' ? watchIndexed(chain, controller.signal) : watchBlocks(chain, controller.signal);
  const summary = await watching.finally(() => clearTimeout(timer));
  if (summary.steps === 0) throw new Error(`${chain}: no look at the chain succeeded in this run (${summary.failures} failures)`);
  return { steps: summary.steps, failures: summary.failures, behind: summary.last?.behind };
};
