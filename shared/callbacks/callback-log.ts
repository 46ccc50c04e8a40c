import type { OrderDelivery } from '#shared/domain/delivery';
import { UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { listDeliveries } from '#shared/store/deliveries';
import { findOrderWithInvoice } from '#shared/store/orders';

/**
 * The merchant's view of an order's callbacks. Reading the log needs no queue: apart from the
 * delivery job (delivery-job.ts) so the read-only function's bundle holds no SQS client.
 */
export async function ownedOrderId(merchant: MerchantProfile, orderId: unknown): Promise<string> {
  if (!isId(orderId)) throw new UnknownOrderError();
  const found = await findOrderWithInvoice(orderId);
  if (!found || found.order.user_id !== merchant.user_id) throw new UnknownOrderError();
  return orderId;
}

/** The order's delivery log, newest event first. */
export async function listCallbacks(merchant: MerchantProfile, orderId: unknown): Promise<OrderDelivery[]> {
  return (await listDeliveries(await ownedOrderId(merchant, orderId))).reverse();
}
