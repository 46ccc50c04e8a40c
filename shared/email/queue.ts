import { emailConfig } from '#shared/core/config';
import type { EmailEvent } from '#shared/domain/email';
import { enqueueJob, type JobQueue } from '#shared/jobs/delayed-jobs';

/**
 * A message of the email queue: one event and how many times sending its emails failed. A retry
 * is a new message (attempt + 1) not to be processed before `not_before`, naming the emails an
 * earlier try sent but could not record (`sent`): the retry records them and never sends them again.
 */
export interface EmailJob {
  event: EmailEvent;
  attempt: number;
  not_before?: string;
  sent?: SentEmail[];
}

/** An email sent under its claim's `lease` (the transport's `message_id`) whose SENT record is still to be written. */
export interface SentEmail {
  recipient: string;
  lease: string;
  message_id: string;
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
