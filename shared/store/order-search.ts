import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { OrderDelivery } from '#shared/domain/delivery';
import type { Invoice, Order } from '#shared/domain/order';
import type { OrderStatus } from '#shared/domain/statuses';
import type { Refund } from '#shared/domain/refund';
import { refundFromItem } from '#shared/store/refunds';
import { db, tableName } from '#shared/store/client';
import { batchGetAll } from '#shared/store/batches';
import {
  addressKey,
  DELIVERY_PREFIX,
  REFUND_PREFIX,
  ENTITY,
  INVOICE_PREFIX,
  LEGACY_INVOICE_SK,
  merchantOrdersPartition,
  merchantStatusPartition,
  orderKey,
  orderPartition,
  txidKey,
  txidPartition,
} from '#shared/store/keys';
import { deliveryFromItem } from '#shared/store/deliveries';
import { invoiceFromItem } from '#shared/store/invoices';
import { orderFromItem } from '#shared/store/orders';

/**
 * The portal's reads of orders: filtered pages by cursor, an order's whole partition, and the
 * lookups behind its search box (transaction id, payment address). Each reads O(answer) items.
 */

type Item = Record<string, unknown>;

export interface OrderFilter {
  userId: number;
  status?: OrderStatus;
  /** Created at or after (ISO time). */
  from?: string;
  /** Created before (ISO time). */
  to?: string;
  limit: number;
  /** The sort key (`<created_at>#<order_id>`) of the last order of the previous page. */
  after?: string;
}

/**
 * A page of a merchant's orders, newest first, optionally of one status and a creation-time
 * range: one Query of GSI1 (or GSI2 by status) whose key condition is the range, starting
 * after the previous page's last key. The start key is rebuilt here from the sort key alone,
 * so a cursor cannot point into another merchant's partition. `next` is the last key when
 * more may follow.
 */
export async function queryOrderPage(filter: OrderFilter): Promise<{ orders: Order[]; next: string | undefined }> {
  const byStatus = filter.status !== undefined;
  const [pkName, skName] = byStatus ? ['GSI2PK', 'GSI2SK'] : ['GSI1PK', 'GSI1SK'];
  const pk = byStatus ? merchantStatusPartition(filter.userId, filter.status!) : merchantOrdersPartition(filter.userId);
  // Sort keys are `<ISO time>#<id>`: '#' sorts below every id character, '~' above.
  const low = filter.from ?? '0';
  const high = filter.to ? `${filter.to}#` : '~';
  const afterId = filter.after?.slice(filter.after.lastIndexOf('#') + 1);
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: byStatus ? 'GSI2' : 'GSI1',
      KeyConditionExpression: `${pkName} = :pk AND ${skName} BETWEEN :low AND :high`,
      ExpressionAttributeValues: { ':pk': pk, ':low': low, ':high': high },
      ScanIndexForward: false,
      Limit: filter.limit,
      ...(filter.after && afterId ? { ExclusiveStartKey: { ...orderKey(afterId), [pkName]: pk, [skName]: filter.after } } : {}),
    }),
  );
  const orders = (result.Items ?? []).map(orderFromItem);
  const last = result.Items?.at(-1);
  return { orders, next: result.LastEvaluatedKey && last ? String(last[skName]) : undefined };
}

/** Everything in an order's partition: the order, all its invoices, its callback deliveries as stored (one Query, paged). */
export async function readOrderPartition(orderId: string): Promise<{ order: Order; invoices: Invoice[]; deliveries: OrderDelivery[]; refunds: Refund[] } | undefined> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const result = await db().send(
      new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': orderPartition(orderId) }, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    items.push(...(result.Items ?? []));
    start = result.LastEvaluatedKey;
  } while (start);
  const orderItem = items.find((item) => item.SK === orderKey(orderId).SK);
  if (!orderItem) return undefined;
  const isInvoice = (sk: string) => sk.startsWith(INVOICE_PREFIX) || sk === LEGACY_INVOICE_SK;
  return {
    order: orderFromItem(orderItem),
    invoices: items.filter((item) => isInvoice(String(item.SK))).map(invoiceFromItem),
    deliveries: items.filter((item) => String(item.SK).startsWith(DELIVERY_PREFIX)).map(deliveryFromItem) as OrderDelivery[],
    refunds: items.filter((item) => String(item.SK).startsWith(REFUND_PREFIX)).map(refundFromItem),
  };
}

