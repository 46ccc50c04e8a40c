import { emailConfig } from '#shared/core/config';
import type { EmailEvent } from '#shared/domain/email';
import { enqueueJob, type JobQueue } from '#shared/jobs/delayed-jobs';

/**
 * A message of the email queue: one event and how many times sending its emails failed. A retry
 * is a new message (attempt + 1) not to be processed before `not_before`.
 */
export interface EmailJob {
  event: EmailEvent;
  attempt: number;
  not_before?: string;
}

/** The email queue (unset: email is off), and its dead-letter queue (its alarm tells an operator). */
export const emailQueue: JobQueue = {
  url: () => {
    const url = emailConfig().queueUrl;
    if (!url) throw new Error('EMAIL_QUEUE_URL is not set: email is off');
    return url;
  },
  deadLetterUrl: () => emailConfig().deadLetterQueueUrl,
};

export async function enqueueEmailJob(job: EmailJob, delaySeconds = 0): Promise<void> {
  await enqueueJob(emailQueue, job, delaySeconds);
}
