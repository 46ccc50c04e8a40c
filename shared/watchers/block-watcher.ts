/**
 * The block watcher: follows any {@link BlockSource} (Esplora, Bitcoin Core RPC, Ethereum
 * JSON-RPC) block by block, and hands what it finds to booking.ts, the one booking path of
 * every watcher (invoices, refunds, what cannot be booked). Its own part is the chain: the
 * cursor, the confirmations, the maturing payments and reorganisations.
 *
 * Each {@link BlockWatcher.step} reads the chain's cursor (height + hash, in the table), scans
 * forward block by block (at most `maxBlocksPerStep`), books the transfers that pay an invoice
 * (idempotent by the chain's own key, txid:vout), and moves the cursor with a conditional write after each block. So a
 * transaction seen twice (two runs, a restart in the middle of a block) is booked once, and
 * two overlapping runs never both advance: the one whose write is refused stops.
 *
 * Confirmations are `tip - height + 1`. A payment booked short of its currency's
 * confirmations is kept as a maturing payment and reported again once it has them. A block
 * whose `previousHash` is not the cursor's hash (or a tip that replaced the cursor's block)
 * is a reorganisation: the watcher walks back through the hashes it remembers to the newest
 * block still on the chain, takes back the maturing payments above it (booking.ts retract:
 * a PENDING order with nothing else goes back to NEW) and scans the new
 * branch from there; a transaction mined again in it is booked again under the same key.
 * Unconfirmed transactions (the mempool) make orders PENDING early.
 *
 * A source that reads ranges ({@link BlockSource.blocks}: the EVM networks) is asked for the
 * blocks after the cursor up to the tip at once; each block must follow the one before as
 * above, their transfers are booked together and the cursor moves past them in one write.
 *
 * Only transfers to the chain's open addresses (store/watch-list.ts: every invoice address
 * from checkout to the end of its late window) are looked up in the address index; the list is
 * read after the transfers were fetched, so a checkout that came just before them is on it.
 * A payment to an invoice that can never take it (its order is gone, or it refuses the amount)
 * is kept as an unmatched payment in the chain's partition, as an indexed source's (booking.ts),
 * and logged once for an operator.
 */
import { formatDecimal, parseDecimal } from '#shared/domain/money';
import { confirmationsRequired } from '#shared/chains/confirmations';
import { SourceError } from '#shared/core/source-error';
import { logger } from '#shared/core/logger';
import type { BlockRef, BlockSource, Transfer } from '#shared/watchers/sources/port';
import { type ChainCursor, readCursor, sameBlockHash, writeCursor } from '#shared/store/chain-cursors';
import { deleteMaturingPayment, listMaturingPayments, type MaturingPayment, saveMaturingPayment } from '#shared/store/maturing-payments';
import { BLOCK_CHAIN_ITEMS, type ListedAddress, WatchList } from '#shared/store/watch-list';
import { openListConfig } from '#shared/core/config';
import { type Booked, Booking, groupInto, type InvoiceTransfers, type Paid, type ShortOf } from '#shared/watchers/booking';

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

/** The chain reorganised below every hash the cursor remembers: nothing is booked until an operator looks. */
export class ReorganisationTooDeepError extends Error {
  constructor(chain: string, depth: number) {
    super(`${chain}: the chain reorganised deeper than the ${depth} blocks the cursor remembers`);
    this.name = 'ReorganisationTooDeepError';
  }
}

/** A source that answers a block at another height than asked is not trusted with a booking. */
function checkBlockHeight(source: BlockSource, block: BlockRef, height: number): void {
  if (block.height !== height) throw new SourceError(source.chain, `asked for block ${height}, got ${block.height}`);
}

