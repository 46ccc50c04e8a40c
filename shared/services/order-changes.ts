import { ConcurrentUpdateError, UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Found } from '#shared/domain/order';
import type { RefundingChange } from '#shared/domain/refund';
import { deliveryFor } from '#shared/callbacks/outbox';
import { deliveryToItem } from '#shared/store/deliveries';
import { addressIndexItem } from '#shared/store/address-index';
import { invoiceToItem } from '#shared/store/invoices';
import { commitOrderChange, findOrderWithInvoice } from '#shared/store/orders';
import { putTxidIndex, txidIndexItems } from '#shared/store/order-search';
import { auditPut } from '#shared/store/audit';
import { refundItems } from '#shared/store/refunds';

/** How often a change is retried when another write moved the order first. */
const ATTEMPTS = 5;

/** The error an order that is not there (or not the caller's) answers. */
export const unknownOrder = (): UnknownOrderError => new UnknownOrderError();

/** An order id from outside, checked for shape: anything else is an unknown order. */
export function checkedId(orderId: unknown): string {
  if (!isId(orderId)) throw new UnknownOrderError();
  return orderId;
}

/**
 * Reads an order, lets `decide` compute its next state from what it read, and commits that
 * conditionally (one transaction with its delivery, its refunds and audit entry when it
 * brings them and, if it brings one, a new invoice's address index; checkouts have their own path in services/orders.ts); when another write
 * got there first it reads again and decides again. `decide` returns undefined for "nothing to do" (an idempotent repeat).
 * `owner` restricts the change to that merchant's orders (others are answered as missing).
 */
export async function changeOrder(
  orderId: string,
  owner: MerchantProfile | undefined,
  notFound: () => Error,
  decide: (found: Found) => Promise<RefundingChange | undefined> | RefundingChange | undefined,
): Promise<Found> {
  for (let attempt = 1; attempt <= ATTEMPTS; attempt += 1) {
    const found = await findOrderWithInvoice(orderId);
    if (!found || (owner && found.order.user_id !== owner.user_id)) throw notFound();
    const change = await decide(found);
    if (!change) return found;
    const isNewInvoice = change.invoice !== undefined && change.invoice.invoice_id !== found.invoice?.invoice_id;
    // A status change writes the callback it owes in the same transaction: it cannot be lost.
    const delivery = deliveryFor(found.order, change.order, new Date(change.order.updated_at), change.callbackRefunds);
    // The portal finds an order by a transaction id through these pointers: written first, on
    // their own (see putTxidIndex for why first, and why not in the transaction).
    await putTxidIndex(txidIndexItems(orderId, found.invoice ? [found.invoice] : [], [change.invoice, change.otherInvoice]));
    const committed = await commitOrderChange({
      expected: found.order,
      order: change.order,
      invoice: change.invoice,
      extraItems: [
        ...(isNewInvoice ? [addressIndexItem(change.invoice!)] : []),
        ...(change.otherInvoice ? [invoiceToItem(change.otherInvoice)] : []),
        ...(delivery ? [deliveryToItem(delivery)] : []),
        ...(change.refunds ?? []).flatMap(refundItems),
      ],
      extraActions: change.audit ? [auditPut(change.order.user_id, change.audit)] : [],
    });
    if (committed) return { order: change.order, invoice: change.invoice ?? found.invoice };
  }
  throw new ConcurrentUpdateError();
}
