import { OrderNotFoundError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { ListOrdersQuery } from '#shared/schemas/orders';
import { findOrderWithInvoice, listOrders as queryOrders } from '#shared/store/orders';

/**
 * The merchant API's reads, apart from shared/services/orders.ts so the read handlers do not
 * load the payment methods (HD keys, secp256k1, Lightning) that only writes need.
 */

/** Get Order: the merchant's own order and its current invoice, else the contract's 404. */
export async function getOrder(merchant: MerchantProfile, orderId: unknown) {
  if (!isId(orderId)) throw new OrderNotFoundError();
  const found = await findOrderWithInvoice(orderId);
  // Another merchant's order is answered exactly like a missing one.
  if (!found || found.order.user_id !== merchant.user_id) throw new OrderNotFoundError();
  return found;
}

/** Get Orders: newest first, optionally one status; `limit` 1..50 (10), `offset` (0). */
export async function listOrders(merchant: MerchantProfile, query: ListOrdersQuery) {
  return queryOrders({
    userId: merchant.user_id,
    status: query.status,
    limit: query.limit ?? 10,
    offset: query.offset ?? 0,
  });
}