/** One block chain's watcher: steps through its blocks from the cursor (see the module's comment); named for what it reads, beside the indexed watcher of indexed-watcher.ts. */
export class BlockWatcher {
  private readonly options: BlockWatcherOptions;
  private readonly clock: () => Date;
  /** Mempool txids already examined (kept in the process: a warm Lambda or the local runtime). */
  private readonly known = new Set<string>();
  /**
   * Payment keys this container booked unconfirmed (from the mempool): when one is then mined
   * short of its confirmations, its invoice already has it and the order is PENDING, so only
   * its maturing payment is written (the block is there, for the expiry sweep and a
   * reorganisation); the invoice records the block once the payment is final.
   */
  private readonly bookedUnconfirmed = new Set<string>();
  /** The invoice addresses this chain's payments can go to (read whole once, then what was added). */
  private readonly open: WatchList<ListedAddress>;
  /** Books what the chain showed (booking.ts); its unmatched payments go to the chain's partition. */
  private readonly booking: Booking;

  constructor(
    readonly source: BlockSource,
    options: Partial<BlockWatcherOptions> = {},
  ) {
    this.options = { ...DEFAULT_WATCHER_OPTIONS, ...options };
    this.clock = options.clock ?? (() => new Date());
    this.name = options.cursorName ?? source.chain;
    this.open = new WatchList(BLOCK_CHAIN_ITEMS, source.chain, { fillMs: openListConfig().fillMs });
    this.booking = new Booking({ chain: this.name });
  }

  /** The cursor's (and the maturing payments') name in the table. */
  private readonly name: string;

  get chain(): string {
    return this.source.chain;
  }

  /** One bounded round: the mempool, then catch up (at most maxBlocksPerStep blocks), then maturing payments. */
  async step(): Promise<StepReport> {
    const report: StepReport = {
      chain: this.chain,
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
    const tip = await this.source.tip();
    report.tip = tip;
    let cursor = await this.cursorAt(tip);
    if (!cursor) return this.finish(report, tip, tip, true);

    // The cursor's block replaced (same height, other hash) or the chain got shorter.
    if (tip.height < cursor.height || (tip.height === cursor.height && tip.hash !== cursor.hash)) {
      const undone = await this.undoReorganisation(cursor, tip, report);
      if (!undone) return this.finish(report, tip, cursor, true);
      cursor = undone;
    }
    // Unconfirmed payments first: an order paid in parts is judged with everything seen.
    if (this.options.mempool) {
      const transfers = await this.source.mempool(this.known);
      this.remember(transfers);
      report.transfers += transfers.length;
      await this.book(transfers.map(({ block: _unconfirmed, ...transfer }) => transfer), tip, report);
    }
    const budget = this.source.blocks ? (this.options.maxRangeBlocksPerStep ?? 200) : this.options.maxBlocksPerStep;
    while (cursor.height < tip.height && report.blocks < budget) {
      if (this.source.blocks) {
        const next = await this.scanRange(cursor, Math.min(tip.height, cursor.height + budget - report.blocks), tip, report);
        if (!next) return this.finish(report, tip, cursor, true);
        cursor = next;
        continue;
      }
      const height = cursor.height + 1;
      const block = await this.source.block(height);
      checkBlockHeight(this.source, block, height);
      if (block.previousHash !== cursor.hash) {
        // Bounded: each undo moves the cursor down; the loop's block budget bounds the rest.
        report.blocks += 1;
        const undone = await this.undoReorganisation(cursor, tip, report);
        if (!undone) return this.finish(report, tip, cursor, true);
        cursor = undone;
        continue;
      }
      report.transfers += block.transfers.length;
      await this.book(block.transfers, tip, report);
      const next = this.advance(cursor, block, tip);
      if (!(await writeCursor(next))) return this.finish(report, tip, cursor, true);
      cursor = next;
      report.blocks += 1;
    }
    await this.mature(cursor, tip, report);
    return this.finish(report, tip, cursor, false);
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
      return this.listed(candidates, report);
    };
    const blocks = await this.source.blocks!(cursor.height + 1, last, listed);
    if (blocks.length === 0) throw new SourceError(this.source.chain, `no blocks after ${cursor.height}`);
    if (blocks[0]!.previousHash !== cursor.hash) {
      checkBlockHeight(this.source, blocks[0]!, cursor.height + 1);
      report.blocks += 1;
      return this.undoReorganisation(cursor, tip, report);
    }
    let previous: BlockRef = cursor;
    const recent = [...cursor.recent];
    for (const block of blocks) {
      checkBlockHeight(this.source, block, previous.height + 1);
      if (block.previousHash !== previous.hash) throw new SourceError(this.source.chain, `block ${block.height} does not follow block ${previous.height}`);
      if (block.height > last) throw new SourceError(this.source.chain, `block ${block.height} is above ${last}, the last asked for`);
      recent.push({ height: block.height, hash: block.hash });
      previous = block;
    }
    await this.bookListed(blocks.flatMap((block) => block.transfers), tip, report);
    const next: ChainCursor = {
      ...cursor,
      height: previous.height,
      hash: previous.hash,
      recent: recent.slice(-(this.options.reorgDepth + 1)),
      tip_height: tip.height,
      updated_at: this.clock().toISOString(),
      version: cursor.version + 1,
    };
    if (!(await writeCursor(next))) return undefined;
    report.blocks += blocks.length;
    return next;
  }

