import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Order } from '#shared/domain/order';
import { db, query, queryAll, tableName } from '#shared/store/client';
import { batchGetAll, batchPutAll } from '#shared/store/batches';
import { updateIf } from '#shared/store/conditional';
import type { Item } from '#shared/store/items';
import {
  ENTITY,
  merchantOrdersPartition,
  numberingRunKey,
  ORDER_LOG_SHARDS,
  orderIdOfPartition,
  orderKey,
  orderLogPartition,
  orderNumberingKey,
  orderNumberKey,
  orderNumbersPartition,
  orderNumberSortKey,
  userIdOfLogEntry,
} from '#shared/store/keys';
import { listOrders, orderFromItem, type OrderPage } from '#shared/store/orders';

/**
 * Order numbers: every order of a merchant gets the next number of the merchant's sequence
 * (1 = its oldest), in GSI1 order (creation time, then id), once it is older than any create
 * still in flight. Get Orders then finds the order at any offset by arithmetic: with N
 * numbered orders and u newer ones not numbered yet, offset k (k >= u) is order N - (k - u).
 *
 * A merchant's numbering cursor (N and the GSI1SK of order N) moves only by a conditional
 * write from the count it was read with, so two runs can never give one number twice or skip
 * one; readers use numbers up to the cursor only. The order items themselves are never
 * touched: status changes and numbering cannot conflict.
 */

/** How far a merchant's orders are numbered: `count` orders, the last with GSI1SK `last` ('' for none). */
export interface Numbering {
  count: number;
  last: string;
}

/** Orders numbered per cursor move (one GSI1 page). */
const BATCH = 100;

/** The merchant's numbering cursor (strongly consistent: the run and the reads both rely on it). */
export async function readNumbering(userId: number): Promise<Numbering> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: orderNumberingKey(userId), ConsistentRead: true }));
  return { count: Number(result.Item?.count ?? 0), last: String(result.Item?.last ?? '') };
}

/**
 * The merchants with orders created in [from, before) (ISO times; '' = from the start), from
 * every shard of the order log: who the numbering run must look at.
 */
export async function merchantsWithOrdersCreated(from: string, before: string): Promise<number[]> {
  const shards = await Promise.all(
    Array.from({ length: ORDER_LOG_SHARDS }, (_, shard) =>
      queryAll({
        IndexName: 'GSI4',
        // The sort key is <created_at>#<uid>: `before` itself sorts below every entry created then.
        KeyConditionExpression: from ? 'GSI4PK = :pk AND GSI4SK BETWEEN :from AND :before' : 'GSI4PK = :pk AND GSI4SK < :before',
        ExpressionAttributeValues: { ':pk': orderLogPartition(shard), ':before': before, ...(from ? { ':from': from } : {}) },
        ProjectionExpression: 'GSI4SK',
      }),
    ),
  );
  const merchants = new Set(shards.flat().map((entry) => userIdOfLogEntry(String(entry.GSI4SK))));
  return [...merchants].sort((a, b) => a - b);
}

/** The orders after `numbering` created before `before`, oldest first, at most `limit` (keys only). */
async function nextToNumber(userId: number, numbering: Numbering, before: string, limit: number): Promise<{ orderId: string; sortKey: string }[]> {
  const result = await query({
    IndexName: 'GSI1',
    // BETWEEN is inclusive: the order already numbered last is read again and dropped.
    KeyConditionExpression: numbering.last ? 'GSI1PK = :pk AND GSI1SK BETWEEN :last AND :before' : 'GSI1PK = :pk AND GSI1SK < :before',
    ExpressionAttributeValues: { ':pk': merchantOrdersPartition(userId), ':before': before, ...(numbering.last ? { ':last': numbering.last } : {}) },
    ProjectionExpression: 'PK, GSI1SK',
    Limit: limit + 1,
  });
  return (result.Items ?? [])
    .filter((item) => item.GSI1SK !== numbering.last)
    .slice(0, limit)
    .map((item) => ({ orderId: orderIdOfPartition(String(item.PK)), sortKey: String(item.GSI1SK) }));
}

/** Writes number items (plain Puts, 25 per BatchWriteItem, every one until DynamoDB has taken it). */
async function putNumbers(userId: number, first: number, orderIds: string[]): Promise<void> {
  await batchPutAll(orderIds.map((orderId, index) => ({ ...orderNumberKey(userId, first + index), type: ENTITY.orderNumber, order_id: orderId })));
}

/**
 * Moves the merchant's cursor from `from` to `to`; false when another run moved it first. An
 * update, not putIf: a racing run's cursor is identical to this one's, and must not count as ours.
 */
