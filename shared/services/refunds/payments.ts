/**
 * A refund's payment as the chain shows it, and the contract with the watchers
 * (docs/merchant-guide.md, "How a refund's payment is seen"): what they report, the check of a
 * transaction id a merchant reports, and the booking of a report. A final transfer of the
 * amount sends the refund, and the order moves REFUND_PENDING -> REFUNDED with its callback in
 * the same conditional write (changeOrder) that sends its last refund.
 */
import { countMetric } from '#shared/core/metrics';
import type { AuditActor } from '#shared/domain/audit';
import { RefundNotFoundError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import { formatDecimal, isPositive, parseDecimal } from '#shared/domain/money';
import { moveTo, touch } from '#shared/domain/order';
import { type Refund, refundNotice, sentRefund, settles, withShortPayment } from '#shared/domain/refund';
import { changeOrder } from '#shared/services/order-changes';
import { auditEntry } from '#shared/services/refunds/audit';
import { findRefund, listRefunds } from '#shared/store/refunds';

export interface RefundPaymentReport {
  userId: number;
  orderId: string;
  refundId: string;
  /** The chain's own key of the transfer (txid:vout, txhash:logIndex, ...): idempotent by it. */
  key: string;
  txid: string;
  /** What this transfer paid to the refund address, exact decimal in the refund's currency. */
  amount: string;
  /** At the currency's confirmations (final). Not final: ignored, never SENT. */
  final: boolean;
  now: Date;
  /** Who reported it (the audit entry's actor); default: the chain watcher. */
  actor?: AuditActor;
}

/** Checks a transaction id a merchant reports for a refund, on its chain. */
export type RefundTxCheck = (refund: Refund, txid: string) => Promise<{ found: false; reason: string } | { found: true; key: string; amount: string; final: boolean }>;

/** The watcher's actor in the audit log. */
const WATCHER: AuditActor = { who: 'watcher', from: 'chain' };

/**
 * A transfer to a refund's address: final and >= amount on an AWAITING_PAYMENT refund -> SENT
 * (and the order REFUNDED with its callback when every refund of it is SENT); final and less ->
 * recorded as a short payment (shown, does not complete it); anything else -> IGNORED.
 * Conditional writes; idempotent by `key`.
 */
export async function recordRefundPayment(report: RefundPaymentReport): Promise<'SENT' | 'SHORT' | 'IGNORED'> {
  if (!isId(report.orderId) || !isId(report.refundId)) return 'IGNORED';
  let outcome: 'SENT' | 'SHORT' | 'IGNORED' = 'IGNORED';
  const paid = parseDecimal(report.amount);
  await changeOrder(
    report.orderId,
    undefined,
    () => new RefundNotFoundError(),
    async (found) => {
      outcome = 'IGNORED';
      if (found.order.user_id !== report.userId) return undefined;
      const refund = await findRefund(report.orderId, report.refundId);
      if (!refund || refund.user_id !== report.userId) return undefined;
      if (refund.status === 'SENT') {
        if (refund.sent_key === report.key) outcome = 'SENT';
        return undefined;
      }
      if (refund.status !== 'AWAITING_PAYMENT' || !report.final || !isPositive(paid)) return undefined;
      const actor = report.actor ?? WATCHER;
      if (!settles(refund, paid)) {
        outcome = 'SHORT';
        if (refund.short_payments?.some((seen) => seen.key === report.key)) return undefined;
        const short = withShortPayment(refund, { key: report.key, txid: report.txid, amount: formatDecimal(paid), seen_at: report.now.toISOString() });
        return { order: touch(found.order, report.now), refunds: [short] };
      }
      outcome = 'SENT';
      const sent = sentRefund(refund, { key: report.key, txid: report.txid }, report.now);
      const summary = found.order.refunds!;
      const open = Math.max(0, summary.open - 1);
      const audit = auditEntry('refund.sent', actor, sent, report.now, { txid: report.txid, address: sent.address ?? null });
      if (open > 0 || found.order.status !== 'REFUND_PENDING') {
        return { order: { ...touch(found.order, report.now), refunds: { ...summary, open } }, refunds: [sent], audit };
      }
      const others = (await listRefunds(report.orderId)).filter((other) => other.refund_id !== sent.refund_id);
      const moved = moveTo(found, 'REFUNDED', report.now);
      const all = [...others, sent].sort((a, b) => a.refund_id.localeCompare(b.refund_id));
      return {
        ...moved,
        order: { ...moved.order, refunds: { ...summary, open } },
        refunds: [sent],
        callbackRefunds: all.map((one) => refundNotice(one, undefined)),
        audit,
      };
    },
  );
  const result = outcome as 'SENT' | 'SHORT' | 'IGNORED';
  if (result === 'SENT') countMetric('RefundsSent');
  return result;
}
