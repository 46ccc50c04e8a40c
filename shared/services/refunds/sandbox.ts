/**
 * The sandbox's refunds, which no chain pays: any reported transaction id pays a refund in full
 * (its check), and the sandbox's "refund sent" completes every refund of the order at once.
 */
import { RefundFailedError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { type Found, moveTo } from '#shared/domain/order';
import { refundNotice, sentRefund } from '#shared/domain/refund';
import { changeOrder, checkedId, unknownOrder } from '#shared/services/order-changes';
import { completeRefund } from '#shared/services/payment-reports';
import type { RefundTxCheck } from '#shared/services/refunds/payments';
import { listRefunds } from '#shared/store/refunds';

/** The sandbox's check: any transaction id pays the refund in full, final (sandbox merchants only). */
export const sandboxRefundCheck: RefundTxCheck = async (refund, txid) => ({ found: true, key: txid, amount: refund.amount, final: true });

/**
 * The sandbox's refund is sent (REFUND_PENDING -> REFUNDED): every refund not sent yet is SENT
 * under `txid`, with or without an address; an order refunded before refunds were items (or a
 * gateway's) completes as it did then.
 */
export async function completeSandboxRefunds(owner: MerchantProfile, orderId: string, txid: string, now: Date): Promise<Found> {
  let legacy = false;
  const found = await changeOrder(checkedId(orderId), owner, unknownOrder, async (current) => {
    if (!current.order.refunds) {
      legacy = true;
      return undefined;
    }
    const refunds = await listRefunds(current.order.order_id);
    if (current.order.status === 'REFUNDED' && refunds.every((refund) => refund.txid === txid)) return undefined;
    if (current.order.status !== 'REFUND_PENDING') throw new RefundFailedError('The order has no refund pending.');
    const sent = refunds.map((refund) => (refund.status === 'SENT' ? refund : sentRefund(refund, { key: `${txid}:${refund.refund_id}`, txid }, now)));
    const moved = moveTo(current, 'REFUNDED', now);
    return {
      ...moved,
      order: { ...moved.order, refunds: { ...current.order.refunds, open: 0 } },
      refunds: sent.filter((refund, index) => refund !== refunds[index]),
      callbackRefunds: sent.map((refund) => refundNotice(refund, undefined)),
    };
  });
  return legacy ? completeRefund({ orderId, txid, owner, now }) : found;
}
