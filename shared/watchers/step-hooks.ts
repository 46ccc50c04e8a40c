/**
 * What each step of a chain's watcher reports, for a polling loop (polled.ts) or a stepped run
 * (stepped.ts): its source's health (the health alarm's metric), the logs of what it booked,
 * kept or could not match, and the unmatched payments an operator is alarmed of.
 */
import { logger } from '#shared/core/logger';
import { publishValue } from '#shared/core/metrics';
import { formatDecimal } from '#shared/domain/money';
import type { StepReport } from '#shared/watchers/block-report';
import type { BlockWatcher } from '#shared/watchers/block-watcher';
import { blockWatcherOf, indexedWatcherOf, reporterOf } from '#shared/watchers/container-cache';
import type { HealthReporter } from '#shared/watchers/health-reports';
import type { IndexedStepReport } from '#shared/watchers/indexed-watcher';
import { asIndexedChain, blockSourceConfigOf, INDEXED_SOURCE, type IndexedChain, indexedChains, type SecretReader } from '#shared/watchers/runnable';
import type { Stepper } from '#shared/watchers/watch-loop';

/** A chain's watcher with what each of its steps reports (health, logs), for a polling loop or a stepped run. */
export interface ChainStepper {
  watcher: Stepper<StepReport | IndexedStepReport>;
  onStep: (report: StepReport | IndexedStepReport) => Promise<void>;
  /** `inARow`: the steps that failed in a row, this one included (the log keeps to the first and every tenth). */
  onError: (error: unknown, inARow: number) => Promise<void>;
}

/**
 * `chain`'s watcher (one per container: it lives as long as the process) and its step hooks:
 * each step reports its source's health (the health alarm's metric) and logs what it booked,
 * kept or could not match.
 */
export function chainStepper(chain: string, readSecret?: SecretReader): Promise<ChainStepper> {
  const indexed = asIndexedChain(chain);
  return indexed ? Promise.resolve().then(() => indexedStepper(indexed)) : blockStepper(chain, readSecret);
}

/** A failed step: logged at the first failure of a streak, then every tenth (an unreachable node is one line a while), and reported as the source's health. */
function failureHook(chain: string, reporter: HealthReporter): ChainStepper['onError'] {
  return async (error, inARow) => {
    if (inARow === 1 || inARow % 10 === 0) logger.warn('chain watcher step failed', { chain, inARow, error: error as Error });
    await reporter.failed(error);
  };
}

/** A block chain (BTC, LTC, BCH, ETH): blocks behind the tip, payments kept on decided orders. */
async function blockStepper(chain: string, readSecret: SecretReader | undefined): Promise<ChainStepper> {
  const config = blockSourceConfigOf(chain);
  if (!config) throw new Error(`${chain}: no source configured for this watcher`);
  const reporter = reporterOf(chain, config.kind);
  let watcher: BlockWatcher;
  try {
    watcher = await blockWatcherOf(config, readSecret);
  } catch (error) {
    await reporter.failed(error);
    throw error;
  }
  return {
    watcher: watcher as Stepper<StepReport | IndexedStepReport>,
    onStep: async (step) => {
      const report = step as StepReport;
      if (report.blocks > 0 || report.booked > 0 || report.retracted > 0) logger.info('chain watched', { ...report, kept: undefined });
      for (const kept of report.kept) logger.error('a decided order kept a payment whose block left the chain', { chain, ...kept });
      // Kept as unmatched (its order gone, or its invoice refuses it): the operator's to return, as an indexed source's.
      if (report.unmatched > 0) publishValue('UnmatchedPayments', report.unmatched);
      await reporter.succeeded({ tipHeight: report.tip.height, tipTime: report.tip.time, cursorHeight: report.cursor.height, caughtUp: report.behind === 0, note: watcher.source.health?.() });
    },
    onError: failureHook(chain, reporter),
  };
}

/**
 * LBTC (LND settlements), EOS (Hyperion transfers), TRON and Solana (transfers to watched
 * addresses): caught up once the cursor stops moving (the health report's lag). A payment that
 * finds no invoice is logged; but for LBTC (a shared node's other invoices) it is counted
 * (UnmatchedPayments, the unmatched-payment alarm's metric) and kept in the table for an operator.
 */
function indexedStepper(chain: IndexedChain): ChainStepper {
  if (!indexedChains().includes(chain)) throw new Error(`${chain}: no source configured for this watcher`);
  const watcher = indexedWatcherOf(chain);
  const reporter = reporterOf(chain, INDEXED_SOURCE[chain]);
  const source = watcher.source;
  return {
    watcher,
    onStep: async (step) => {
      const report = step as IndexedStepReport;
      await reporter.succeeded({ caughtUp: report.behind === 0, note: source.health?.() });
      const fresh = report.unmatched.filter((found) => found.first);
      // The operator's to return: not another application's settled invoice (LBTC), nor money in a merchant's own wallet (its portal shows it).
      const operators = fresh.filter(({ owned }) => !owned && chain !== 'LBTC');
      // Only when there are some: a series published all the time is billed all the time.
      if (operators.length > 0) publishValue('UnmatchedPayments', operators.length);
      if (report.booked > 0) logger.info('payments watched', { ...report, unmatched: report.unmatched.length });
      for (const { transfer, reason, owned } of fresh) {
        const details = { chain, reason, key: transfer.key, txid: transfer.txid, address: transfer.address, memo: transfer.memo, amount: formatDecimal(transfer.amount) };
        if (chain === 'LBTC') logger.info('a settled invoice is not one of ours', details);
        else if (owned) logger.warn("a payment to a merchant's own wallet matches no invoice: listed in its portal", details);
        else logger.error('a payment matches no invoice: return it to its sender', details);
      }
    },
    onError: failureHook(chain, reporter),
  };
}
