/**
 * Payments reported to orders: by a chain watcher, a Lightning node, a gateway or the sandbox
 * (recordPayment(s), one entry point), a payment whose block left the chain (retractPayment),
 * and a refund's completion (completeRefund).
 */
import { apiConfig } from '#shared/core/config';
import { currency } from '#shared/domain/currencies';
import { InvoiceNotExistError, PaymentNotBookableError, RefundNotPendingError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { add, compare, type Decimal, decimalPlaces, formatDecimal, multiply, parseDecimal, ZERO } from '#shared/domain/money';
import { MAX_SANDBOX_PAYMENT_FACTOR } from '#shared/domain/limits';
import { countingPayments, type Found, type Invoice, moveTo, type Payment, paymentKey, touch } from '#shared/domain/order';
import type { OrderStatus } from '#shared/domain/statuses';
import { confirmationsRequired } from '#shared/chains/confirmations';
import { evaluatePayment } from '#shared/domain/payment-evaluation';
import { changeOrder, checkedId, unknownOrder } from '#shared/services/order-changes';
import { findInvoice } from '#shared/store/invoices';

/** A payment as a chain watcher, Lightning node or gateway reports it. */
export interface PaymentReport {
  orderId: string;
  /**
   * The invoice the payment was sent to (the address index's answer); absent: the order's
   * current invoice. A payment to an invoice the order no longer uses (replaced by a later
   * checkout) is recorded on that invoice and makes the order UNRESOLVED once confirmed.
   */
  invoiceId?: string;
  /** Exact amount in the invoice's pay currency; absent: the invoice's full amount (a sandbox payment). */
  amount?: Decimal;
  /** Absent: the confirmations the invoice's currency requires (a sandbox payment). */
  confirmations?: number;
  txid: string;
  /** A simulated payment (sandbox): its amount is bounded by the invoice's (MAX_SANDBOX_PAYMENT_FACTOR). */
  simulated?: boolean;
  /** The chain's own key of the payment (txid:vout); absent: the txid. Reports are idempotent by it. */
  key?: string;
  /** The block the payment is in; absent while unconfirmed (or off chain). */
  block?: { height: number; hash: string };
  /** Restrict to this merchant's orders (the sandbox endpoint). */
  owner?: MerchantProfile;
  /** The currency the reporter was paid in: an invoice in another one is not paid by it (nothing recorded). */
  currency?: string;
  /** When the payment happened, if the reporter knows (a gateway's payment time); default `now`. */
  seenAt?: Date;
  now: Date;
}

const sum = (payments: readonly Payment[]): Decimal => payments.reduce((total, payment) => add(total, parseDecimal(payment.amount)), ZERO);

/** Statuses a payment no longer moves: what was decided stands (the merchant sees every payment). */
const DECIDED: readonly OrderStatus[] = ['PAID', 'UNRESOLVED', 'RESOLVED', 'REFUND_PENDING', 'REFUNDED'];

/** Statuses a payment to a replaced invoice makes UNRESOLVED (once confirmed, within the late window). */
const OPEN_TO_PAYMENT: readonly OrderStatus[] = ['NEW', 'PENDING', 'EXPIRED'];

/** The invoice a report or retraction is about: the current one, or a replaced one read from the table. */
async function targetInvoice(found: Found, invoiceId: string | undefined): Promise<{ invoice: Invoice | undefined; replaced: boolean }> {
  if (invoiceId === undefined || invoiceId === found.invoice?.invoice_id) return { invoice: found.invoice, replaced: false };
  return { invoice: await findInvoice(found.order.order_id, invoiceId), replaced: true };
}

/** Where the current invoice's counting payments move the order ({@link evaluatePayment}). */
function evaluate(found: Found, payments: readonly Payment[], invoice: Invoice) {
  const counting = countingPayments(payments);
  if (counting.length === 0) return undefined;
  const required = confirmationsRequired(invoice.pay_currency);
  return evaluatePayment({
    status: found.order.status,
    payAmount: parseDecimal(invoice.pay_amount),
    expiredAt: new Date(invoice.expired_at),
    totalPaid: sum(counting),
    confirmedPaid: sum(counting.filter((p) => p.confirmations >= required)),
    tolerancePercent: parseDecimal(found.order.tolerance_percent ?? '0'),
    seenAt: new Date(counting.map((p) => p.seen_at).sort()[0]!),
    lateWindowMs: apiConfig().latePaymentWindowSeconds * 1000,
  });
}

/**
 * The one entry point for payments: records a payment against the invoice it was sent to
 * (the current one by default) and moves the order as {@link evaluatePayment} says.
 * Idempotent by the payment's key: the same report twice is one change; the same key with
 * more confirmations (or in another block after a reorganisation) updates it. A report the
 * invoice can never take (an amount finer than its currency, a simulated one over its bound)
 * is a PaymentNotBookableError.
 */
export function recordPayment(report: PaymentReport): Promise<Found> {
  return recordPayments([report]);
}

/**
 * Several payments to one invoice seen at once (outputs of one block, payments maturing
 * together), recorded and judged together: the order is decided on all of them, never on the
 * first one alone. All reports name the same order and invoice.
 */
export function recordPayments(reports: readonly PaymentReport[]): Promise<Found> {
  const [first] = reports;
  if (!first) throw new RangeError('recordPayments needs a report');
  if (reports.some((r) => r.orderId !== first.orderId || r.invoiceId !== first.invoiceId)) {
    throw new RangeError('recordPayments takes the payments of one invoice');
  }
  return changeOrder(checkedId(first.orderId), first.owner, unknownOrder, async (found) => {
    const { invoice, replaced } = await targetInvoice(found, first.invoiceId);
    if (!invoice) throw new InvoiceNotExistError();
    // Paid in another currency than the invoice's (a gateway's trade for another invoice): not this payment.
    if (first.currency !== undefined && invoice.pay_currency !== first.currency) return undefined;
    const required = confirmationsRequired(invoice.pay_currency);
    let payments = invoice.payments ?? [];
    let changed = false;
    let confirmedNow = false;
    let earliest: string | undefined;
    for (const report of reports) {
      const amount = report.amount ?? parseDecimal(invoice.pay_amount);
      if (report.simulated && compare(amount, multiply(parseDecimal(invoice.pay_amount), { units: BigInt(MAX_SANDBOX_PAYMENT_FACTOR), scale: 0 })) > 0) {
        throw new PaymentNotBookableError(`amount must be at most ${MAX_SANDBOX_PAYMENT_FACTOR} times the invoice's pay_amount`);
      }
      if (decimalPlaces(amount) > currency(invoice.pay_currency).precision) {
        throw new PaymentNotBookableError(`amount has more decimals than ${invoice.pay_currency} has`);
      }
      const confirmations = report.confirmations ?? required;
      const key = report.key ?? report.txid;
      const previous = payments.find((payment) => paymentKey(payment) === key);
      const sameBlock = report.block === undefined || report.block.hash === previous?.block_hash;
      if (previous && previous.left_chain_at === undefined && previous.confirmations >= confirmations && sameBlock) continue;
      const payment: Payment = {
        txid: report.txid,
        ...(report.key !== undefined ? { key } : {}),
        amount: formatDecimal(amount),
        confirmations,
        seen_at: previous?.seen_at ?? (report.seenAt ?? report.now).toISOString(),
        ...(report.block ? { block_height: report.block.height, block_hash: report.block.hash } : {}),
      };
      payments = [...payments.filter((p) => paymentKey(p) !== key), payment];
      changed = true;
      if (confirmations >= required) confirmedNow = true;
      if (earliest === undefined || payment.seen_at < earliest) earliest = payment.seen_at;
    }
    if (!changed) return undefined;
    const now = first.now;
    const recorded = { ...invoice, payments };
    if (replaced) {
      const inWindow = Date.parse(earliest!) <= Date.parse(invoice.expired_at) + apiConfig().latePaymentWindowSeconds * 1000;
      if (OPEN_TO_PAYMENT.includes(found.order.status) && confirmedNow && inWindow) {
        return { ...moveTo(found, 'UNRESOLVED', now, { reason: 'PAID_TO_REPLACED_INVOICE' }), otherInvoice: recorded };
      }
      return { order: touch(found.order, now), otherInvoice: recorded };
    }
    const outcome = evaluate(found, recorded.payments, invoice);
    if (!outcome) return { order: touch(found.order, now), invoice: recorded };
    return moveTo(found, outcome.to, now, { reason: outcome.reason, invoice: recorded });
  });
}

/** What {@link retractPayment} did. */
export type Retraction =
  /** The payment no longer counts; the order was re-evaluated. */
  | 'taken-back'
  /** The order was already decided (PAID, UNRESOLVED, ...) with it: kept, for an operator to look at. */
  | 'kept'
  /** No such payment (never booked, or taken back already). */
  | 'absent';

/**
 * A payment's block left the chain (a reorganisation) before the payment was final: it stops
 * counting (it stays on the invoice, marked `left_chain_at`, so if it is seen again it keeps
 * its first `seen_at`). A PENDING order with no other payment goes back to NEW (and the expiry
 * sweep expires it if its invoice's time has passed); with other payments it is evaluated
 * again on them. A decided order (PAID, UNRESOLVED, ...) is not moved: its payment is kept.
 */
export async function retractPayment(report: { orderId: string; invoiceId?: string; key: string; now: Date }): Promise<Retraction> {
  let result: Retraction = 'absent';
  await changeOrder(checkedId(report.orderId), undefined, unknownOrder, async (found) => {
    const { invoice, replaced } = await targetInvoice(found, report.invoiceId);
    const previous = invoice?.payments?.find((payment) => paymentKey(payment) === report.key);
    if (!invoice || !previous || previous.left_chain_at !== undefined) {
      result = 'absent';
      return undefined;
    }
    if (DECIDED.includes(found.order.status)) {
      result = 'kept';
      return undefined;
    }
    result = 'taken-back';
    const { block_height: _height, block_hash: _hash, ...rest } = previous;
    const gone: Payment = { ...rest, confirmations: 0, left_chain_at: report.now.toISOString() };
    const recorded = { ...invoice, payments: invoice.payments!.map((p) => (paymentKey(p) === report.key ? gone : p)) };
    if (replaced) return { order: touch(found.order, report.now), otherInvoice: recorded };
    if (found.order.status === 'PENDING') {
      if (countingPayments(recorded.payments).length === 0) return moveTo(found, 'NEW', report.now, { invoice: recorded });
      const outcome = evaluate(found, recorded.payments, invoice);
      if (outcome) return moveTo(found, outcome.to, report.now, { reason: outcome.reason, invoice: recorded });
    }
    return { order: touch(found.order, report.now), invoice: recorded };
  });
  return result;
}

/** REFUND_PENDING -> REFUNDED, reported by whatever sent the refund (the same entry point family). */
export function completeRefund(report: { orderId: string; txid: string; owner?: MerchantProfile; now: Date }): Promise<Found> {
  return changeOrder(checkedId(report.orderId), report.owner, unknownOrder, (found) => {
    if (found.order.status === 'REFUNDED' && found.invoice?.refund_txid === report.txid) return undefined;
    if (found.order.status !== 'REFUND_PENDING') throw new RefundNotPendingError();
    const invoice = found.invoice && { ...found.invoice, refund_txid: report.txid };
    return moveTo(found, 'REFUNDED', report.now, { invoice });
  });
}