  private finish(report: StepReport, tip: BlockRef, cursor: BlockRef, yielded: boolean): StepReport {
    report.cursor = { height: cursor.height, hash: cursor.hash };
    report.behind = Math.max(0, tip.height - cursor.height);
    report.yielded = yielded;
    return report;
  }

  /**
   * An idle look (pay-per-use: no invoice open, nothing maturing): the source's tip, and the
   * cursor moved there without scanning the blocks in between, since no invoice is owed them
   * (an invoice keeps its chain watched until WATCH_GRACE_SECONDS after it expires). One tip
   * request and, when the chain moved, one cursor write: no block, no address lookup.
   */
  async idleLook(): Promise<{ tip: BlockRef; cursor: BlockRef }> {
    const tip = await this.source.tip();
    const cursor = await this.cursorAt(tip);
    if (!cursor || cursor.height >= tip.height) return { tip, cursor: cursor ?? tip };
    const next: ChainCursor = {
      ...cursor,
      height: tip.height,
      hash: tip.hash,
      recent: [{ height: tip.height, hash: tip.hash }],
      tip_height: tip.height,
      updated_at: this.clock().toISOString(),
      version: cursor.version + 1,
    };
    // Refused: another run moved it first (it owns the chain now); either way nothing is owed.
    return { tip, cursor: (await writeCursor(next)) ? tip : cursor };
  }

  /** The stored cursor; the first run of a chain starts at the tip (no invoice is older than the watcher). */
  private async cursorAt(tip: BlockRef): Promise<ChainCursor | undefined> {
    const stored = await readCursor(this.name);
    if (stored) return stored;
    const first: ChainCursor = {
      chain: this.name,
      height: tip.height,
      hash: tip.hash,
      recent: [{ height: tip.height, hash: tip.hash }],
      tip_height: tip.height,
      updated_at: this.clock().toISOString(),
      version: 1,
    };
    return (await writeCursor(first)) ? first : undefined;
  }

  private advance(cursor: ChainCursor, block: BlockRef, tip: BlockRef): ChainCursor {
    const recent = [...cursor.recent, { height: block.height, hash: block.hash }].slice(-(this.options.reorgDepth + 1));
    return {
      ...cursor,
      height: block.height,
      hash: block.hash,
      recent,
      tip_height: tip.height,
      updated_at: this.clock().toISOString(),
      version: cursor.version + 1,
    };
  }

  /**
   * Books the transfers that pay an invoice (booking.ts), all of one invoice's together: those
   * paid to an open address (the chain's list) are looked up in the address index. A
   * payment short of its confirmations is saved as maturing first, so a crash between the two
   * leaves nothing unwatched (the next run books it again, idempotently).
   */
  private async book(transfers: readonly Transfer[], tip: BlockRef, report: StepReport): Promise<void> {
    await this.bookListed(await this.listed(transfers, report), tip, report);
  }

