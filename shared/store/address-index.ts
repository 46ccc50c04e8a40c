import type { Invoice } from '#shared/domain/order';
import { batchGetAll } from '#shared/store/batches';
import type { Item } from '#shared/store/items';
import { addressKey, ENTITY } from '#shared/store/keys';

/**
 * The address index: one item per invoice address (and EOS memo) naming its order and invoice,
 * so a payment seen on a chain or a node finds the invoice it pays. Written with the invoice
 * (invoices.ts storeInvoice, the checkout's transaction), read by the watchers in batches. A
 * buyer's refund address has an item of the refund kind (refund-watches.ts), naming the
 * refunds waiting on it.
 */

/** The index item that lets a payment to `invoice`'s address find it. */
export function addressIndexItem(invoice: Invoice): Item {
  return {
    ...addressKey(invoice.pay_currency, invoice.watched_address ?? invoice.payment_address, invoice.memo),
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

/** The map key of {@link findTargetsByAddresses}'s answer. */
export const paidAddressId = (paid: PaidAddress): string => addressKey(paid.currency, paid.address, paid.memo).PK;

/** A refund waiting on an address, as the address index holds it (one per `refund:<id>` attribute). */
export interface RefundTarget {
  userId: number;
  orderId: string;
  refundId: string;
  /** Exact decimal in the address's currency. */
  amount: string;
  /** ISO: when its address was set. */
  since: string;
}

/** The address index item's kind for a refund address (store/refund-watches.ts; absent: an invoice's). */
export const REFUND_KIND = 'REFUND';
/** The prefix of a refund's attribute on a refund address's item. */
export const REFUND_ATTRIBUTE = 'refund:';

/** What an address index item points at: an invoice, or the refunds waiting on a buyer's address (oldest first). */
export type AddressTarget = { kind: 'invoice'; orderId: string; invoiceId: string } | { kind: 'refund'; refunds: RefundTarget[] };

/** A refund as stored (an index attribute, a claim), read back. */
export function refundTargetOf(entry: Record<string, unknown>): RefundTarget {
  return { userId: Number(entry.userId), orderId: String(entry.orderId), refundId: String(entry.refundId), amount: String(entry.amount), since: String(entry.since) };
}

/** The refunds a refund address's item names, oldest first. */
function refundTargetsOf(item: Item): RefundTarget[] {
  const targets: RefundTarget[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (name.startsWith(REFUND_ATTRIBUTE) && typeof value === 'object' && value !== null) targets.push(refundTargetOf(value as Record<string, unknown>));
  }
  const order = (target: RefundTarget) => `${target.since}#${target.refundId}`;
  return targets.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/**
 * What many addresses point at (a block's outputs): BatchGetItem of the address index, 100 keys
 * a request, keys left unprocessed retried with backoff. Eventually consistent reads suffice: an
 * address is indexed before anyone is shown it (a refund's before the merchant is). Answers
 * only the addresses that belong to an invoice or a refund, keyed by {@link paidAddressId}.
 */
export async function findTargetsByAddresses(addresses: readonly PaidAddress[]): Promise<Map<string, AddressTarget>> {
  const found = new Map<string, AddressTarget>();
  const unique: Record<string, unknown>[] = [...new Map(addresses.map((paid) => [paidAddressId(paid), { ...addressKey(paid.currency, paid.address, paid.memo) }])).values()];
  // Whole items: a refund address's item holds its refunds as attributes (no projection can name them).
  for (const item of await batchGetAll(unique)) {
    found.set(
      String(item.PK),
      item.kind === REFUND_KIND ? { kind: 'refund', refunds: refundTargetsOf(item) } : { kind: 'invoice', orderId: String(item.order_id), invoiceId: String(item.invoice_id) },
    );
  }
  return found;
}
