import { ChangeMessageVisibilityCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { delaySeconds as sqsDelay, sqs } from '#shared/aws/sqs';
import { SQS_LONGEST_WAIT_SECONDS } from '#shared/core/backoff';
import { emailConfig } from '#shared/core/config';
import type { EmailEvent } from '#shared/domain/email';

/**
 * A message of the email queue: one event and how many times sending its emails failed. A retry
 * is a new message (attempt + 1) not to be processed before `not_before`.
 */
export interface EmailJob {
  event: EmailEvent;
  attempt: number;
  not_before?: string;
}

const queueUrl = (): string => {
  const url = emailConfig().queueUrl;
  if (!url) throw new Error('EMAIL_QUEUE_URL is not set: email is off');
  return url;
};

export async function enqueueEmailJob(job: EmailJob, delaySeconds = 0): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl(), MessageBody: JSON.stringify(job), DelaySeconds: sqsDelay(delaySeconds) }));
}

/** Hides a received message until its retry is due (SQS delays a message by 15 minutes at most). */
export async function postponeEmailJob(receiptHandle: string, seconds: number): Promise<void> {
  await sqs().send(
    new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl(), ReceiptHandle: receiptHandle, VisibilityTimeout: Math.max(1, Math.min(SQS_LONGEST_WAIT_SECONDS, Math.ceil(seconds))) }),
  );
}

/** After the last attempt: the job goes to the dead-letter queue (its alarm tells an operator). */
export async function deadLetterEmailJob(job: EmailJob, reason: string): Promise<void> {
  const url = emailConfig().deadLetterQueueUrl;
  if (!url) return;
  await sqs().send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify({ ...job, reason }) }));
}