  /**
   * The transfers that may pay an open invoice. Called after the transfers were fetched: every
   * address shown before they existed is on the list (watch-list.ts), so only transfers to
   * listed addresses need a lookup, once the list is complete (invoices shown before it began
   * are past their window); every one until then.
   */
  private async listed(transfers: readonly Transfer[], report: StepReport): Promise<readonly Transfer[]> {
    if (transfers.length === 0) return [];
    report.openRead += (await this.open.refresh(this.clock())).items;
    const now = this.clock();
    return this.open.complete(now) ? transfers.filter((transfer) => this.open.has(transfer, now)) : transfers;
  }

  /**
   * Books transfers already {@link listed} (booking.ts), at `tip - height + 1` confirmations
   * (none unconfirmed). A payment short of its confirmations (to an invoice, or a refund) is
   * kept as maturing before it is reported as seen; one this container booked unconfirmed is
   * not reported again until it has them (its invoice has it; the order is PENDING).
   */
  private async bookListed(listed: readonly Transfer[], tip: BlockRef, report: StepReport): Promise<void> {
    if (listed.length === 0) return;
    const short = async (transfer: Transfer, of: ShortOf): Promise<boolean> => {
      if ('refund' in of) {
        await this.saveMaturing(transfer, transfer.block!, { order_id: of.refund.orderId, invoice_id: '', refund: of.refund, address: transfer.address });
        return true;
      }
      await this.saveMaturing(transfer, transfer.block!, { order_id: of.invoice.orderId, invoice_id: of.invoice.invoiceId, address: transfer.address });
      // Booked unconfirmed by this container: recording its block now would change nothing the order is decided on.
      return !this.bookedUnconfirmed.has(transfer.key);
    };
    const confirmations = (transfer: Transfer) => (transfer.block ? Math.max(0, tip.height - transfer.block.height + 1) : 0);
    const booked = await this.booking.book(listed, { now: this.clock(), confirmations, short });
    report.lookups += booked.lookups;
    report.refunds += booked.refunds;
    report.booked += booked.invoices.length;
    for (const transfer of booked.invoices) if (!transfer.block) this.rememberBooked(transfer.key);
    this.logUnmatched(booked, report);
  }

  /** The payments booking kept as unmatched (their invoice can never take them), logged the first time: an operator returns them. */
  private logUnmatched({ unmatched }: Booked, report: StepReport): void {
    for (const { transfer, reason, first } of unmatched) {
      if (!first) continue;
      report.unmatched += 1;
      logger.error('a payment its invoice cannot take: kept as unmatched, return it to its sender', {
        chain: this.chain,
        reason,
        key: transfer.key,
        txid: transfer.txid,
        address: transfer.address,
        amount: formatDecimal(transfer.amount),
      });
    }
  }

  /** Keeps a payment in a block short of its confirmations, for `owner` (an invoice, or a refund), until it has them. */
  private async saveMaturing(transfer: Transfer, block: BlockRef, owner: Pick<MaturingPayment, 'order_id' | 'invoice_id' | 'refund' | 'address'>): Promise<void> {
    await saveMaturingPayment({
      chain: this.name,
      height: block.height,
      block_hash: block.hash,
      key: transfer.key,
      txid: transfer.txid,
      currency: transfer.currency,
      amount: formatDecimal(transfer.amount),
      ...owner,
    });
  }

