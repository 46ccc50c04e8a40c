import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { Invoice } from '#shared/domain/order';
import { db, tableName } from '#shared/store/client';
import type { Item } from '#shared/store/items';
import { addressKey, ENTITY } from '#shared/store/keys';

/**
 * The address index: one item per invoice address (and EOS memo) naming its order and invoice,
 * so a payment seen on a chain or a node finds the invoice it pays. Written with the invoice
 * (invoices.ts storeInvoice, the checkout's transaction), read by the watchers in batches.
 */

/** The index item that lets a payment to `invoice`'s address find it. */
export function addressIndexItem(invoice: Invoice): Item {
  return {
    ...addressKey(invoice.pay_currency, invoice.payment_address, invoice.memo),
    type: ENTITY.address,
    order_id: invoice.order_id,
    invoice_id: invoice.invoice_id,
  };
}

/** BatchGetItem takes at most 100 keys per request. */
const BATCH_GET_LIMIT = 100;
/** Rounds of retrying the keys DynamoDB left unprocessed (throttling) before giving up. */
const UNPROCESSED_ROUNDS = 5;

/** An address a payment was sent to, in the currency it was paid in (and the EOS memo). */
export interface PaidAddress {
  currency: string;
  address: string;
  memo?: string;
}

/** The map key of {@link findInvoicesByAddresses}'s answer. */
export const paidAddressId = (paid: PaidAddress): string => addressKey(paid.currency, paid.address, paid.memo).PK;

/**
 * The invoices of many addresses at once (a block's outputs): BatchGetItem of the address
 * index, 100 keys a request, keys left unprocessed retried with backoff. Eventually consistent
 * reads suffice: an address is indexed before anyone is shown it. Answers only the addresses
 * that belong to an invoice, keyed by {@link paidAddressId}.
 */
export async function findInvoicesByAddresses(
  addresses: readonly PaidAddress[],
): Promise<Map<string, { orderId: string; invoiceId: string }>> {
  const found = new Map<string, { orderId: string; invoiceId: string }>();
  const unique: Record<string, unknown>[] = [
    ...new Map(addresses.map((paid) => [paidAddressId(paid), { ...addressKey(paid.currency, paid.address, paid.memo) }])).values(),
  ];
  for (let start = 0; start < unique.length; start += BATCH_GET_LIMIT) {
    let keys: Record<string, unknown>[] = unique.slice(start, start + BATCH_GET_LIMIT);
    for (let round = 0; keys.length > 0; round += 1) {
      if (round >= UNPROCESSED_ROUNDS) throw new Error(`address index: ${keys.length} keys still unprocessed after ${round} rounds`);
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** round * (0.5 + Math.random())));
      const result = await db().send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: keys, ProjectionExpression: 'PK, order_id, invoice_id' } } }),
      );
      for (const item of result.Responses?.[tableName()] ?? []) {
        found.set(String(item.PK), { orderId: String(item.order_id), invoiceId: String(item.invoice_id) });
      }
      keys = (result.UnprocessedKeys?.[tableName()]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
  }
  return found;
}
