import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '#shared/core/logger';

/**
 * Partial batch responses (ReportBatchItemFailures) through Powertools' batch processor: it
 * runs the record handler on every record concurrently and reports the records whose handler
 * threw. What is ours is the order and the meaning: see each function. A processor holds one
 * batch's results, so each batch gets its own (the local runtime may run batches at once).
 */

/**
 * Every record is reported when all fail, instead of Powertools' default of throwing: a queue
 * batch whose messages all wait for their due time is not an error of the function.
 */
const OPTIONS = { throwOnFullBatchFailure: false } as const;

/** The record failed before, or waits behind a record of its partition that failed. */
class HeldBack extends Error {}

/**
 * A table stream batch: records of different partitions (orders) are handled concurrently,
 * those of one partition in stream order (each waits for the one before it, and is held back
 * if that one failed). On a failure, that record and every record after it in the batch are
 * reported, so Lambda retries from there; `handle` must therefore be idempotent (records after
 * it that did succeed are repeated).
 */
export async function handleStreamBatch(event: DynamoDBStreamEvent, what: string, handle: (record: DynamoDBRecord) => Promise<void>): Promise<DynamoDBBatchResponse> {
  const last = new Map<string, Promise<void>>();
  const partitionOf = (record: DynamoDBRecord): string => record.dynamodb?.Keys?.PK?.S ?? `#${record.eventID ?? ''}`;
  const inOrder = (record: DynamoDBRecord): Promise<void> => {
    const key = partitionOf(record);
    const mine = (last.get(key) ?? Promise.resolve()).then(
      () => handleLogged(record),
      () => Promise.reject(new HeldBack(`${what}: held back behind a failed record of its partition`)),
    );
    last.set(key, mine);
    return mine;
  };
  const handleLogged = async (record: DynamoDBRecord): Promise<void> => {
    try {
      await handle(record);
    } catch (error) {
      logger.error(`${what} failed`, { error: error as Error, eventID: record.eventID });
      throw error;
    }
  };
  const { batchItemFailures } = await processPartialResponse(event, inOrder, new BatchProcessor(EventType.DynamoDBStreams), OPTIONS);
  const failed = new Set(batchItemFailures.map((failure) => failure.itemIdentifier));
  const first = event.Records.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? ''));
  if (first === -1) return { batchItemFailures: [] };
  return {
    batchItemFailures: event.Records.slice(first).map((record) => ({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' })),
  };
}

/** The message is to stay in the queue (the handler answered 'keep'): reported, not logged. */
class Keep extends Error {}

/**
 * A queue batch: messages are handled concurrently. Messages to keep (`handle` answers 'keep',
 * or it failed) are reported and come back after their visibility timeout; every other message
 * is deleted.
 */
export async function handleQueueBatch(event: SQSEvent, what: string, handle: (record: SQSRecord) => Promise<'keep' | 'done'>): Promise<SQSBatchResponse> {
  const handleOne = async (record: SQSRecord): Promise<void> => {
    let answer: 'keep' | 'done';
    try {
      answer = await handle(record);
    } catch (error) {
      logger.error(`${what} failed`, { error: error as Error, messageId: record.messageId });
      throw error;
    }
    if (answer === 'keep') throw new Keep(record.messageId);
  };
  const { batchItemFailures } = await processPartialResponse(event, handleOne, new BatchProcessor(EventType.SQS), OPTIONS);
  return { batchItemFailures: batchItemFailures.map(({ itemIdentifier }) => ({ itemIdentifier })) };
}
