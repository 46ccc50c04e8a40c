/**
 * The merchant reports the transaction that paid a refund (sent some other way than the
 * watchers saw): checked on its chain, claimed for this refund (one transfer pays one refund),
 * then booked as a watcher's report would be (payments.ts).
 */
import type { AuditActor } from '#shared/domain/audit';
import { ParametersMissingError, RefundTransactionError, RefundTransactionNotFinalError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Refund } from '#shared/domain/refund';
import { recordRefundPayment, type RefundTxCheck } from '#shared/services/refunds/payments';
import { sandboxRefundCheck } from '#shared/services/refunds/sandbox';
import { merchantRefund } from '#shared/services/refunds/views';
import { findRefund } from '#shared/store/refunds';
import { claimRefundPayment, stopWatchingRefund } from '#shared/store/refund-watches';

/**
 * The merchant reports the transaction that paid a refund (sent some other way than the watchers
 * saw): checked on its chain (`liveCheck`; the sandbox's check for a sandbox merchant) before it
 * counts, then booked as a watcher's report would be.
 */
export async function reportRefundTransaction(
  owner: MerchantProfile,
  orderId: unknown,
  refundId: unknown,
  txid: string | undefined,
  liveCheck: RefundTxCheck,
  actor: AuditActor,
  now: Date,
): Promise<Refund> {
  const refund = await merchantRefund(owner, orderId, refundId);
  if (txid === undefined) throw new ParametersMissingError('txid');
  if (refund.status === 'SENT') {
    if (refund.txid === txid) return refund;
    throw new RefundTransactionError(`the refund is sent already (transaction ${refund.txid})`);
  }
  if (refund.status === 'AWAITING_ADDRESS') throw new RefundTransactionError('the buyer has not set the refund address yet: nothing can pay it');
  const check = owner.sandbox ? sandboxRefundCheck : liveCheck;
  const result = await check(refund, txid);
  if (!result.found) throw new RefundTransactionError(result.reason);
  if (!result.final) throw new RefundTransactionNotFinalError();
  // One transfer pays one refund: a transfer the watcher booked on another refund to the same address is not this one's.
  const claimed = await claimRefundPayment(refund.currency, result.key, {
    userId: owner.user_id,
    orderId: refund.order_id,
    refundId: refund.refund_id,
    amount: refund.amount,
    since: refund.address_set_at ?? refund.created_at,
  });
  if (claimed.refundId !== refund.refund_id) throw new RefundTransactionError('the transaction paid another refund');
  const outcome = await recordRefundPayment({
    userId: owner.user_id,
    orderId: refund.order_id,
    refundId: refund.refund_id,
    key: result.key,
    txid,
    amount: result.amount,
    final: true,
    now,
    actor,
  });
  if (outcome === 'SENT' && !owner.sandbox)
    await stopWatchingRefund({ currency: refund.currency, address: refund.address!, ...(refund.memo !== undefined ? { memo: refund.memo } : {}), refundId: refund.refund_id });
  const after = (await findRefund(refund.order_id, refund.refund_id))!;
  if (outcome === 'SHORT')
    throw new RefundTransactionError(`the transaction pays ${result.amount} ${refund.currency} to the refund address, less than the refund's ${refund.amount}: recorded as a short payment`);
  if (outcome === 'IGNORED') throw new RefundTransactionError('the transaction does not pay this refund');
  return after;
}
