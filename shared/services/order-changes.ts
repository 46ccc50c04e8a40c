import { ConcurrentUpdateError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Invoice, Order } from '#shared/domain/order';
import type { OrderStatus } from '#shared/domain/statuses';
import { assertTransition, type UnresolvedReason } from '#shared/domain/status-machine';
import { deliveryFor } from '#shared/callbacks/outbox';
import { deliveryToItem } from '#shared/store/deliveries';
import { addressIndexItem, commitOrderChange, findOrderWithInvoice, invoiceToItem, replaceInvoice } from '#shared/store/orders';

export interface Found {
  order: Order;
  invoice: Invoice | undefined;
}

export interface Change {
  order: Order;
  invoice?: Invoice;
  /** Another (replaced) invoice of the order, written in the same transaction: a payment to it. */
  otherInvoice?: Invoice;
}

/** How often a change is retried when another write moved the order first. */
const ATTEMPTS = 5;

/**
 * Reads an order, lets `decide` compute its next state from what it read, and commits that
 * conditionally (one transaction with its delivery, or, for a checkout, the new invoice and
 * then the order's conditional write); when another write got there first it reads again and
 * decides again. `decide` returns undefined for "nothing to do" (an idempotent repeat).
 * `owner` restricts the change to that merchant's orders (others are answered as missing).
 */
export async function changeOrder(
  orderId: string,
  owner: MerchantProfile | undefined,
  notFound: () => Error,
  decide: (found: Found) => Promise<Change | undefined> | Change | undefined,
): Promise<Found> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const found = await findOrderWithInvoice(orderId);
    if (!found || (owner && found.order.user_id !== owner.user_id)) throw notFound();
    const change = await decide(found);
    if (!change) return found;
    const isNewInvoice = change.invoice !== undefined && change.invoice.invoice_id !== found.invoice?.invoice_id;
    // A status change writes the callback it owes in the same transaction: it cannot be lost.
    const delivery = deliveryFor(found.order, change.order, new Date(change.order.updated_at));
    // A new invoice without a status change (a checkout) needs no transaction.
    const committed =
      isNewInvoice && !delivery
        ? await replaceInvoice(found.order, { order: change.order, invoice: change.invoice! })
        : await commitOrderChange({
            expected: found.order,
            order: change.order,
            invoice: change.invoice,
            extraItems: [
              ...(isNewInvoice ? [addressIndexItem(change.invoice!)] : []),
              ...(change.otherInvoice ? [invoiceToItem(change.otherInvoice)] : []),
              ...(delivery ? [deliveryToItem(delivery)] : []),
            ],
          });
    if (committed) return { order: change.order, invoice: change.invoice ?? found.invoice };
  }
  throw new ConcurrentUpdateError();
}

/** The next version of an order, with no status change (e.g. a payment's confirmations). */
export function touch(order: Order, now: Date): Order {
  return { ...order, version: order.version + 1, updated_at: now.toISOString() };
}

/**
 * Moves an order (and its invoice, in step) along one edge of the status machine. PAID fixes
 * the settlement currency on the order; UNRESOLVED records why.
 */
export function moveTo(
  found: Found,
  to: OrderStatus,
  now: Date,
  details: { reason?: UnresolvedReason; invoice?: Invoice } = {},
): Change {
  assertTransition(found.order.status, to);
  const invoice = details.invoice ?? found.invoice;
  const order: Order = {
    ...touch(found.order, now),
    status: to,
    ...(to === 'PAID' && invoice ? { receive_currency: invoice.receive_currency } : {}),
    ...(details.reason ? { unresolved_reason: details.reason } : {}),
  };
  return { order, invoice: invoice && { ...invoice, status: to } };
}
