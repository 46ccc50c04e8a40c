import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Delivery, DeliveryAttempt, DeliveryState, DeliverySubject, OrderDelivery } from '#shared/domain/delivery';
import { eventIdOf, MAX_LOGGED_ATTEMPTS, subjectOf } from '#shared/domain/delivery';
import { db, query, tableName } from '#shared/store/client';
import { type Condition, putIf, updateIf } from '#shared/store/conditional';
import { DELIVERY_PREFIX, deliveryKey, deliverySubjectOfPartition, ENTITY, OUTBOX_SHARDS, outboxIndexKey, outboxPartition } from '#shared/store/keys';

type Item = Record<string, unknown>;

/**
 * The delivery as a table item. Its subject's id (order or subscription) and version are its
 * key, and its event id is made of them (eventIdOf): they are not stored again (about 100 bytes, which keep a typical delivery
 * under 1 KB: one write unit, two in the status change's transaction). Only deliveries still to
 * make are in the outbox index (where the sweeper looks).
 */
export function deliveryToItem(delivery: Delivery): Item {
  const { event_id: _event, order_id: _order, subscription_id: _subscription, version: _version, ...rest } = delivery;
  return {
    ...deliveryKey(subjectOf(delivery), delivery.version),
    ...(delivery.state === 'PENDING' ? outboxIndexKey(delivery.order_id ?? delivery.subscription_id, delivery.next_attempt_at, delivery.event_id) : {}),
    type: ENTITY.delivery,
    ...rest,
  };
}

/** The delivery a table item (or a stream image of one) holds; an item written before the ids were left out keeps its own. */
export function deliveryFromItem(item: Item): Delivery {
  const { PK, SK, GSI3PK: _g, GSI3SK: _s, type: _t, ...stored } = item;
  const subject = deliverySubjectOfPartition(String(PK));
  const version = Number(String(SK).slice(DELIVERY_PREFIX.length));
  return { event_id: eventIdOf(subject, version), ...subject, version, ...stored } as unknown as Delivery;
}

/** The delivery of an order's version (`orderId`), or of a subject's. */
export async function findDelivery(subject: string | DeliverySubject, version: number): Promise<Delivery | undefined> {
  const key = deliveryKey(typeof subject === 'string' ? { order_id: subject } : subject, version);
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return result.Item ? deliveryFromItem(result.Item) : undefined;
}

/**
 * Takes the delivery for one attempt: only if it is still PENDING at the attempt count the
 * queue message was for, and nobody else holds it. Returns the lease time, or undefined.
 */
export async function claimDelivery(delivery: Delivery, now: Date, leaseSeconds: number): Promise<string | undefined> {
  const leaseUntil = new Date(now.getTime() + leaseSeconds * 1000).toISOString();
  const claimed = await updateIf(deliveryKey(subjectOf(delivery), delivery.version), {
    UpdateExpression: 'SET lease_until = :lease',
    ConditionExpression: '#state = :pending AND attempt_count = :count AND (attribute_not_exists(lease_until) OR lease_until < :now)',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':lease': leaseUntil, ':pending': 'PENDING', ':count': delivery.attempt_count, ':now': now.toISOString() },
  });
  return claimed ? leaseUntil : undefined;
}

/**
 * Writes the outcome of an attempt, conditional on still holding the lease taken for it:
 * the attempt is logged, the count bumped, the state and next attempt time set, the lease
 * released. Returns the delivery as written, or undefined if the lease was lost.
 */
export async function recordAttempt(
  delivery: Delivery,
  leaseUntil: string,
  attempt: DeliveryAttempt,
  next: { state: DeliveryState; nextAttemptAt: string; deliveredAt?: string },
): Promise<Delivery | undefined> {
  const { lease_until: _lease, ...rest } = delivery;
  const updated: Delivery = {
    ...rest,
    state: next.state,
    attempt_count: delivery.attempt_count + 1,
    attempts: [...delivery.attempts, attempt].slice(-MAX_LOGGED_ATTEMPTS),
    next_attempt_at: next.nextAttemptAt,
    ...(next.deliveredAt ? { delivered_at: next.deliveredAt } : {}),
  };
  return putDeliveryIf(updated, {
    ConditionExpression: 'lease_until = :lease AND attempt_count = :count',
    ExpressionAttributeValues: { ':lease': leaseUntil, ':count': delivery.attempt_count },
  });
}

