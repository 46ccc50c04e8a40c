import type { Delivery } from '#shared/domain/delivery';
import { UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { listDeliveries } from '#shared/store/deliveries';
import { findOrderWithInvoice } from '#shared/store/orders';

/**
 * Reading an order's callback log needs no queue: this module stays free of the callback
 * pipeline's configuration, so the read-only function loads with the table alone.
 */
export async function ownedOrderId(merchant: MerchantProfile, orderId: unknown): Promise<string> {
  if (!isId(orderId)) throw new UnknownOrderError();
  const found = await findOrderWithInvoice(orderId);
  if (!found || found.order.user_id !== merchant.user_id) throw new UnknownOrderError();
  return orderId;
}

/** The order's delivery log, newest event first. */
export async function listCallbacks(merchant: MerchantProfile, orderId: unknown): Promise<Delivery[]> {
  return (await listDeliveries(await ownedOrderId(merchant, orderId))).reverse();
}
