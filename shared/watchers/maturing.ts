/**
 * A block chain's maturing payments (in the table: store/maturing-payments.ts). A payment in a
 * block short of its currency's confirmations, to an invoice or to a buyer's refund address, is
 * kept until it has them (`tip - height + 1`) and then booked final (booking.ts): an invoice's
 * together, a refund's on the refund it was found paying. One whose block left the chain is
 * taken back (booking.ts retract: a PENDING order with nothing else goes back to NEW); a
 * refund's was only reported as seen, so it has nothing to take back.
 */
import { confirmationsRequired } from '#shared/chains/confirmations';
import { formatDecimal, parseDecimal } from '#shared/domain/money';
import { type ChainCursor, sameBlockHash } from '#shared/store/chain-cursors';
import { deleteMaturingPayment, listMaturingPayments, type MaturingPayment, saveMaturingPayment } from '#shared/store/maturing-payments';
import { reportUnmatched, type StepReport } from '#shared/watchers/block-report';
import { type Booking, groupInto, type InvoiceTransfers, type Paid, type ShortOf } from '#shared/watchers/booking';
import type { MempoolMemory } from '#shared/watchers/mempool-memory';
import type { BlockRef, Transfer } from '#shared/watchers/sources/port';

export class MaturingPayments {
  constructor(
    /** The chain, as its payments' logs name it. */
    private readonly chain: string,
    /** The maturing payments' (and the cursor's) name in the table. */
    private readonly name: string,
    private readonly booking: Booking,
    private readonly memory: MempoolMemory,
  ) {}

  /**
   * Keeps a payment short of its confirmations (booking's `short`), for its invoice or its
   * refund, before it is reported as seen. True when it is to be reported: not one this
   * container booked unconfirmed, whose invoice has it already.
   */
  async keep(transfer: Transfer, of: ShortOf): Promise<boolean> {
    if ('refund' in of) {
      await this.save(transfer, transfer.block!, { order_id: of.refund.orderId, invoice_id: '', refund: of.refund, address: transfer.address });
      return true;
    }
    await this.save(transfer, transfer.block!, { order_id: of.invoice.orderId, invoice_id: of.invoice.invoiceId, address: transfer.address });
    // Booked unconfirmed by this container: recording its block now would change nothing the order is decided on.
    return !this.memory.wasBookedUnconfirmed(transfer.key);
  }

  /** Re-reports maturing payments that reached their confirmations (an invoice's together); drops those whose block is gone. */
  async mature(cursor: ChainCursor, tip: BlockRef, now: Date, report: StepReport): Promise<void> {
    const onChain = new Map(cursor.recent.map((ref) => [ref.height, ref.hash]));
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
      reportUnmatched(
        this.chain,
        await this.booking.invoice(
          target,
          payments.map(({ paid }) => paid),
          { now },
        ),
        report,
      );
      for (const { item } of payments) {
        await deleteMaturingPayment(item);
        this.memory.matured(item.key);
      }
      report.matured += payments.length;
    }
  }

  /** Takes back every maturing payment above `height` (a reorganisation's fork). */
  async takeBackAbove(height: number, now: Date, report: StepReport): Promise<void> {
    for (const payment of await listMaturingPayments(this.name, height)) await this.takeBack(payment, now, report);
  }

  private async takeBack(payment: MaturingPayment, now: Date, report: StepReport): Promise<void> {
    // A refund's payment short of its confirmations was only reported as seen: nothing to take back.
    const outcome = payment.refund ? undefined : await this.booking.retract({ orderId: payment.order_id, invoiceId: payment.invoice_id, key: payment.key, now });
    if (outcome === 'taken-back') report.retracted += 1;
    if (outcome === 'kept') report.kept.push({ key: payment.key, orderId: payment.order_id, height: payment.height });
    await deleteMaturingPayment(payment);
    // If it is back in the mempool, the next look there books it again; mined again, it is reported again.
    this.memory.takenBack(payment.txid, payment.key);
  }

  /** Keeps a payment in a block short of its confirmations, for `owner` (an invoice, or a refund), until it has them. */
  private async save(transfer: Transfer, block: BlockRef, owner: Pick<MaturingPayment, 'order_id' | 'invoice_id' | 'refund' | 'address'>): Promise<void> {
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
}