function moveNumbering(userId: number, from: Numbering, to: Numbering): Promise<boolean> {
  return updateIf(orderNumberingKey(userId), {
    UpdateExpression: 'SET #type = :type, #count = :to, #last = :last',
    ConditionExpression: from.count === 0 ? 'attribute_not_exists(PK)' : '#count = :from',
    ExpressionAttributeNames: { '#type': 'type', '#count': 'count', '#last': 'last' },
    ExpressionAttributeValues: { ':type': ENTITY.orderNumbering, ':to': to.count, ':last': to.last, ...(from.count === 0 ? {} : { ':from': from.count }) },
  });
}

/**
 * Gives the merchant's orders created before `before` (ISO time) that have no number yet the
 * next numbers, oldest first, batch by batch, until none is left (`done`) or `deadline`
 * (epoch ms) has passed. Each batch writes its number items, then moves the cursor over them
 * (conditional on the cursor it started from). Which order gets which number follows from the
 * cursor and the settled GSI1 alone, so two runs at once write identical items: the one whose
 * cursor move fails goes on from the cursor the other left. Items written past the cursor
 * (a run that stopped between the two writes) are invisible to readers, and rewritten alike.
 */
export async function numberOrders(userId: number, before: string, deadline = Infinity): Promise<{ numbered: number; done: boolean }> {
  let numbered = 0;
  let numbering = await readNumbering(userId);
  for (;;) {
    if (Date.now() > deadline) return { numbered, done: false };
    const next = await nextToNumber(userId, numbering, before, BATCH);
    if (next.length === 0) return { numbered, done: true };
    await putNumbers(
      userId,
      numbering.count + 1,
      next.map(({ orderId }) => orderId),
    );
    const moved = { count: numbering.count + next.length, last: next.at(-1)!.sortKey };
    if (await moveNumbering(userId, numbering, moved)) {
      numbered += next.length;
      numbering = moved;
    } else {
      numbering = await readNumbering(userId);
    }
  }
}

/** Up to which creation time (ISO) the numbering run has read the order log ('' = not yet). */
export async function readNumberingRun(): Promise<string> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: numberingRunKey, ConsistentRead: true }));
  return String(result.Item?.through ?? '');
}

/** Moves the run's mark from `from` to `through`; false when another run moved it first. */
export function advanceNumberingRun(from: string, through: string): Promise<boolean> {
  return updateIf(numberingRunKey, {
    UpdateExpression: 'SET #type = :type, through = :through',
    ConditionExpression: from ? 'through = :from' : 'attribute_not_exists(PK)',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':type': ENTITY.numberingRun, ':through': through, ...(from ? { ':from': from } : {}) },
  });
}

/** How many of the merchant's orders sort after `last` in GSI1, counting no further than `atMost + 1`. */
async function countNewer(userId: number, last: string, atMost: number): Promise<number> {
  let counted = 0;
  let startKey: Item | undefined;
  do {
    const result = await query({
      IndexName: 'GSI1',
      KeyConditionExpression: last ? 'GSI1PK = :pk AND GSI1SK > :last' : 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': merchantOrdersPartition(userId), ...(last ? { ':last': last } : {}) },
      Select: 'COUNT',
      Limit: atMost + 1 - counted,
      ExclusiveStartKey: startKey,
    });
    counted += result.Count ?? 0;
    startKey = result.LastEvaluatedKey;
  } while (startKey && counted <= atMost);
  return counted;
}

/** The orders with numbers `from`..`to` (inclusive), highest first: one Query and one BatchGetItem. */
async function numberedOrders(userId: number, from: number, to: number): Promise<Order[]> {
  const numbers = await query({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': orderNumbersPartition(userId), ':from': orderNumberSortKey(from), ':to': orderNumberSortKey(to) },
    ScanIndexForward: false,
    ConsistentRead: true,
  });
  const ids = (numbers.Items ?? []).map((item) => String(item.order_id));
  const found = new Map<string, Order>();
  for (const item of await batchGetAll(ids.map((id) => ({ ...orderKey(id) })))) {
    const order = orderFromItem(item);
    found.set(order.order_id, order);
  }
  return ids.map((id) => found.get(id)).filter((order): order is Order => order !== undefined);
}

/**
 * An unfiltered page at any offset, reading O(limit) items: the merchant's numbering cursor,
 * a count of the orders newer than its last numbered one (the few minutes not numbered yet,
 * counted up to `headLimit`), then the page by number. An offset inside those newest orders is
 * read from GSI1 as before (at most `headLimit + limit` items). Undefined when more than
 * `headLimit` orders are not numbered yet (orders stored before numbering, or a run behind).
 */
export async function listOrdersByNumber(page: Omit<OrderPage, 'status'>, headLimit: number): Promise<Order[] | undefined> {
  const numbering = await readNumbering(page.userId);
  const newer = await countNewer(page.userId, numbering.last, headLimit);
  if (newer > headLimit) return undefined;
  if (page.offset < newer) return listOrders(page);
  const top = numbering.count - (page.offset - newer);
  if (top < 1) return [];
  return numberedOrders(page.userId, Math.max(1, top - page.limit + 1), top);
}
