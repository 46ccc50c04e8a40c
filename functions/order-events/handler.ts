import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { enqueueDelivery, type DeliveryJob } from '#shared/callbacks/queue';
import { isOutboxInsert } from '#shared/callbacks/stream-filter';
import { logger } from '#shared/http/logger';

/**
 * The first queue job of a delivery, straight from the stream's image of the inserted item (no
 * read of the table), or undefined when the delivery is not waiting for its first attempt.
 */
function firstJobOf(record: DynamoDBRecord): DeliveryJob | undefined {
  const image = unmarshall(record.dynamodb?.NewImage as Record<string, AttributeValue>);
  const { order_id: orderId, version, event_id: eventId, state, attempt_count: attempts } = image;
  if (typeof orderId !== 'string' || !Number.isInteger(version) || typeof eventId !== 'string' || !Number.isInteger(attempts)) {
    throw new Error(`stream record ${record.eventID} is not a delivery item`);
  }
  if (state !== 'PENDING' || attempts !== 0) return undefined;
  return { order_id: orderId, version, event_id: eventId, attempt: attempts };
}

/**
 * The table's stream, filtered by the event source mapping to the INSERT of callback delivery
 * items (OUTBOX_INSERT_PATTERN): each status change wrote its delivery in its own transaction,
 * and the delivery's insertion sends its first queue job. Nothing is read from the table. A
 * replayed record sends the job again; duplicate jobs for one attempt collapse when the delivery
 * worker claims the delivery. Records of different orders are handled concurrently, those of
 * one order in stream order. On a failure, that record and every record after it in the batch
 * are reported (ReportBatchItemFailures), so Lambda retries from there.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const byOrder = new Map<string, { index: number; record: DynamoDBRecord }[]>();
  event.Records.forEach((record, index) => {
    // A delivery's partition is its order's (PK ORDER#<order_id>, one SK per version).
    const key = record.dynamodb?.Keys?.PK?.S ?? `#${index}`;
    byOrder.set(key, [...(byOrder.get(key) ?? []), { index, record }]);
  });
  const failedAt = await Promise.all(
    [...byOrder.values()].map(async (records) => {
      for (const { index, record } of records) {
        try {
          // The mapping's filter already dropped everything else; a record it let through by
          // mistake (an edited filter) is skipped, not failed.
          const job = isOutboxInsert(record) ? firstJobOf(record) : undefined;
          if (job) await enqueueDelivery(job);
        } catch (error) {
          logger.error('order event failed', { error: error as Error, eventID: record.eventID });
          return index;
        }
      }
      return undefined;
    }),
  );
  const first = Math.min(...failedAt.filter((index): index is number => index !== undefined));
  if (!Number.isFinite(first)) return { batchItemFailures: [] };
  return {
    batchItemFailures: event.Records.slice(first).map((failed) => ({ itemIdentifier: failed.dynamodb?.SequenceNumber ?? '' })),
  };
};
