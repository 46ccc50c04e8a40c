import { apiConfig } from '#shared/core/config';
import { currency, requiredConfirmations } from '#shared/domain/currencies';
import {
  CancelFailedError,
  ConcurrentUpdateError,
  InvalidParameterError,
  InvoiceNotExistError,
  RefundFailedError,
  RefundNotPendingError,
  ResolveFailedError,
  UnknownOrderError,
} from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { add, type Decimal, decimalPlaces, formatDecimal, parseDecimal, ZERO } from '#shared/domain/money';
import { checkedOutWith, type Found, moveTo, type Payment, touch } from '#shared/domain/order';
import { evaluatePayment } from '#shared/domain/payment-evaluation';
import { changeOrder } from '#shared/services/order-changes';
import { type DueCursor, findDueOrders, findInvoice } from '#shared/store/orders';

const unknown = () => new UnknownOrderError();

function checkedId(orderId: unknown): string {
  if (!isId(orderId)) throw new UnknownOrderError();
  return orderId;
}

/** NEW -> CANCELED, by the merchant (owner given) or the buyer on the payment page. */
export function cancelOrder(owner: MerchantProfile | undefined, orderId: unknown, now: Date): Promise<Found> {
  return changeOrder(checkedId(orderId), owner, unknown, (found) => {
    if (found.order.status !== 'NEW') throw new CancelFailedError();
    return moveTo(found, 'CANCELED', now);
  });
}

/**
 * PAID -> REFUND_PENDING; the refund's completion arrives through {@link completeRefund}.
 * `repeatable` says which REFUND_PENDING orders may be asked again (answered unchanged: a
 * gateway's refund is retried by asking again).
 */
export function refundOrder(
  owner: MerchantProfile,
  orderId: unknown,
  now: Date,
  options: { repeatable?: (found: Found) => boolean } = {},
): Promise<Found> {
  return changeOrder(checkedId(orderId), owner, unknown, (found) => {
    if (found.order.status === 'REFUND_PENDING' && options.repeatable?.(found)) return undefined;
    if (found.order.status !== 'PAID') throw new RefundFailedError();
    return moveTo(found, 'REFUND_PENDING', now);
  });
}

/** UNRESOLVED -> RESOLVED: the merchant has dealt with an off payment. */
export function resolveOrder(owner: MerchantProfile, orderId: unknown, now: Date): Promise<Found> {
  return changeOrder(checkedId(orderId), owner, unknown, (found) => {
    if (found.order.status !== 'UNRESOLVED') throw new ResolveFailedError();
    return moveTo(found, 'RESOLVED', now);
  });
}

/** A payment as a chain watcher, Lightning node or gateway reports it. */
export interface PaymentReport {
  orderId: string;
  /** Exact amount in the invoice's pay currency; absent: the invoice's full amount (a sandbox payment). */
  amount?: Decimal;
  /** Absent: the confirmations the invoice's currency requires (a sandbox payment). */
  confirmations?: number;
  txid: string;
  /** Restrict to this merchant's orders (the sandbox endpoint). */
  owner?: MerchantProfile;
  /**
   * The invoice paid, when the reporter knows it (a gateway's trade names it). Absent: the
   * current one. A replaced invoice of a NEW order becomes current again (the buyer paid it);
   * of an order past NEW nothing is recorded (the result's invoice is not that invoice).
   */
  invoiceId?: string;
  /** The currency the reporter was paid in: an invoice in another one is not paid by it (nothing recorded). */
  currency?: string;
  /** When the payment happened, if the reporter knows (a gateway's payment time); default `now`. */
  seenAt?: Date;
  now: Date;
}

const sum = (payments: readonly Payment[]): Decimal =>
  payments.reduce((total, payment) => add(total, parseDecimal(payment.amount)), ZERO);

/**
 * The one entry point for payments: records a payment against the order's current invoice
 * and moves the order as {@link evaluatePayment} says. Idempotent by transaction id: the same
 * report twice is one change; the same txid with more confirmations can complete it.
 */
export function recordPayment(report: PaymentReport): Promise<Found> {
  return changeOrder(checkedId(report.orderId), report.owner, unknown, async (read) => {
    const found = await withPaidInvoice(read, report.invoiceId);
    if (!found || (report.currency && found.invoice?.pay_currency !== report.currency)) return undefined;
    const invoice = found.invoice;
    if (!invoice) throw new InvoiceNotExistError();
    const amount = report.amount ?? parseDecimal(invoice.pay_amount);
    if (decimalPlaces(amount) > currency(invoice.pay_currency).precision) {
      throw new InvalidParameterError(`amount has more decimals than ${invoice.pay_currency} has`);
    }
    const confirmations = report.confirmations ?? requiredConfirmations(invoice.pay_currency);
    const payments = invoice.payments ?? [];
    const previous = payments.find((payment) => payment.txid === report.txid);
    if (previous && previous.confirmations >= confirmations) return undefined;
    const payment: Payment = {
      txid: report.txid,
      amount: formatDecimal(amount),
      confirmations,
      seen_at: previous?.seen_at ?? (report.seenAt ?? report.now).toISOString(),
    };
    const updated = [...payments.filter((p) => p.txid !== report.txid), payment];
    const recorded = { ...invoice, payments: updated };
    const outcome = evaluatePayment({
      status: found.order.status,
      payAmount: parseDecimal(invoice.pay_amount),
      expiredAt: new Date(invoice.expired_at),
      totalPaid: sum(updated),
      confirmedPaid: sum(updated.filter((p) => p.confirmations >= requiredConfirmations(invoice.pay_currency))),
      tolerancePercent: parseDecimal(found.order.tolerance_percent ?? '0'),
      seenAt: new Date(updated.map((p) => p.seen_at).sort()[0]!),
      lateWindowMs: apiConfig().latePaymentWindowSeconds * 1000,
    });
    if (!outcome) return { order: touch(found.order, report.now), invoice: recorded };
    return moveTo(found, outcome.to, report.now, { reason: outcome.reason, invoice: recorded });
  });
}

