/**
 * The portal's refunds (owners and developers act, viewers read): asking one with the amount
 * choices and today's rate shown, the refunds waiting (oldest first), reporting a refund's
 * transaction and issuing a new link. Each is the API's own use case; another merchant's order
 * or refund is answered as missing.
 */
import { RefundNotFoundError, UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import { PortalNotFoundError } from '#shared/domain/portal-errors';
import { actingMerchant } from '#shared/services/portal/actions';
import { getPortalOrder } from '#shared/services/portal/orders';
import type { PortalContext } from '#shared/services/portal/sessions';
import { portalActor } from '#shared/services/portal/team';
import { askRefund, type RefundChoices, refundQuote } from '#shared/services/refunds/ask';
import { refundView } from '#shared/services/refunds/views';
import { newRefundLink } from '#shared/services/refunds/buyer-link';
import type { RefundTxCheck } from '#shared/services/refunds/payments';
import { reportRefundTransaction } from '#shared/services/refunds/reported';
import { findOrderWithInvoice } from '#shared/store/orders';
import { listWaitingRefunds } from '#shared/store/refunds';

/** The portal's uniform 404 for the API's "no such order / refund" (another merchant's reads the same). */
async function asPortal<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UnknownOrderError || error instanceof RefundNotFoundError) throw new PortalNotFoundError();
    throw error;
  }
}

/** Asks a refund of the merchant's order; answers the order's page and the new refund. */
export async function portalAskRefund(context: PortalContext, orderId: unknown, choices: RefundChoices, clientIp: string | undefined, now: Date) {
  if (!isId(orderId)) throw new PortalNotFoundError();
  const merchant = await actingMerchant(context);
  const asked = await asPortal(() => askRefund(merchant, orderId, choices, portalActor(context, clientIp), now));
  return { ...(await getPortalOrder(context, orderId)), refund: asked.refund ? await refundView(asked.refund) : null };
}

/** The merchant reports the transaction that paid a refund (checked on chain first); answers the order's page. */
export async function portalReportRefundTxid(context: PortalContext, orderId: unknown, refundId: unknown, txid: string | undefined, check: RefundTxCheck, clientIp: string | undefined, now: Date) {
  const merchant = await actingMerchant(context);
  await asPortal(() => reportRefundTransaction(merchant, orderId, refundId, txid, check, portalActor(context, clientIp), now));
  return getPortalOrder(context, orderId);
}

/** A new one-time link for a refund not sent yet (the old one, and its address, stop counting); answers the order's page. */
export async function portalRenewRefundLink(context: PortalContext, orderId: unknown, refundId: unknown, clientIp: string | undefined, now: Date) {
  const merchant = await actingMerchant(context);
  await asPortal(() => newRefundLink(merchant, orderId, refundId, portalActor(context, clientIp), now));
  return getPortalOrder(context, orderId);
}

/** What a refund of the order could be now: what is left, the overpaid part, the price at today's rate. */
export async function portalRefundQuote(context: PortalContext, orderId: unknown, now: Date) {
  const found = isId(orderId) ? await findOrderWithInvoice(orderId) : undefined;
  if (!found || found.order.user_id !== context.user.merchant_id) throw new PortalNotFoundError();
  return refundQuote(found, now);
}

/** Refunds waiting for an address or a payment, oldest first: one page after `cursor`. */
export async function portalWaitingRefunds(context: PortalContext, limit: number, cursor?: string) {
  const after = cursor ? Buffer.from(cursor, 'base64url').toString('utf8') : undefined;
  const page = await listWaitingRefunds(context.user.merchant_id, limit, after && /^[0-9TZ:.-]+#[0-9a-f-]{36}$/.test(after) ? after : undefined);
  return {
    refunds: await Promise.all(page.refunds.map(refundView)),
    next_cursor: page.next ? Buffer.from(page.next, 'utf8').toString('base64url') : null,
  };
}