/**
 * The index items of transactions newly seen on an order. They are pointers, not facts: each is
 * written on its own before the change that records its transaction ({@link putTxidIndex}), and
 * the search keeps an order only if one of its invoices has the transaction
 * ({@link findOrderIdsByTxid}).
 */
export function txidIndexItems(orderId: string, before: readonly Invoice[], after: readonly (Invoice | undefined)[]): Item[] {
  const known = new Set(before.flatMap((invoice) => (invoice.payments ?? []).map((payment) => payment.txid)));
  const fresh = new Set(after.flatMap((invoice) => (invoice?.payments ?? []).map((payment) => payment.txid)).filter((txid) => !known.has(txid)));
  return [...fresh].map((txid) => ({ ...txidKey(txid, orderId), type: ENTITY.txid, order_id: orderId }));
}

/**
 * Writes transaction index items (plain, idempotent PutItems: the same pointer each time; 1 WRU
 * each, where inside the change's transaction it would be 2). Called before the change is
 * committed, so a crash between the two leaves at worst a pointer to an order that does not
 * have the transaction yet, which the search does not show; the watcher's retry of the same
 * payment writes it again and commits the change. Written after, a crash would leave a recorded
 * transaction without a pointer, and the retry (nothing left to change) would never write it.
 */
export async function putTxidIndex(items: readonly Item[]): Promise<void> {
  await Promise.all(items.map((item) => db().send(new PutCommand({ TableName: tableName(), Item: item }))));
}

/** Whether one of the order's invoices records a payment in transaction `txid` (the check behind a txid pointer). */
async function orderHasTxid(orderId: string, txid: string): Promise<boolean> {
  let start: Item | undefined;
  do {
    const result = await db().send(
      new QueryCommand({
        TableName: tableName(),
        // INVOICE#<id> and the legacy INVOICE both begin with INVOICE.
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :invoices)',
        ExpressionAttributeValues: { ':pk': orderPartition(orderId), ':invoices': LEGACY_INVOICE_SK },
        ProjectionExpression: 'payments',
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    const payments = (result.Items ?? []).flatMap((item) => (item.payments ?? []) as { txid: string }[]);
    if (payments.some((payment) => payment.txid === txid)) return true;
    start = result.LastEvaluatedKey;
  } while (start);
  return false;
}

/**
 * The orders a transaction paid (any merchant's: the caller keeps its own): those the index
 * points at whose invoices record it (a pointer is written before its order records the
 * transaction, see {@link putTxidIndex}).
 */
export async function findOrderIdsByTxid(txid: string): Promise<string[]> {
  const result = await db().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': txidPartition(txid) }, Limit: 25 }));
  const pointed = (result.Items ?? []).map((item) => String(item.order_id));
  const recorded = await Promise.all(pointed.map((orderId) => orderHasTxid(orderId, txid)));
  return pointed.filter((_, i) => recorded[i]);
}

/** The orders whose invoices were given `address` in any of `currencies` (one BatchGetItem, keys left unprocessed read again). */
export async function findOrderIdsByAddress(address: string, currencies: readonly string[]): Promise<string[]> {
  const keys = currencies.map((code) => addressKey(code, address));
  return [...new Set((await batchGetAll(keys, { projection: 'order_id' })).map((item) => String(item.order_id)))];
}

/** An order alone (the search's candidates). */
export async function findOrder(orderId: string): Promise<Order | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: orderKey(orderId), ConsistentRead: true }));
  return result.Item ? orderFromItem(result.Item) : undefined;
}