/**
 * The order as the payment should see it: unchanged when the paid invoice is the current one;
 * with the named (replaced) invoice current again while the order is NEW; undefined when the
 * order moved on with another invoice (that payment is left for the merchant).
 */
async function withPaidInvoice(found: Found, invoiceId: string | undefined): Promise<Found | undefined> {
  if (!invoiceId || found.invoice?.invoice_id === invoiceId) return found;
  const named = await findInvoice(found.order.order_id, invoiceId);
  if (!named) throw new InvoiceNotExistError();
  if (found.order.status !== 'NEW') return undefined;
  return { order: checkedOutWith(found.order, named), invoice: named };
}

/** REFUND_PENDING -> REFUNDED, reported by whatever sent the refund (the same entry point family). */
export function completeRefund(report: { orderId: string; txid: string; owner?: MerchantProfile; now: Date }): Promise<Found> {
  return changeOrder(checkedId(report.orderId), report.owner, unknown, (found) => {
    if (found.order.status === 'REFUNDED' && found.invoice?.refund_txid === report.txid) return undefined;
    if (found.order.status !== 'REFUND_PENDING') throw new RefundNotPendingError();
    const invoice = found.invoice && { ...found.invoice, refund_txid: report.txid };
    return moveTo(found, 'REFUNDED', report.now, { invoice });
  });
}

/** How the expiry sweep walks the due orders. */
export interface ExpirySweep {
  /** Due orders read per page (over all shards of the index). */
  pageSize: number;
  /** Orders expired at once. */
  concurrency: number;
  /** At most this many orders per run; the next run continues (it runs every minute). */
  maxOrders: number;
}

const EXPIRY_SWEEP: ExpirySweep = { pageSize: 100, concurrency: 8, maxOrders: 2_000 };

/** Asked before an order is expired; `keep` leaves it NEW for the next run. */
export type BeforeExpiry = (found: Found, now: Date) => Promise<'expire' | 'keep'>;

/** Expires one due order; true if this call expired it. */
async function expireOrder(orderId: string, now: Date, beforeExpiry?: BeforeExpiry): Promise<boolean> {
  const result = await changeOrder(orderId, undefined, unknown, async (found) => {
    const due = found.order.due_at;
    if (found.order.status !== 'NEW' || !due || Date.parse(due) > now.getTime()) return undefined;
    if (beforeExpiry && (await beforeExpiry(found, now)) === 'keep') return undefined;
    return moveTo(found, 'EXPIRED', now);
  });
  return result.order.status === 'EXPIRED' && result.order.updated_at === now.toISOString();
}

/**
 * Expires NEW orders whose due time has passed (their invoice's expired_at, or the window
 * for orders never checked out), from the sparse expiry index, page after page, several at a
 * time. Each expiry is conditional, so a payment or checkout that lands at the same moment
 * wins cleanly. One order that cannot be expired now (another write keeps winning, the store
 * fails) does not hold back the rest: the others are tried, then the first store error is
 * thrown (the next run tries it again). Returns the count.
 */
export async function expireDueOrders(
  now: Date,
  sweep: Partial<ExpirySweep> = {},
  /** Asked before each expiry (a gateway may know of a payment whose notification is late); `keep` skips it. */
  beforeExpiry?: BeforeExpiry,
): Promise<number> {
  const { pageSize, concurrency, maxOrders } = { ...EXPIRY_SWEEP, ...sweep };
  let expired = 0;
  let seen = 0;
  let failure: unknown;
  let cursor: DueCursor | undefined = [];
  while (cursor && seen < maxOrders) {
    const page = await findDueOrders(now, Math.min(pageSize, maxOrders - seen), cursor);
    seen += page.due.length;
    cursor = page.next;
    const queue = page.due.map(({ orderId }) => orderId);
    const worker = async () => {
      for (let orderId = queue.shift(); orderId !== undefined; orderId = queue.shift()) {
        try {
          if (await expireOrder(orderId, now, beforeExpiry)) expired += 1;
        } catch (error) {
          // Gone, or busy with other writes (it stays due): the next run sees it again.
          if (error instanceof UnknownOrderError || error instanceof ConcurrentUpdateError) continue;
          failure ??= error;
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  }
  if (failure !== undefined) throw failure;
  return expired;
}
