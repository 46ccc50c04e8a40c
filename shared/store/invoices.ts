import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Invoice } from '#shared/domain/order';
import { db, tableName } from '#shared/store/client';
import { addressIndexItem } from '#shared/store/address-index';
import { updateIf } from '#shared/store/conditional';
import { isConditionFailure } from '#shared/store/errors';
import { addressKey, checkoutSlotsKey, ENTITY, invoiceKey } from '#shared/store/keys';
import { type Item, stripKeys } from '#shared/store/items';

/** The invoice as a table item. */
export function invoiceToItem(invoice: Invoice): Item {
  return { ...invoiceKey(invoice.order_id, invoice.invoice_id), type: ENTITY.invoice, ...invoice };
}

export function invoiceFromItem(item: Item): Invoice {
  return stripKeys<Invoice>(item);
}

/**
 * A checkout's writes. An order's invoices are bounded: each new one first takes a slot of
 * the order's checkout-slots item (a conditional counter), then is written with its address
 * index, then the order's conditional write makes it current (orders.ts commitCheckout). No transaction: if the order's
 * write loses, the invoice was never shown and is discarded, its slot and address given back.
 */

/**
 * Takes one of the order's `max` invoice slots: one conditional UpdateItem, so concurrent
 * checkouts can never take more than `max` between them. `existing` is how many invoices
 * the order had before slots were counted (its first one, made at Create Order).
 */
export function claimInvoiceSlot(orderId: string, max: number, existing: number): Promise<boolean> {
  return updateIf(checkoutSlotsKey(orderId), {
    UpdateExpression: 'SET invoices = if_not_exists(invoices, :existing) + :one, #type = :type',
    ConditionExpression: 'attribute_not_exists(invoices) OR invoices < :max',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':existing': existing, ':one': 1, ':max': max, ':type': ENTITY.checkoutSlots },
  });
}

/** Gives back a slot whose invoice was discarded. */
export async function releaseInvoiceSlot(orderId: string): Promise<void> {
  await updateIf(checkoutSlotsKey(orderId), {
    UpdateExpression: 'SET invoices = invoices - :one',
    ConditionExpression: 'invoices > :zero',
    ExpressionAttributeValues: { ':one': 1, ':zero': 0 },
  });
}

/** One invoice of an order (strongly consistent), or undefined. */
export async function findInvoice(orderId: string, invoiceId: string): Promise<Invoice | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: invoiceKey(orderId, invoiceId), ConsistentRead: true }));
  return result.Item ? invoiceFromItem(result.Item) : undefined;
}

/** Writes a new invoice and its address index (new keys: nothing is overwritten). */
export async function storeInvoice(invoice: Invoice): Promise<void> {
  await Promise.all([db().send(new PutCommand({ TableName: tableName(), Item: invoiceToItem(invoice) })), db().send(new PutCommand({ TableName: tableName(), Item: addressIndexItem(invoice) }))]);
}

/**
 * Removes an invoice that was never current: its address index first (only while it still
 * names this invoice), then the invoice. Afterwards nothing in the table leads to its address.
 */
export async function discardInvoice(invoice: Invoice): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: addressKey(invoice.pay_currency, invoice.watched_address ?? invoice.payment_address, invoice.memo),
        ConditionExpression: 'invoice_id = :id',
        ExpressionAttributeValues: { ':id': invoice.invoice_id },
      }),
    );
  } catch (error) {
    // Absent (its write never landed) is as good as deleted.
    if (!isConditionFailure(error)) throw error;
  }
  await db().send(new DeleteCommand({ TableName: tableName(), Key: invoiceKey(invoice.order_id, invoice.invoice_id) }));
}
