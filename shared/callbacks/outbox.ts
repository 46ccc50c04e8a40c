import type { DynamoDBRecord } from 'aws-lambda';
import { filterPredicate, type FilterPattern } from '#shared/aws/lambda-event-filter';
import { callbackBody } from '#shared/callbacks/payload';
import { eventIdFor, type OrderDelivery } from '#shared/domain/delivery';
import { callsBackNow, type Order } from '#shared/domain/order';
import type { RefundNotice } from '#shared/domain/refund';
import { ENTITY } from '#shared/store/keys';

/**
 * The delivery a status change owes the merchant, or undefined when it owes none: a new
 * order, a write that kept the status (a checkout, a payment's confirmations), an order
 * without callback_url, or a status the merchant is not called for (by default only PAID is;
 * see CallbackStatuses). Written in the same transaction as the change (a transactional
 * outbox); the table stream's INSERT of it is what sends its first queue job (order-events).
 */
export function deliveryFor(before: Order | undefined, after: Order, now: Date, refunds?: readonly RefundNotice[]): OrderDelivery | undefined {
  if (!before || before.status === after.status || !after.callback_url || !callsBackNow(after)) return undefined;
  const eventId = eventIdFor(after.order_id, after.version);
  return {
    event_id: eventId,
    order_id: after.order_id,
    user_id: after.user_id,
    version: after.version,
    status: after.status,
    callback_url: after.callback_url,
    payload: JSON.stringify(callbackBody(after, eventId, refunds)),
    state: 'PENDING',
    attempt_count: 0,
    attempts: [],
    next_attempt_at: now.toISOString(),
    created_at: now.toISOString(),
  };
}

/**
 * The records order-events acts on: a callback delivery (the outbox item a status change writes
 * in its own transaction) being inserted. Order writes, invoices, an attempt being recorded on a
 * delivery (MODIFY) and everything else on the table never reach the function. The CDK event
 * source mapping (FilterCriteria) and the local stream poller both use this one pattern.
 */
export const OUTBOX_INSERT_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { type: { S: [ENTITY.delivery] } } },
} as const satisfies FilterPattern;

/** Whether a stream record is one order-events acts on (see {@link OUTBOX_INSERT_PATTERN}). */
export const isOutboxInsert: (record: DynamoDBRecord) => boolean = filterPredicate(OUTBOX_INSERT_PATTERN);
