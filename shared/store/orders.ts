import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Invoice, Order } from '#shared/domain/order';
import type { OrderStatus } from '#shared/domain/statuses';
import { MerchantOrderIdExistsError } from '#shared/domain/errors';
import { db, query, tableName } from '#shared/store/client';
import { putIf } from '#shared/store/conditional';
import { addressIndexItem } from '#shared/store/address-index';
import { invoiceFromItem, invoiceToItem } from '#shared/store/invoices';
import { type Item, stripKeys } from '#shared/store/items';
import { cancellationReasons, isConditionFailure, isTransactionConflict } from '#shared/store/errors';
import {
  dueAtOfExpiryKey,
  expiryIndexKey,
  ENTITY,
  invoiceKey,
  LEGACY_INVOICE_SK,
  merchantOrderIdKey,
  merchantOrdersIndexKey,
  merchantOrdersPartition,
  merchantStatusIndexKey,
  merchantStatusPartition,
  orderKey,
  orderIdOfPartition,
  orderLogIndexKey,
  orderPartition,
} from '#shared/store/keys';

const TRANSACTION_ATTEMPTS = 3;

/**
 * Attributes an order item leaves out while they hold these values (restored on read), with its
 * id (its key holds it) and its due time (its expiry index key holds it, and out of that index it
 * means nothing): about 140 bytes, which keep a typical order under 1 KB. The order is written at
 * every status change, to the table and to two indexes that project it whole, each rounded up
 * to 1 KB on its own.
 */
const LEFT_OUT_WHEN: Partial<Order> = { description: '', cancel_url: '', success_url: '', receive_currency: '', deleted: 0, mobile: false, fast: false };

/**
 * The order as a table item: its own key, the list indexes' keys (they follow its status) and
 * its order log entry (fixed: creation time and merchant).
 */
export function orderToItem(order: Order): Item {
  const { order_id: _id, due_at: _due, ...stored } = order as Order & Item;
  for (const [name, value] of Object.entries(LEFT_OUT_WHEN)) if (stored[name] === value) delete stored[name];
  return {
    ...orderKey(order.order_id),
    ...merchantOrdersIndexKey(order.user_id, order.created_at, order.order_id),
    ...orderLogIndexKey(order.order_id, order.user_id, order.created_at),
    ...merchantStatusIndexKey(order.user_id, order.status, order.created_at, order.order_id),
    // Only NEW and PENDING orders are in the expiry index; any other status drops out of it.
    ...((order.status === 'NEW' || order.status === 'PENDING') && order.due_at ? expiryIndexKey(order.order_id, order.due_at) : {}),
    type: ENTITY.order,
    ...stored,
  };
}

/** The order an item holds (an item written before attributes were left out keeps its own). */
export function orderFromItem(item: Item): Order {
  // An order's GSI3 entry is its expiry index entry.
  const due = typeof item.GSI3SK === 'string' ? dueAtOfExpiryKey(item.GSI3SK) : undefined;
  return stripKeys<Order>(item, { ...LEFT_OUT_WHEN, order_id: orderIdOfPartition(String(item.PK)), ...(due ? { due_at: due } : {}) });
}

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

/**
 * Writes a new order (and its first invoice, when it was checked out at creation), on the
 * condition that its id is new. An order with a `merchant_order_id` has an id derived from
 * that reference (orderIdFor), so the condition alone keeps the reference unique per
 * merchant: one PutItem. `guardReference` is for merchants without an order-id key: a guard
 * item makes the reference unique, in one transaction with the order.
 */
export async function insertOrder(order: Order, invoice?: Invoice, options: { guardReference?: boolean } = {}): Promise<void> {
  const orderPut = {
    TableName: tableName(),
    Item: orderToItem(order),
    ConditionExpression: 'attribute_not_exists(PK)',
  };
  const guard = Boolean(options.guardReference && order.merchant_order_id);
  // The order's own condition failed: with a derived id, the reference is taken.
  const taken = (error: unknown) => (order.merchant_order_id && !guard ? new MerchantOrderIdExistsError() : (error as Error));
  if (!guard && !invoice) {
    if (!(await putIf(orderPut.Item, { ConditionExpression: orderPut.ConditionExpression })).written) {
      throw taken(new Error(`order ${order.order_id} exists already`));
    }
    return;
  }
  const actions: TransactItems = [{ Put: orderPut }];
  if (invoice) {
    actions.push({ Put: { TableName: tableName(), Item: invoiceToItem(invoice) } });
    actions.push({ Put: { TableName: tableName(), Item: addressIndexItem(invoice) } });
  }
  const guardIndex = actions.length;
  if (guard) {
    actions.push({
      Put: {
        TableName: tableName(),
        Item: {
          ...merchantOrderIdKey(order.user_id, order.merchant_order_id),
          type: ENTITY.merchantOrderId,
          order_id: order.order_id,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    });
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: actions }));
      return;
    } catch (error) {
      const reasons = isConditionFailure(error) ? cancellationReasons(error) : [];
      if (reasons[guardIndex] === 'ConditionalCheckFailed' && guard) throw new MerchantOrderIdExistsError();
      if (reasons[0] === 'ConditionalCheckFailed') throw taken(error);
      // Two creates racing for one merchant_order_id: retry, and the loser sees the condition fail.
      if (!isTransactionConflict(error) || attempt >= TRANSACTION_ATTEMPTS) throw error;
    }
  }
}

