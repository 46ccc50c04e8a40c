import { BatchGetCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Invoice, Order } from '#shared/domain/order';
import type { OrderStatus } from '#shared/domain/statuses';
import { MerchantOrderIdExistsError } from '#shared/domain/errors';
import { db, tableName } from '#shared/store/client';
import { putIf } from '#shared/store/conditional';
import { cancellationReasons, isConditionFailure, isTransactionConflict } from '#shared/store/errors';
import {
  addressKey,
  EXPIRY_SHARDS,
  expiryIndexKey,
  expiryPartition,
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
  orderPartition,
} from '#shared/store/keys';

type Item = Record<string, unknown>;

const TRANSACTION_ATTEMPTS = 3;

/** The order as a table item: its own key plus both index keys (they follow its status). */
export function orderToItem(order: Order): Item {
  return {
    ...orderKey(order.order_id),
    ...merchantOrdersIndexKey(order.user_id, order.created_at, order.order_id),
    ...merchantStatusIndexKey(order.user_id, order.status, order.created_at, order.order_id),
    // Only NEW and PENDING orders are in the expiry index; any other status drops out of it.
    ...((order.status === 'NEW' || order.status === 'PENDING') && order.due_at ? expiryIndexKey(order.order_id, order.due_at) : {}),
    type: ENTITY.order,
    ...order,
  };
}

const STORAGE_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'GSI3PK', 'GSI3SK', 'type'];

function stripKeys<T>(item: Item): T {
  const copy: Item = { ...item };
  for (const attribute of STORAGE_ATTRIBUTES) delete copy[attribute];
  return copy as T;
}

export function orderFromItem(item: Item): Order {
  return stripKeys<Order>(item);
}

export function invoiceToItem(invoice: Invoice): Item {
  return { ...invoiceKey(invoice.order_id, invoice.invoice_id), type: ENTITY.invoice, ...invoice };
}

export function invoiceFromItem(item: Item): Invoice {
  return stripKeys<Invoice>(item);
}

/** The index item that lets a payment to `invoice`'s address find it. */
export function addressIndexItem(invoice: Invoice): Item {
  return {
    ...addressKey(invoice.pay_currency, invoice.payment_address, invoice.memo),
    type: ENTITY.address,
    order_id: invoice.order_id,
    invoice_id: invoice.invoice_id,
  };
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
  const taken = (error: unknown) =>
    order.merchant_order_id && !guard ? new MerchantOrderIdExistsError() : (error as Error);
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
export async function findOrderWithInvoice(
  orderId: string,
): Promise<{ order: Order; invoice: Invoice | undefined } | undefined> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :invoices AND :order',
      ExpressionAttributeValues: {
        ':pk': orderPartition(orderId),
        ':invoices': LEGACY_INVOICE_SK,
        ':order': orderKey(orderId).SK,
      },
      ScanIndexForward: false,
      Limit: 2,
      ConsistentRead: true,
    }),
  );
  const [orderItem, latest] = result.Items ?? [];
  if (!orderItem || orderItem.SK !== orderKey(orderId).SK) return undefined;
  const order = orderFromItem(orderItem);
  if (!order.invoice_id) return { order, invoice: undefined };
  if (latest && latest.invoice_id === order.invoice_id) return { order, invoice: invoiceFromItem(latest) };
  const current = await db().send(
    new GetCommand({ TableName: tableName(), Key: invoiceKey(orderId, order.invoice_id), ConsistentRead: true }),
  );
  if (current.Item) return { order, invoice: invoiceFromItem(current.Item) };
  // An order stored before invoices had their own keys keeps its current one at SK = INVOICE.
  const legacy = await db().send(
    new GetCommand({ TableName: tableName(), Key: { PK: orderPartition(orderId), SK: LEGACY_INVOICE_SK }, ConsistentRead: true }),
  );
  const matches = legacy.Item && legacy.Item.invoice_id === order.invoice_id;
  return { order, invoice: matches ? invoiceFromItem(legacy.Item!) : undefined };
}

/**
 * The id of the order holding a merchant's reference, for merchants without an order-id key
 * (whose references are kept unique by a guard item): one GetItem of the guard.
 */
export async function findOrderIdByGuard(userId: number, merchantOrderId: string): Promise<string | undefined> {
  const result = await db().send(
    new GetCommand({ TableName: tableName(), Key: merchantOrderIdKey(userId, merchantOrderId), ConsistentRead: true }),
  );
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
 * has no offset, so the query reads `offset + limit` items and drops the first `offset`;
 * the API bounds `offset` so the cost of a page stays bounded.
 */
export async function listOrders(page: OrderPage): Promise<Order[]> {
  const byStatus = page.status !== undefined;
  const wanted = page.offset + page.limit;
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const result = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: byStatus ? 'GSI2' : 'GSI1',
        KeyConditionExpression: byStatus ? 'GSI2PK = :pk' : 'GSI1PK = :pk',
        ExpressionAttributeValues: {
          ':pk': byStatus
            ? merchantStatusPartition(page.userId, page.status as string)
            : merchantOrdersPartition(page.userId),
        },
        ScanIndexForward: false,
        Limit: wanted - items.length,
        ExclusiveStartKey: startKey,
      }),
    );
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
 * Where a walk through the due orders stands: per shard of the expiry index, the key to
 * continue after, or null when the shard has nothing more.
 */
export type DueCursor = (Item | null | undefined)[];

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

/**
 * NEW and PENDING orders whose due time has passed, from the sparse expiry index (keys only): at most
 * `limit` of them over all shards, the oldest first, and the cursor of the next page (undefined
 * when there is none). Each shard is read page by page until it has given `limit` or has no
 * more, so a filtered or short page never hides due orders behind it.
 */
export async function findDueOrders(
  now: Date,
  limit: number,
  after: DueCursor = [],
): Promise<{ due: { orderId: string }[]; next: DueCursor | undefined }> {
  const shards = await Promise.all(
    Array.from({ length: EXPIRY_SHARDS }, async (_, shard) => {
      const items: Item[] = [];
      let start = after[shard];
      while (start !== null && items.length < limit) {
        const result = await db().send(
          new QueryCommand({
            TableName: tableName(),
            IndexName: 'GSI3',
            KeyConditionExpression: 'GSI3PK = :pk AND GSI3SK < :now',
            ExpressionAttributeValues: { ':pk': expiryPartition(shard), ':now': `${now.toISOString()}#~` },
            Limit: limit - items.length,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        );
        items.push(...(result.Items ?? []));
        start = result.LastEvaluatedKey ?? null;
      }
      return { items, exhausted: start === null };
    }),
  );
  // The oldest `limit` over all shards (the index's sort key starts with the due time).
  const taken = shards
    .flatMap(({ items }, shard) => items.map((item) => ({ item, shard })))
    .sort((a, b) => (String(a.item.GSI3SK) < String(b.item.GSI3SK) ? -1 : 1))
    .slice(0, limit);
  const next: DueCursor = shards.map(({ items, exhausted }, shard) => {
    const last = taken.filter((entry) => entry.shard === shard).at(-1)?.item;
    if (exhausted && (items.length === 0 || last === items.at(-1))) return null;
    // Continue after the last one taken (the shard's first page again when none was).
    const from = last ?? after[shard];
    return from ? { PK: from.PK, SK: from.SK, GSI3PK: from.GSI3PK, GSI3SK: from.GSI3SK } : undefined;
  });
  return {
    due: taken.map(({ item }) => ({ orderId: orderIdOfPartition(String(item.PK)) })),
    next: next.every((start) => start === null) ? undefined : next,
  };
}
