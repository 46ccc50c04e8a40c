import type { DeliverySubject } from '#shared/domain/delivery';
import { callbackConfig } from '#shared/core/config';
import { enqueueJob, type JobQueue } from '#shared/jobs/delayed-jobs';

/**
 * A queue message names one attempt of one delivery (its subject: an order, or a subscription
 * for its events); a message for an older attempt is stale.
 */
export type DeliveryJob = DeliverySubject & {
  version: number;
  event_id: string;
  /** Attempts already made when this message was sent. */
  attempt: number;
};

/** The callback queue, and its dead-letter queue (its alarm tells an operator). */
export const callbackQueue: JobQueue = {
  url: () => callbackConfig().queueUrl,
  deadLetterUrl: () => callbackConfig().deadLetterQueueUrl,
};

export async function enqueueDelivery(job: DeliveryJob, delaySeconds = 0): Promise<void> {
  await enqueueJob(callbackQueue, job, delaySeconds);
}
