import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { handleStreamBatch } from '#shared/aws/lambda-batches';
import { queueFirstAttempt } from '#shared/callbacks/first-attempt';

/**
 * The table's stream, filtered by the event source mapping to the INSERT of callback delivery
 * items (OUTBOX_INSERT_PATTERN): each delivery inserted gets its first queue job.
 */
export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  handleStreamBatch(event, 'order event', queueFirstAttempt);
