/**
 * The block watcher: follows any {@link BlockSource} (Esplora, Bitcoin Core RPC, Ethereum
 * JSON-RPC) block by block, and hands what it finds to booking.ts, the one booking path of
 * every watcher (invoices, refunds, what cannot be booked). Its own part is the chain; this
 * file is the step that puts the parts together:
 *
 * - the cursor (block-cursor.ts): height + hash in the table, moved with a conditional write
 *   after each block, so two overlapping runs never both advance (the one whose write is
 *   refused stops);
 * - the blocks after it (block-reads.ts), at most `maxBlocksPerStep` a step, each checked to
 *   follow the one before; a source that reads ranges ({@link BlockSource.blocks}: the EVM
 *   networks) is asked for the blocks up to the tip at once, their transfers booked together
 *   and the cursor moved past them in one write;
 * - reorganisations (reorganisations.ts): a block whose `previousHash` is not the cursor's
 *   hash, or a tip that replaced the cursor's block, makes the watcher walk back through the
 *   hashes it remembers to the newest block still on the chain, take back the maturing payments
 *   above it and scan the new branch from there; a transaction mined again in it is booked
 *   again under the same key;
 * - the maturing payments (maturing.ts): confirmations are `tip - height + 1`; a payment
 *   booked short of its currency's (to an invoice, or to a buyer's refund address) is kept and
 *   reported again once it has them;
 * - the open addresses (open-addresses.ts): only transfers to the chain's open addresses are
 *   looked up in the address index; the list is read after the transfers were fetched, so a
 *   checkout that came just before them is on it;
 * - the mempool (mempool-memory.ts): unconfirmed transactions make orders PENDING early; the
 *   txids examined and the payments booked unconfirmed are remembered in the container;
 * - the step's report (block-report.ts), and the payments booking kept as unmatched (an
 *   invoice that can never take them: its order is gone, or it refuses the amount), logged
 *   once for an operator.
 *
 * Payments are booked idempotently by the chain's own key (txid:vout), so a transaction seen
 * twice (two runs, a restart in the middle of a block) is booked once.
 */
import type { ChainCursor } from '#shared/store/chain-cursors';
import { BlockCursor } from '#shared/watchers/block-cursor';
import { finishReport, newStepReport, reportUnmatched, type StepReport } from '#shared/watchers/block-report';
import { nextBlock, rangeAfter } from '#shared/watchers/block-reads';
import { Booking, type ShortOf } from '#shared/watchers/booking';
import { MaturingPayments } from '#shared/watchers/maturing';
import { MempoolMemory } from '#shared/watchers/mempool-memory';
import { OpenAddresses } from '#shared/watchers/open-addresses';
import { findFork, tipReplaced } from '#shared/watchers/reorganisations';
import type { BlockRef, BlockSource, Transfer } from '#shared/watchers/sources/port';

export interface BlockWatcherOptions {
  /** Blocks one step scans at most: the bound on one run's work (the next step goes on). */
  maxBlocksPerStep: number;
  /**
   * The same bound for a source that reads ranges (BlockSource.blocks): a range costs a few
   * requests whatever its length, so a step reads more blocks (default 200: 50 s of Arbitrum,
   * 40 min of Ethereum), in ranges as long as the source's cap allows.
   */
  maxRangeBlocksPerStep?: number;
  /** Block hashes the cursor remembers below itself: the deepest reorganisation it can undo. */
  reorgDepth: number;
  /** Also look at unconfirmed transactions (orders go PENDING before the first block). */
  mempool: boolean;
  /** Mempool txids remembered as examined (the oldest are forgotten first). */
  mempoolMemory?: number;
  /** The cursor's name in the table (default: the chain; tests use their own). */
  cursorName?: string;
  clock?: () => Date;
}

export const DEFAULT_WATCHER_OPTIONS: BlockWatcherOptions = { maxBlocksPerStep: 10, reorgDepth: 32, mempool: true };

