import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { handleStreamBatch } from '#shared/aws/lambda-batches';
import { queueFirstAttempt } from '#shared/callbacks/first-attempt';
import { queueEmailEvent } from '#shared/email/events';

/**
 * The table's stream, filtered by the event source mapping to the INSERT of callback delivery
 * items (OUTBOX_INSERT_PATTERN) and, with email on, the records emails are made from
 * (EMAIL_EVENT_PATTERNS): each delivery inserted gets its first queue job, each email event a
 * job on the email queue. Both only send one queue message: neither reads the table.
 */
const handleRecord = async (record: DynamoDBRecord): Promise<void> => {
  await queueFirstAttempt(record);
  await queueEmailEvent(record);
};

export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => handleStreamBatch(event, 'order event', handleRecord);
