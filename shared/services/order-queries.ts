import { InvalidParameterError, OrderNotFoundError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import { MAX_OFFSET } from '#shared/domain/limits';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { ListOrdersQuery } from '#shared/schemas/orders';
import { listOrdersByNumber } from '#shared/store/order-numbers';
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

/**
 * Get Orders: newest first, optionally one status; `limit` 1..50 (10), `offset` (0). Up to
 * MAX_OFFSET the page is read from the list index directly; deeper, an unfiltered page is
 * found by order number (O(limit) reads at any offset). A status-filtered list stops at
 * MAX_OFFSET: an order's place in it moves whenever an order's status changes, and keeping
 * per-status positions would add writes to every payment (docs/architecture.md).
 */
export async function listOrders(merchant: MerchantProfile, query: ListOrdersQuery) {
  const page = { userId: merchant.user_id, status: query.status, limit: query.limit ?? 10, offset: query.offset ?? 0 };
  if (page.offset + page.limit <= MAX_OFFSET) return queryOrders(page);
  if (page.status !== undefined) {
    if (page.offset <= MAX_OFFSET) return queryOrders(page);
    throw new InvalidParameterError(`offset: with status, Get Orders serves offsets 0..${MAX_OFFSET} (positions in one status move as orders change status); without status, every offset`);
  }
  const orders = await listOrdersByNumber(page, MAX_OFFSET);
  if (orders) return orders;
  throw new InvalidParameterError(
    `offset: offsets beyond ${MAX_OFFSET} are served once this merchant's orders are numbered (every minute, for orders older than two minutes); more than ${MAX_OFFSET} are not yet: retry in a few minutes`,
  );
}