/** One block chain's watcher: steps through its blocks from the cursor (see the module's comment); named for what it reads, beside the indexed watcher of indexed-watcher.ts. */
export class BlockWatcher {
  private readonly options: BlockWatcherOptions;
  private readonly clock: () => Date;
  private readonly cursor: BlockCursor;
  /** The invoice addresses this chain's payments can go to (read whole once, then what was added). */
  private readonly open: OpenAddresses;
  /** Mempool txids examined and payments booked unconfirmed (kept in the process: a warm Lambda or the local runtime). */
  private readonly memory: MempoolMemory;
  /** Books what the chain showed (booking.ts); its unmatched payments go to the chain's partition. */
  private readonly booking: Booking;
  private readonly maturing: MaturingPayments;

  constructor(
    readonly source: BlockSource,
    options: Partial<BlockWatcherOptions> = {},
  ) {
    this.options = { ...DEFAULT_WATCHER_OPTIONS, ...options };
    this.clock = options.clock ?? (() => new Date());
    // The cursor's (and the maturing payments') name in the table.
    const name = options.cursorName ?? source.chain;
    this.cursor = new BlockCursor(name, this.options.reorgDepth, this.clock);
    this.open = new OpenAddresses(source.chain, this.clock);
    this.memory = new MempoolMemory(this.options.mempoolMemory ?? 200_000);
    this.booking = new Booking({ chain: name });
    this.maturing = new MaturingPayments(source.chain, name, this.booking, this.memory);
  }

  get chain(): string {
    return this.source.chain;
  }

  /** One bounded round: the mempool, then catch up (at most maxBlocksPerStep blocks), then maturing payments. */
  async step(): Promise<StepReport> {
    const report = newStepReport(this.chain);
    const tip = await this.source.tip();
    report.tip = tip;
    let cursor = await this.cursor.read(tip);
    if (!cursor) return finishReport(report, tip, tip, true);

    if (tipReplaced(cursor, tip)) {
      const undone = await this.undoReorganisation(cursor, tip, report);
      if (!undone) return finishReport(report, tip, cursor, true);
      cursor = undone;
    }
    // Unconfirmed payments first: an order paid in parts is judged with everything seen.
    if (this.options.mempool) {
      const transfers = await this.source.mempool(this.memory.examined);
      this.memory.examine(transfers);
      report.transfers += transfers.length;
      await this.book(
        transfers.map(({ block: _unconfirmed, ...transfer }) => transfer),
        tip,
        report,
      );
    }
    const budget = this.source.blocks ? (this.options.maxRangeBlocksPerStep ?? 200) : this.options.maxBlocksPerStep;
    while (cursor.height < tip.height && report.blocks < budget) {
      if (this.source.blocks) {
        const next = await this.scanRange(cursor, Math.min(tip.height, cursor.height + budget - report.blocks), tip, report);
        if (!next) return finishReport(report, tip, cursor, true);
        cursor = next;
        continue;
      }
      const block = await nextBlock(this.source, cursor);
      if (!block) {
        // Bounded: each undo moves the cursor down; the loop's block budget bounds the rest.
        report.blocks += 1;
        const undone = await this.undoReorganisation(cursor, tip, report);
        if (!undone) return finishReport(report, tip, cursor, true);
        cursor = undone;
        continue;
      }
      report.transfers += block.transfers.length;
      await this.book(block.transfers, tip, report);
      const next = await this.cursor.past(cursor, [block], tip);
      if (!next) return finishReport(report, tip, cursor, true);
      cursor = next;
      report.blocks += 1;
    }
    await this.maturing.mature(cursor, tip, this.clock(), report);
    return finishReport(report, tip, cursor, false);
  }

