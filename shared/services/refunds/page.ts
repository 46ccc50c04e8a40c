/**
 * The buyer's refund page (public: the link's secret is the only capability): what the link
 * shows (its own order and refund, and the merchant's name), before and after the buyer sets
 * the address (buyer-link.ts).
 */
import { RefundLinkInvalidError } from '#shared/domain/errors';
import type { Refund } from '#shared/domain/refund';
import { type PayRefundView, payRefundView } from '#shared/schemas/refunds';
import { refundOfLink, setRefundAddress } from '#shared/services/refunds/buyer-link';
import { findMerchant } from '#shared/store/merchants';
import { findOrderWithInvoice } from '#shared/store/orders';

async function pageOf(refund: Refund): Promise<PayRefundView> {
  const [found, merchant] = await Promise.all([findOrderWithInvoice(refund.order_id), findMerchant(refund.user_id)]);
  if (!found) throw new RefundLinkInvalidError();
  return payRefundView(refund, found.order, merchant?.name ?? '');
}

/** What the refund link shows: its own order and refund, while it may still be used. */
export async function openRefundPage(secret: unknown): Promise<PayRefundView> {
  return pageOf(await refundOfLink(secret));
}

/** The buyer's address, set through the link: the page as it is after (the link no longer opens). */
export async function addressRefundPage(body: { secret: string; address: string; memo?: string }, clientIp: string | undefined, now: Date): Promise<PayRefundView> {
  return pageOf(await setRefundAddress({ ...body, clientIp, now }));
}
