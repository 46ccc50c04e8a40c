/**
 * The watcher of a source with its own growing index ({@link IndexedSource}): LND's
 * settlements (settle_index) and EOS transfers from Hyperion (global_sequence). The sibling of
 * the block watcher (block-watcher.ts), run by the same schedule and loop.
 *
 * Each {@link IndexedWatcher.step} reads the source's cursor from the table, asks the source
 * for what came after it (at most `limit`), books every payment through booking.ts (the one
 * booking path of every watcher) and then moves the cursor with a conditional write. These sources report a
 * payment only once it is final (a SETTLED invoice; an EOS transfer in an irreversible block),
 * so a booked payment counts as confirmed at once, and nothing is ever taken back. Booking is
 * idempotent by the payment's own key (the payment hash; the action's global_sequence), so a
 * payment seen twice (two runs, a restart between booking and the cursor write, an LND
 * settle_index gap reported again) is booked once.
 *
 * The invoice is found in the address index: a Lightning payment by its BOLT #11 string, an EOS
 * transfer by the account and its memo (the invoice id). A memo naming an invoice the order
 * no longer uses, or a payment after the invoice expired, follows payment-reports.ts's replaced and
 * late rules; the wrong amount makes the order UNRESOLVED with its reason. A payment that
 * finds no invoice (or one its invoice can never take) is reported as `unmatched` and kept in
 * the table for an operator, and for the merchant whose own wallet it paid (TON, Stellar:
 * `ownersOf`). A payment to a buyer's refund address (TRON, Solana; EOS: from the receiving account) is booked on its
 * refund (booking.ts bookRefundPayment); an outgoing transfer that pays none is passed over.
 */
import { confirmationsRequired } from '#shared/chains/confirmations';
import type { IndexedSource, Transfer } from '#shared/watchers/sources/port';
import { readIndexCursor, writeIndexCursor } from '#shared/store/index-cursors';
import type { WatchedAddress, WatchList } from '#shared/store/watch-list';
import { Booking, type UnmatchedTransfer } from '#shared/watchers/booking';

export type { UnmatchedTransfer } from '#shared/watchers/booking';

export interface IndexedWatcherOptions {
  /** Payments one step asks the source for at most: the bound on one run's work. */
  limit: number;
  /** The cursor's name in the table (default: the source's chain; tests use their own). */
  cursorName?: string;
  /**
   * Keep unmatched payments in the table (EOS: a buyer's transfer with a wrong memo is money
   * an operator must return). LND's node may serve other applications too: their settled
   * invoices are not ours and are only counted.
   */
  keepUnmatched?: boolean;
  /**
   * The merchants whose own wallet `address` is (TON, Stellar: from the watch list the source
   * read this step), under whom a payment to it that no invoice takes is kept too.
   */
  ownersOf?: (address: string, now: Date) => number[];
  /**
   * Write the cursor at most this often while a step books nothing and is caught up (Stellar:
   * the network's paging token moves every step, and its write was a sixth of the watcher's
   * cost); between writes the place is kept in memory, on top of the stored version it read
   * from, and a restart reads again from the stored cursor (booking is idempotent). Default 0:
   * every move is written.
   */
  cursorEveryMs?: number;
  clock?: () => Date;
}

/** What one step did (logged by the runtime). */
export interface IndexedStepReport {
  chain: string;
  /** The cursor after the step. */
  cursor: string | undefined;
  /** Payments the source reported and those booked on an invoice. */
  transfers: number;
  booked: number;
  /** Payments to buyers' refund addresses booked on their refunds (store/refund-watches.ts). */
  refunds: number;
  unmatched: UnmatchedTransfer[];
  /** 1 when the cursor moved and the source may have more (step again at once), 0 once caught up. */
  behind: number;
  /** Another run moved the cursor first: this step stopped there. */
  yielded: boolean;
}