  /**
   * One range read (sources with `blocks`) after the cursor, up to `last` at most: the blocks
   * booked together, the cursor moved past them in one conditional write. A first block that
   * does not follow the cursor is a reorganisation (undone, the next round scans from the
   * fork); a later one that does not follow the block before it is a source's garbage.
   * Undefined: another run moved the cursor first.
   */
  private async scanRange(cursor: ChainCursor, last: number, tip: BlockRef, report: StepReport): Promise<ChainCursor | undefined> {
    const listed = (candidates: readonly Transfer[]) => {
      report.transfers += candidates.length;
      return this.open.listed(candidates, report);
    };
    const blocks = await rangeAfter(this.source, cursor, last, listed);
    if (!blocks) {
      report.blocks += 1;
      return this.undoReorganisation(cursor, tip, report);
    }
    await this.bookListed(
      blocks.flatMap((block) => block.transfers),
      tip,
      report,
    );
    const next = await this.cursor.past(cursor, blocks, tip);
    if (!next) return undefined;
    report.blocks += blocks.length;
    return next;
  }

  /**
   * An idle look (pay-per-use: no invoice open, nothing maturing): the source's tip, and the
   * cursor moved there without scanning the blocks in between, since no invoice is owed them
   * (an invoice keeps its chain watched until WATCH_GRACE_SECONDS after it expires). One tip
   * request and, when the chain moved, one cursor write: no block, no address lookup.
   */
  async idleLook(): Promise<{ tip: BlockRef; cursor: BlockRef }> {
    const tip = await this.source.tip();
    const cursor = await this.cursor.read(tip);
    if (!cursor || cursor.height >= tip.height) return { tip, cursor: cursor ?? tip };
    // Refused: another run moved it first (it owns the chain now); either way nothing is owed.
    return { tip, cursor: (await this.cursor.toTip(cursor, tip)) ? tip : cursor };
  }

  /**
   * Books the transfers that pay an invoice (booking.ts), all of one invoice's together: those
   * paid to an open address (the chain's list) are looked up in the address index. A
   * payment short of its confirmations is saved as maturing first, so a crash between the two
   * leaves nothing unwatched (the next run books it again, idempotently).
   */
  private async book(transfers: readonly Transfer[], tip: BlockRef, report: StepReport): Promise<void> {
    await this.bookListed(await this.open.listed(transfers, report), tip, report);
  }

  /**
   * Books transfers already listed (open-addresses.ts) through booking.ts, at
   * `tip - height + 1` confirmations (none unconfirmed). A payment short of its confirmations
   * (to an invoice, or a refund) is kept as maturing before it is reported as seen; one this
   * container booked unconfirmed is not reported again until it has them (its invoice has it;
   * the order is PENDING).
   */
  private async bookListed(listed: readonly Transfer[], tip: BlockRef, report: StepReport): Promise<void> {
    if (listed.length === 0) return;
    const short = (transfer: Transfer, of: ShortOf) => this.maturing.keep(transfer, of);
    const confirmations = (transfer: Transfer) => (transfer.block ? Math.max(0, tip.height - transfer.block.height + 1) : 0);
    const booked = await this.booking.book(listed, { now: this.clock(), confirmations, short });
    report.lookups += booked.lookups;
    report.refunds += booked.refunds;
    report.booked += booked.invoices.length;
    for (const transfer of booked.invoices) if (!transfer.block) this.memory.bookUnconfirmed(transfer.key);
    reportUnmatched(this.chain, booked, report);
  }

  /**
   * Undoes a reorganisation: the fork found (reorganisations.ts), the maturing payments above
   * it taken back and the cursor moved there. Undefined when another run moved the cursor
   * meanwhile.
   */
  private async undoReorganisation(cursor: ChainCursor, tip: BlockRef, report: StepReport): Promise<ChainCursor | undefined> {
    report.reorganisations += 1;
    const fork = await findFork(this.source, cursor, tip);
    const now = this.clock();
    await this.maturing.takeBackAbove(fork.height, now, report);
    return this.cursor.back(cursor, fork, tip, now);
  }
}
