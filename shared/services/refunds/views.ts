/**
 * Reading refunds as the merchant sees them: one of the merchant's refunds (another's is
 * missing), the view the API and the portal answer (schemas/refunds.ts `Refund`), an order's
 * refunds (GET /v1/orders/:id and its /refunds), and the notice a callback carries.
 */
import { refundUrl } from '#shared/core/server-key';
import { RefundNotFoundError, UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Found } from '#shared/domain/order';
import { type Refund, type RefundNotice, refundNotice } from '#shared/domain/refund';
import { networkName } from '#shared/domain/networks';
import { refundPaymentUri } from '#shared/payments/refund-uri';
import { findRefund, listRefunds } from '#shared/store/refunds';
import { findOrderWithInvoice } from '#shared/store/orders';

/** A refund as the merchant is told of it (its link while the buyer may use it). */
export async function noticeOf(refund: Refund): Promise<RefundNotice> {
  return refundNotice(refund, refund.status === 'AWAITING_ADDRESS' ? await refundUrl(refund) : undefined);
}

/** One of the merchant's refunds; another merchant's (or none) is answered as missing. */
export async function merchantRefund(owner: MerchantProfile, orderId: unknown, refundId: unknown): Promise<Refund> {
  if (!isId(orderId) || !isId(refundId)) throw new RefundNotFoundError();
  const refund = await findRefund(orderId, refundId);
  if (!refund || refund.user_id !== owner.user_id) throw new RefundNotFoundError();
  return refund;
}

/** A refund as the merchant sees it (schemas/refunds.ts `Refund`): the link while usable, the wallet URI once addressed. */
export async function refundView(refund: Refund) {
  const notice = await noticeOf(refund);
  return {
    refund_id: refund.refund_id,
    order_id: refund.order_id,
    status: refund.status,
    amount: refund.amount,
    currency: refund.currency,
    network: networkName(refund.currency) ?? null,
    basis: refund.basis,
    rate: refund.rate ?? null,
    reason: refund.reason ?? null,
    address: notice.address,
    memo: notice.memo,
    payment_uri: refund.status === 'AWAITING_PAYMENT' ? (refundPaymentUri(refund) ?? null) : null,
    txid: notice.txid,
    refund_url: notice.refund_url,
    short_payments: (refund.short_payments ?? []).map(({ txid, amount, seen_at }) => ({ txid, amount, seen_at })),
    created_at: refund.created_at,
    address_set_at: refund.address_set_at ?? null,
    sent_at: notice.sent_at,
  };
}

export type RefundView = Awaited<ReturnType<typeof refundView>>;

/** An order's refunds as the merchant sees them, oldest first (an order without any: no read). */
export async function orderRefunds(found: Found): Promise<RefundView[]> {
  if (!found.order.refunds) return [];
  return Promise.all((await listRefunds(found.order.order_id)).map(refundView));
}

/** The merchant's order's refunds (GET /v1/orders/:id/refunds); another merchant's order is missing. */
export async function listOrderRefunds(owner: MerchantProfile, orderId: unknown): Promise<RefundView[]> {
  const found = isId(orderId) ? await findOrderWithInvoice(orderId) : undefined;
  if (!found || found.order.user_id !== owner.user_id) throw new UnknownOrderError();
  return orderRefunds(found);
}
