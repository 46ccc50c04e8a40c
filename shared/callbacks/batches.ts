import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '#shared/core/logger';

/**
 * A table stream batch (ReportBatchItemFailures): records of different partitions (orders)
 * are handled concurrently, those of one partition in stream order. On a failure, that record
 * and every record after it in the batch are reported, so Lambda retries from there; `handle`
 * must therefore be idempotent (records after it that did succeed are repeated).
 */
export async function handleStreamBatch(
  event: DynamoDBStreamEvent,
  what: string,
  handle: (record: DynamoDBRecord) => Promise<void>,
): Promise<DynamoDBBatchResponse> {
  const byPartition = new Map<string, { index: number; record: DynamoDBRecord }[]>();
  event.Records.forEach((record, index) => {
    const key = record.dynamodb?.Keys?.PK?.S ?? `#${index}`;
    byPartition.set(key, [...(byPartition.get(key) ?? []), { index, record }]);
  });
  const failedAt = await Promise.all(
    [...byPartition.values()].map(async (records) => {
      for (const { index, record } of records) {
        try {
          await handle(record);
        } catch (error) {
          logger.error(`${what} failed`, { error: error as Error, eventID: record.eventID });
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
}

/**
 * A queue batch (ReportBatchItemFailures): messages are handled concurrently. Messages to keep
 * (`handle` answers 'keep', or it failed) are reported and come back after their visibility
 * timeout; every other message is deleted.
 */
export async function handleQueueBatch(
  event: SQSEvent,
  what: string,
  handle: (record: SQSRecord) => Promise<'keep' | 'done'>,
): Promise<SQSBatchResponse> {
  const kept = await Promise.all(
    event.Records.map(async (record) => {
      try {
        return (await handle(record)) === 'keep' ? record.messageId : undefined;
      } catch (error) {
        logger.error(`${what} failed`, { error: error as Error, messageId: record.messageId });
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: kept.filter((id): id is string => id !== undefined).map((itemIdentifier) => ({ itemIdentifier })) };
}
