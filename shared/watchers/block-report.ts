/**
 * What one step of a block chain's watcher reports (block-watcher.ts): logged and published by
 * the step hooks (step-hooks.ts), measured by the bench. The payments booking kept as unmatched
 * are counted here and logged once for an operator, who returns them.
 */
import { logger } from '#shared/core/logger';
import { formatDecimal } from '#shared/domain/money';
import type { Booked } from '#shared/watchers/booking';
import type { BlockRef } from '#shared/watchers/sources/port';

/** A payment the watcher could not take back because its order was already decided: an operator's case. */
export interface KeptPayment {
  key: string;
  orderId: string;
  height: number;
}

/** What one step did (logged by the runtime, measured by the bench). */
export interface StepReport {
  chain: string;
  tip: BlockRef;
  cursor: BlockRef;
  /** Blocks scanned and booked. */
  blocks: number;
  /** Transfers examined (every output of those blocks, and new mempool ones). */
  transfers: number;
  /** Items read from the chain's open-address list (the whole list on a container's first read, then what was added). */
  openRead: number;
  /** Address-index lookups (unique addresses paid by transfers to open addresses) and the payments to our invoices booked. */
  lookups: number;
  booked: number;
  /** Final payments to buyers' refund addresses booked on their refunds (store/refund-watches.ts). */
  refunds: number;
  /** Maturing payments that reached their confirmations. */
  matured: number;
  /** Payments taken back because their block left the chain. */
  retracted: number;
  /** Payments left on decided orders although their block left the chain. */
  kept: KeptPayment[];
  /** Payments kept as unmatched for the first time (their invoice can never take them): counted in UnmatchedPayments. */
  unmatched: number;
  reorganisations: number;
  /** `tip - cursor` after the step: blocks still to scan. */
  behind: number;
  /** Another run moved the cursor first: this step stopped there. */
  yielded: boolean;
}

/** A step's report before it has done anything. */
export function newStepReport(chain: string): StepReport {
  return {
    chain,
    tip: { height: 0, hash: '' },
    cursor: { height: 0, hash: '' },
    blocks: 0,
    transfers: 0,
    openRead: 0,
    lookups: 0,
    booked: 0,
    refunds: 0,
    matured: 0,
    retracted: 0,
    kept: [],
    unmatched: 0,
    reorganisations: 0,
    behind: 0,
    yielded: false,
  };
}

/** The step's end: where the cursor stopped, how far behind the tip, and whether another run moved it first. */
export function finishReport(report: StepReport, tip: BlockRef, cursor: BlockRef, yielded: boolean): StepReport {
  report.cursor = { height: cursor.height, hash: cursor.hash };
  report.behind = Math.max(0, tip.height - cursor.height);
  report.yielded = yielded;
  return report;
}

/** The payments booking kept as unmatched (their invoice can never take them), logged the first time: an operator returns them. */
export function reportUnmatched(chain: string, { unmatched }: Booked, report: StepReport): void {
  for (const { transfer, reason, first } of unmatched) {
    if (!first) continue;
    report.unmatched += 1;
    logger.error('a payment its invoice cannot take: kept as unmatched, return it to its sender', {
      chain,
      reason,
      key: transfer.key,
      txid: transfer.txid,
      address: transfer.address,
      amount: formatDecimal(transfer.amount),
    });
  }
}