/** Writes `delivery` if `condition` holds: the delivery as written, or undefined if it did not. */
async function putDeliveryIf(delivery: Delivery, condition: Condition): Promise<Delivery | undefined> {
  return (await putIf(deliveryToItem(delivery), condition)).written ? delivery : undefined;
}

/** The order's callback log, oldest first. */
export const listDeliveries = (orderId: string): Promise<OrderDelivery[]> => deliveriesOf({ order_id: orderId }) as Promise<OrderDelivery[]>;

/** A subject's deliveries (an order's callbacks, a subscription's events), oldest first. */
export async function deliveriesOf(subject: DeliverySubject): Promise<Delivery[]> {
  const { PK } = deliveryKey(subject, 0);
  const result = await query({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': PK, ':prefix': DELIVERY_PREFIX },
    ConsistentRead: true,
  });
  return (result.Items ?? []).map(deliveryFromItem);
}

/**
 * Makes a delivery due again from its first attempt (a merchant's redelivery request, or an
 * operator's redrive from the dead-letter queue). Conditional on the delivery being as it was
 * read and held by no worker: undefined when a worker is posting it or has just recorded an
 * attempt. Queue messages for its older attempts become stale and are dropped when they arrive.
 */
export async function resetDelivery(delivery: Delivery, now: Date): Promise<Delivery | undefined> {
  const { lease_until: _lease, dead_lettered_at: _dead, ...rest } = delivery;
  const reset: Delivery = { ...rest, state: 'PENDING', attempt_count: 0, next_attempt_at: now.toISOString() };
  return putDeliveryIf(reset, {
    ConditionExpression: '#state = :state AND attempt_count = :count AND (attribute_not_exists(lease_until) OR lease_until < :now)',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':state': delivery.state, ':count': delivery.attempt_count, ':now': now.toISOString() },
  });
}

/** Notes that a FAILED delivery's job reached the dead-letter queue. */
export async function markDeadLettered(delivery: Delivery, now: Date): Promise<void> {
  // Refused when it was redelivered in the meantime: nothing left to note.
  await updateIf(deliveryKey(subjectOf(delivery), delivery.version), {
    UpdateExpression: 'SET dead_lettered_at = :now',
    ConditionExpression: '#state = :failed AND attempt_count = :count',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':now': now.toISOString(), ':failed': 'FAILED', ':count': delivery.attempt_count },
  });
}

/**
 * PENDING deliveries due before `before` (their queue message may be lost), oldest first. The
 * outbox index holds keys only: each one found is read from the table (consistently; a sweep
 * finds few, usually none).
 */
export async function findOverdueDeliveries(before: Date, limit: number): Promise<Delivery[]> {
  const found: Delivery[] = [];
  for (let shard = 0; shard < OUTBOX_SHARDS; shard += 1) {
    const result = await query({
      IndexName: 'GSI3',
      KeyConditionExpression: 'GSI3PK = :pk AND GSI3SK < :before',
      ExpressionAttributeValues: { ':pk': outboxPartition(shard), ':before': `${before.toISOString()}#~` },
      Limit: limit,
    });
    const items = await Promise.all((result.Items ?? []).map((key) => db().send(new GetCommand({ TableName: tableName(), Key: { PK: key.PK, SK: key.SK }, ConsistentRead: true }))));
    // Delivered (or reset) between the index read and the item read: no longer overdue.
    for (const { Item } of items) if (Item && Item.state === 'PENDING') found.push(deliveryFromItem(Item));
  }
  return found;
}

/** Marks a re-queue (once per grace period), so overlapping sweeps enqueue it once. */
export function markRequeued(delivery: Delivery, now: Date, notSince: Date): Promise<boolean> {
  return updateIf(deliveryKey(subjectOf(delivery), delivery.version), {
    UpdateExpression: 'SET requeued_at = :now',
    ConditionExpression: '#state = :pending AND attempt_count = :count AND (attribute_not_exists(requeued_at) OR requeued_at < :since)',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':now': now.toISOString(), ':pending': 'PENDING', ':count': delivery.attempt_count, ':since': notSince.toISOString() },
  });
}
