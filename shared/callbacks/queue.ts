import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { delaySeconds as sqsDelay, sqs } from '#shared/aws/sqs';
import { SQS_LONGEST_WAIT_SECONDS } from '#shared/core/backoff';
import { callbackConfig } from '#shared/core/config';

/** A queue message names one attempt of one delivery; a message for an older attempt is stale. */
export interface DeliveryJob {
  order_id: string;
  version: number;
  event_id: string;
  /** Attempts already made when this message was sent. */
  attempt: number;
}

export async function enqueueDelivery(job: DeliveryJob, delaySeconds = 0): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: callbackConfig().queueUrl,
      MessageBody: JSON.stringify(job),
      // SQS delays a message by at most 15 minutes; longer waits continue by message visibility.
      DelaySeconds: sqsDelay(delaySeconds),
    }),
  );
}

/** Hides a received message until its delivery is due (at most 12 hours per step). */
export async function postpone(receiptHandle: string, seconds: number): Promise<void> {
  await sqs().send(
    new ChangeMessageVisibilityCommand({
      QueueUrl: callbackConfig().queueUrl,
      ReceiptHandle: receiptHandle,
      VisibilityTimeout: Math.max(1, Math.min(SQS_LONGEST_WAIT_SECONDS, Math.ceil(seconds))),
    }),
  );
}

/** After the last attempt: the job goes to the dead-letter queue (its alarm tells an operator). */
export async function deadLetter(job: DeliveryJob, reason: string): Promise<void> {
  const deadLetterQueueUrl = callbackConfig().deadLetterQueueUrl;
  if (!deadLetterQueueUrl) return;
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: deadLetterQueueUrl,
      MessageBody: JSON.stringify({ ...job, reason }),
    }),
  );
}