/** Memos are typed by people: an invoice id (a UUID) in capitals is still that invoice. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const canonicalMemo = (memo: string | undefined): string | undefined => (memo !== undefined && UUID.test(memo) ? memo.toLowerCase() : memo);

export class IndexedWatcher {
  private readonly limit: number;
  private readonly clock: () => Date;
  private readonly name: string;
  private readonly booking: Booking;
  private readonly cursorEveryMs: number;
  /** The place read and booked past the stored cursor of `version`, not written yet ({@link IndexedWatcherOptions.cursorEveryMs}). */
  private unwritten: { version: number; position: string } | undefined;
  private writtenAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly source: IndexedSource,
    options: Partial<IndexedWatcherOptions> = {},
  ) {
    this.limit = options.limit ?? 100;
    this.clock = options.clock ?? (() => new Date());
    this.name = options.cursorName ?? source.chain;
    // Every transfer an indexed source reports is to our accounts: one no invoice takes is unmatched.
    this.booking = new Booking({
      chain: this.name,
      keepUnmatched: options.keepUnmatched ?? true,
      unmatchedWithoutInvoice: true,
      ...(options.ownersOf ? { ownersOf: options.ownersOf } : {}),
    });
    this.cursorEveryMs = options.cursorEveryMs ?? 0;
  }

  get chain(): string {
    return this.source.chain;
  }

  async step(): Promise<IndexedStepReport> {
    const stored = await readIndexCursor(this.name);
    const version = stored?.version ?? 0;
    // Another run wrote since this one's unwritten place was read: its cursor counts.
    const from = this.unwritten?.version === version ? this.unwritten.position : stored?.position;
    const { transfers: reported, next, more } = await this.source.after(from, this.limit);
    const transfers = reported.map((transfer) => (transfer.memo === undefined ? transfer : { ...transfer, memo: canonicalMemo(transfer.memo) }));
    const report: IndexedStepReport = {
      chain: this.chain,
      cursor: from,
      transfers: transfers.length,
      booked: 0,
      refunds: 0,
      unmatched: [],
      behind: 0,
      yielded: false,
    };
    await this.book(transfers, report);
    this.source.booked?.();
    if (next === undefined || next === stored?.position) return report;
    const now = this.clock().getTime();
    if (transfers.length === 0 && more === false && now - this.writtenAt < this.cursorEveryMs) {
      this.unwritten = { version, position: next };
      return { ...report, cursor: next };
    }
    const written = await writeIndexCursor({ chain: this.name, position: next, updated_at: new Date(now).toISOString(), version: version + 1 });
    this.unwritten = undefined;
    if (!written) return { ...report, yielded: true };
    this.writtenAt = now;
    return { ...report, cursor: next, behind: more === false ? 0 : 1 };
  }

  /** Books the payments (booking.ts), final when reported: settled, or in an irreversible block. */
  private async book(transfers: readonly Transfer[], report: IndexedStepReport): Promise<void> {
    const booked = await this.booking.book(transfers, { now: this.clock(), confirmations: (transfer) => confirmationsRequired(transfer.currency), final: true });
    report.booked += booked.invoices.length;
    report.refunds += booked.refunds;
    report.unmatched.push(...booked.unmatched);
  }
}

/**
 * The watcher of a source that reads merchants' own wallets (TON, Stellar) from `list`: a
 * payment to a wallet that no invoice takes is kept under the merchants whose wallet it is, as
 * the watches of their invoices say (the list as the source last read it this step).
 */
export function walletWatcher(source: IndexedSource, list: WatchList<WatchedAddress>, options: Partial<IndexedWatcherOptions> = {}): IndexedWatcher {
  const ownersOf = (address: string, now: Date): number[] => {
    const owners = list
      .watched(now)
      .filter((entry) => entry.address === address && entry.owner !== undefined)
      .map((entry) => Number(entry.owner));
    return [...new Set(owners)].filter(Number.isSafeInteger);
  };
  return new IndexedWatcher(source, { keepUnmatched: true, ...options, ownersOf });
}
