import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { DeliveryJob } from '#shared/callbacks/queue';
import { logger } from '#shared/http/logger';
import { processDeliveryJob } from '#shared/services/callbacks';

/**
 * The callback queue: each message is one attempt of one delivery, handled concurrently.
 * Messages to keep (postponed, or failed to process) are reported as batch item failures and
 * come back after their visibility timeout; every other message is deleted.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const results = await Promise.all(
    event.Records.map(async (record) => {
      try {
        const job = JSON.parse(record.body) as DeliveryJob;
        return (await processDeliveryJob(job, record.receiptHandle, new Date())) === 'keep' ? record.messageId : undefined;
      } catch (error) {
        logger.error('callback delivery failed', { error: error as Error, messageId: record.messageId });
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: results.filter((id): id is string => id !== undefined).map((itemIdentifier) => ({ itemIdentifier })) };
};
