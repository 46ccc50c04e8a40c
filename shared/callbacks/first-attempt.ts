import type { DynamoDBRecord } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { enqueueDelivery, type DeliveryJob } from '#shared/callbacks/queue';
import { isOutboxInsert } from '#shared/callbacks/outbox';
import { subjectOf } from '#shared/domain/delivery';
import { deliveryFromItem } from '#shared/store/deliveries';

/**
 * The first queue job of a delivery, straight from the stream's image of the inserted item (no
 * read of the table), or undefined when the delivery is not waiting for its first attempt.
 */
function firstJobOf(record: DynamoDBRecord): DeliveryJob | undefined {
  const image = unmarshall(record.dynamodb?.NewImage as Record<string, AttributeValue>);
  if (typeof image.PK !== 'string' || typeof image.SK !== 'string') throw new Error(`stream record ${record.eventID} is not a delivery item`);
  const delivery = deliveryFromItem(image);
  const { version, event_id: eventId, state, attempt_count: attempts } = delivery;
  const subject = subjectOf(delivery);
  if (typeof (subject.order_id ?? subject.subscription_id) !== 'string' || !Number.isInteger(version) || typeof eventId !== 'string' || !Number.isInteger(attempts)) {
    throw new Error(`stream record ${record.eventID} is not a delivery item`);
  }
  if (state !== 'PENDING' || attempts !== 0) return undefined;
  return { ...subject, version, event_id: eventId, attempt: attempts };
}

/**
 * One stream record of the table: the insertion of a callback delivery (the outbox item each
 * status change writes in its own transaction) sends its first queue job. Nothing is read from
 * the table. A replayed record sends the job again; duplicate jobs for one attempt collapse
 * when the delivery worker claims the delivery. The mapping's filter already dropped every
 * other record; one it let through by mistake (an edited filter) is skipped, not failed.
 */
export async function queueFirstAttempt(record: DynamoDBRecord): Promise<void> {
  const job = isOutboxInsert(record) ? firstJobOf(record) : undefined;
  if (job) await enqueueDelivery(job);
}
