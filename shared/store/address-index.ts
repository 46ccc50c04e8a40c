import type { Invoice } from '#shared/domain/order';
import { batchGetAll } from '#shared/store/batches';
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
  for (const item of await batchGetAll(unique, { projection: 'PK, order_id, invoice_id' })) {
    found.set(String(item.PK), { orderId: String(item.order_id), invoiceId: String(item.invoice_id) });
  }
  return found;
}
