import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { handleStreamBatch } from '#shared/aws/lambda-batches';
import { queueFirstAttempt } from '#shared/callbacks/first-attempt';
import { queueEmailEvent } from '#shared/email/events';
import { queuePeriodOrderStep } from '#shared/services/renewal-queue';

/**
 * The table's stream, filtered by the event source mapping to the INSERT of callback delivery
 * items (OUTBOX_INSERT_PATTERN) and, with email on, the records emails are made from
 * (EMAIL_EVENT_PATTERNS), and a subscription's period order changing status
 * (PERIOD_ORDER_PATTERN): each delivery inserted gets its first queue job, each email event a
 * job on the email queue, each period order's change a renewal job. Each only sends one queue
 * message: none reads the table.
 */
const handleRecord = async (record: DynamoDBRecord): Promise<void> => {
  await queueFirstAttempt(record);
  await queueEmailEvent(record);
  await queuePeriodOrderStep(record);
};

export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => handleStreamBatch(event, 'order event', handleRecord);