/**
 * The order and its current invoice: one strongly consistent Query of the order's partition,
 * descending from the order item, two items: the order and its latest invoice (invoice ids
 * sort by time; the key range skips the callback log). The latest invoice is the current one
 * unless a checkout lost a race after writing its invoice: then one GetItem reads the
 * invoice the order names.
 */
export async function findOrderWithInvoice(orderId: string): Promise<{ order: Order; invoice: Invoice | undefined } | undefined> {
  const result = await query({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :invoices AND :order',
    ExpressionAttributeValues: {
      ':pk': orderPartition(orderId),
      ':invoices': LEGACY_INVOICE_SK,
      ':order': orderKey(orderId).SK,
    },
    ScanIndexForward: false,
    Limit: 2,
    ConsistentRead: true,
  });
  const [orderItem, latest] = result.Items ?? [];
  if (!orderItem || orderItem.SK !== orderKey(orderId).SK) return undefined;
  const order = orderFromItem(orderItem);
  if (!order.invoice_id) return { order, invoice: undefined };
  if (latest && latest.invoice_id === order.invoice_id) return { order, invoice: invoiceFromItem(latest) };
  const current = await db().send(new GetCommand({ TableName: tableName(), Key: invoiceKey(orderId, order.invoice_id), ConsistentRead: true }));
  if (current.Item) return { order, invoice: invoiceFromItem(current.Item) };
  // An order stored before invoices had their own keys keeps its current one at SK = INVOICE.
  const legacy = await db().send(new GetCommand({ TableName: tableName(), Key: { PK: orderPartition(orderId), SK: LEGACY_INVOICE_SK }, ConsistentRead: true }));
  const matches = legacy.Item && legacy.Item.invoice_id === order.invoice_id;
  return { order, invoice: matches ? invoiceFromItem(legacy.Item!) : undefined };
}

/**
 * The id of the order holding a merchant's reference, for merchants without an order-id key
 * (whose references are kept unique by a guard item): one GetItem of the guard.
 */
export async function findOrderIdByGuard(userId: number, merchantOrderId: string): Promise<string | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: merchantOrderIdKey(userId, merchantOrderId), ConsistentRead: true }));
  return typeof result.Item?.order_id === 'string' ? result.Item.order_id : undefined;
}

export interface OrderPage {
  userId: number;
  status?: OrderStatus;
  limit: number;
  offset: number;
}

/**
 * A merchant's orders newest first (optionally of one status), skipping `offset`. DynamoDB
 * has no offset, so the query reads `offset + limit` items and drops the first `offset`: the
 * caller uses it only while that stays bounded (MAX_OFFSET); deeper pages are found by order
 * number (order-numbers.ts).
 */
export async function listOrders(page: OrderPage): Promise<Order[]> {
  const byStatus = page.status !== undefined;
  const wanted = page.offset + page.limit;
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const result = await query({
      IndexName: byStatus ? 'GSI2' : 'GSI1',
      KeyConditionExpression: byStatus ? 'GSI2PK = :pk' : 'GSI1PK = :pk',
      ExpressionAttributeValues: {
        ':pk': byStatus ? merchantStatusPartition(page.userId, page.status as string) : merchantOrdersPartition(page.userId),
      },
      ScanIndexForward: false,
      Limit: wanted - items.length,
      ExclusiveStartKey: startKey,
    });
    items.push(...(result.Items ?? []));
    startKey = result.LastEvaluatedKey;
  } while (startKey && items.length < wanted);
  return items.slice(page.offset, wanted).map(orderFromItem);
}

/** The condition of every order change: the order still has the status and version it was read with. */
export function expectedVersion(order: Order) {
  return {
    ConditionExpression: '#status = :status AND #version = :version',
    ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
    ExpressionAttributeValues: { ':status': order.status, ':version': order.version },
  };
}

/**
 * Writes a change of an order (and of its current invoice, in step) as one transaction,
 * conditional on the order still having the status and version it was read with: a duplicate
 * or late event can never move an order twice or backwards. Returns false when another write
 * got there first (the caller re-reads and decides again).
 */
export async function commitOrderChange(change: {
  expected: Order;
  order: Order;
  invoice?: Invoice;
  /** Other items written in the same transaction (a new invoice's address index, a delivery). */
  extraItems?: Item[];
  /** Other writes with conditions of their own (an audit entry), in the same transaction. */
  extraActions?: TransactItems;
}): Promise<boolean> {
  const actions: TransactItems = [
    {
      Put: {
        TableName: tableName(),
        Item: orderToItem(change.order),
        ...expectedVersion(change.expected),
      },
    },
  ];
  if (change.invoice) actions.push({ Put: { TableName: tableName(), Item: invoiceToItem(change.invoice) } });
  for (const item of change.extraItems ?? []) actions.push({ Put: { TableName: tableName(), Item: item } });
  actions.push(...(change.extraActions ?? []));
  try {
    await db().send(new TransactWriteCommand({ TransactItems: actions }));
    return true;
  } catch (error) {
    if (isConditionFailure(error) && cancellationReasons(error)[0] === 'ConditionalCheckFailed') return false;
    if (isTransactionConflict(error)) return false;
    throw error;
  }
}

/**
 * The order's conditional write that makes `next.invoice_id` current: false when another
 * write moved the order first (nothing written). A failure of any other kind is thrown and
 * leaves it unknown whether the write landed.
 */
export async function commitCheckout(expected: Order, next: Order): Promise<boolean> {
  return (await putIf(orderToItem(next), expectedVersion(expected))).written;
}