  /** Re-reports maturing payments that reached their confirmations (an invoice's together); drops those whose block is gone. */
  private async mature(cursor: ChainCursor, tip: BlockRef, report: StepReport): Promise<void> {
    const onChain = new Map(cursor.recent.map((ref) => [ref.height, ref.hash]));
    const now = this.clock();
    const ripe = new Map<string, InvoiceTransfers<{ paid: Paid; item: MaturingPayment }>>();
    for (const payment of await listMaturingPayments(this.name)) {
      if (payment.height > cursor.height) continue; // booked by a run whose cursor write lost: scanned again
      const hash = onChain.get(payment.height);
      if (hash !== undefined && !sameBlockHash(hash, payment.block_hash)) {
        await this.takeBack(payment, now, report);
        continue;
      }
      const confirmations = tip.height - payment.height + 1;
      if (confirmations < confirmationsRequired(payment.currency)) continue;
      const transfer: Transfer = {
        key: payment.key,
        txid: payment.txid,
        currency: payment.currency,
        address: payment.address ?? '',
        amount: parseDecimal(payment.amount),
        block: { height: payment.height, hash: payment.block_hash },
      };
      if (payment.refund) {
        // A refund's payment: booked final on the refund it was found paying.
        await this.booking.matured(payment.refund, transfer, now);
        await deleteMaturingPayment(payment);
        report.refunds += 1;
        continue;
      }
      groupInto(ripe, { orderId: payment.order_id, invoiceId: payment.invoice_id }, { paid: { transfer, confirmations }, item: payment });
    }
    for (const { target, payments } of ripe.values()) {
      // One its invoice can no longer take (its order is gone) is kept as unmatched.
      this.logUnmatched(await this.booking.invoice(target, payments.map(({ paid }) => paid), { now }), report);
      for (const { item } of payments) {
        await deleteMaturingPayment(item);
        this.bookedUnconfirmed.delete(item.key);
      }
      report.matured += payments.length;
    }
  }

  /**
   * Walks back from the cursor through the hashes it remembers to the newest block still on
   * the chain, takes back the maturing payments above it and moves the cursor there. Undefined
   * when another run moved the cursor meanwhile.
   */
  private async undoReorganisation(cursor: ChainCursor, tip: BlockRef, report: StepReport): Promise<ChainCursor | undefined> {
    report.reorganisations += 1;
    let fork: { height: number; hash: string } | undefined;
    for (const ref of [...cursor.recent].reverse()) {
      if (ref.height > tip.height) continue;
      const hash = await this.source.blockHash(ref.height);
      // The cursor remembers the end of each hash; the fork becomes the cursor, with the whole one.
      if (sameBlockHash(hash, ref.hash)) {
        fork = { height: ref.height, hash };
        break;
      }
    }
    if (!fork) throw new ReorganisationTooDeepError(this.chain, cursor.recent.length);
    const now = this.clock();
    for (const payment of await listMaturingPayments(this.name, fork.height)) await this.takeBack(payment, now, report);
    const next: ChainCursor = {
      ...cursor,
      height: fork.height,
      hash: fork.hash,
      recent: cursor.recent.filter((ref) => ref.height <= fork.height),
      tip_height: tip.height,
      updated_at: now.toISOString(),
      version: cursor.version + 1,
    };
    return (await writeCursor(next)) ? next : undefined;
  }

  private async takeBack(
    payment: MaturingPayment,
    now: Date,
    report: StepReport,
  ): Promise<void> {
    // A refund's payment short of its confirmations was only reported as seen: nothing to take back.
    const outcome = payment.refund ? undefined : await this.booking.retract({ orderId: payment.order_id, invoiceId: payment.invoice_id, key: payment.key, now });
    if (outcome === 'taken-back') report.retracted += 1;
    if (outcome === 'kept') report.kept.push({ key: payment.key, orderId: payment.order_id, height: payment.height });
    await deleteMaturingPayment(payment);
    // If it is back in the mempool, the next look there books it again; mined again, it is reported again.
    this.known.delete(payment.txid);
    this.bookedUnconfirmed.delete(payment.key);
  }

  /** Remembers a payment key booked unconfirmed (the oldest forgotten first, as the mempool txids). */
  private rememberBooked(key: string): void {
    this.bookedUnconfirmed.add(key);
    for (const oldest of this.bookedUnconfirmed) {
      if (this.bookedUnconfirmed.size <= (this.options.mempoolMemory ?? 200_000)) break;
      this.bookedUnconfirmed.delete(oldest);
    }
  }

  private remember(transfers: readonly Transfer[]): void {
    const limit = this.options.mempoolMemory ?? 200_000;
    for (const transfer of transfers) {
      this.known.delete(transfer.txid);
      this.known.add(transfer.txid);
    }
    // A Set iterates in insertion order: the oldest go first.
    for (const txid of this.known) {
      if (this.known.size <= limit) break;
      this.known.delete(txid);
    }
  }
}
