/**
 * Refunds in the table: one item each in its order's partition (written only in the order's own
 * conditional transaction, shared/services/order-changes.ts, so the order's refund summary and
 * its refunds never disagree), the refund link's pointer (by the SHA-256 of its secret), the
 * merchant's list of refunds waiting (GSI1) and every refund waiting (GSI3, for the metric).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Refund } from '#shared/domain/refund';
import { db, query, queryAll, tableName } from '#shared/store/client';
import { type Item, stripKeys } from '#shared/store/items';
import { ALL_WAITING_REFUNDS, allWaitingRefundsIndexKey, ENTITY, orderPartition, REFUND_PREFIX, refundKey, refundLinkKey, waitingRefundsIndexKey, waitingRefundsPartition } from '#shared/store/keys';

/** The refund's item: in the waiting lists (GSI1, GSI3) until it is SENT. */
export function refundToItem(refund: Refund): Item {
  const waiting = refund.status !== 'SENT';
  return {
    ...refundKey(refund.order_id, refund.refund_id),
    ...(waiting ? waitingRefundsIndexKey(refund.user_id, refund.created_at, refund.refund_id) : {}),
    ...(waiting ? allWaitingRefundsIndexKey(refund.created_at, refund.refund_id) : {}),
    type: ENTITY.refund,
    ...refund,
  };
}

export const refundFromItem = (item: Item): Refund => stripKeys<Refund>(item);

/**
 * The items a refund's write puts: the refund, and while its link may be used, the link's
 * pointer (the same content on every write; a pointer whose hash the refund no longer holds
 * leads nowhere).
 */
export function refundItems(refund: Refund): Item[] {
  const link = refund.link_hash ? [{ ...refundLinkKey(refund.link_hash), type: ENTITY.refundLink, order_id: refund.order_id, refund_id: refund.refund_id }] : [];
  return [refundToItem(refund), ...link];
}

/** One refund, read strongly consistent; undefined when the order has no such refund. */
export async function findRefund(orderId: string, refundId: string): Promise<Refund | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: refundKey(orderId, refundId), ConsistentRead: true }));
  return result.Item ? refundFromItem(result.Item) : undefined;
}

/** An order's refunds, oldest first (bounded by MAX_REFUNDS_PER_ORDER). */
export async function listRefunds(orderId: string): Promise<Refund[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': orderPartition(orderId), ':prefix': REFUND_PREFIX },
    ConsistentRead: true,
  });
  return items.map(refundFromItem);
}

/** The refund a link's secret hash points to (whether the link is still valid is the refund's to say). */
export async function findRefundByLinkHash(secretHash: string): Promise<Refund | undefined> {
  const pointer = await db().send(new GetCommand({ TableName: tableName(), Key: refundLinkKey(secretHash), ConsistentRead: true }));
  const item = pointer.Item;
  if (typeof item?.order_id !== 'string' || typeof item.refund_id !== 'string') return undefined;
  return findRefund(item.order_id, item.refund_id);
}

/** A merchant's refunds not sent yet, oldest first: one page of `limit`, after `after` (a GSI1SK). */
export async function listWaitingRefunds(userId: number, limit: number, after?: string): Promise<{ refunds: Refund[]; next?: string }> {
  const result = await query({
    IndexName: 'GSI1',
    KeyConditionExpression: after ? 'GSI1PK = :pk AND GSI1SK > :after' : 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': waitingRefundsPartition(userId), ...(after ? { ':after': after } : {}) },
    ScanIndexForward: true,
    Limit: limit,
  });
  const items = result.Items ?? [];
  const last = result.LastEvaluatedKey?.GSI1SK;
  return { refunds: items.map(refundFromItem), ...(typeof last === 'string' ? { next: last } : {}) };
}

/** How many refunds wait (every merchant) and since when the oldest has: the metric's reading. */
export async function waitingRefundsCensus(): Promise<{ count: number; oldestCreatedAt?: string }> {
  const items = await queryAll({
    IndexName: 'GSI3',
    KeyConditionExpression: 'GSI3PK = :pk',
    ExpressionAttributeValues: { ':pk': ALL_WAITING_REFUNDS },
    ProjectionExpression: 'GSI3SK',
  });
  const first = items[0]?.GSI3SK;
  return { count: items.length, ...(typeof first === 'string' ? { oldestCreatedAt: first.slice(0, first.indexOf('#')) } : {}) };
}
