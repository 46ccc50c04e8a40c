import type { Backoff } from '#shared/core/backoff';
import { logger } from '#shared/core/logger';
import { countMetric } from '#shared/core/metrics';
import { type JobKind, jobQueueHandler } from '#shared/jobs/delayed-jobs';
import { type RenewalJob, renewalQueue } from '#shared/services/renewal-queue';
import { stepSubscription } from '#shared/services/subscriptions';

/**
 * Subscription renewals: the third kind of durable job (beside callback deliveries and
 * emails). The every-minute sweep finds the subscriptions whose next step is due from the due
 * index (one Query a shard, never a scan), claims each (its due entry moves to the end of a
 * lease, on the condition that it is where the sweep found it, so two sweeps at once queue it
 * once) and queues a renewal job for it; the job takes the steps it owes
 * (services/subscriptions.ts stepSubscription: each a conditional write). A job that fails is
 * retried after its backoff and dead-lettered after its last attempt; the claim's lease ends
 * meanwhile and the sweep queues the subscription again, so nothing waits for an operator but
 * the alarm. A period's order changing to PAID, EXPIRED or CANCELED (the table's stream) queues
 * a job at once, so a payment makes its subscription active within seconds. The sweep's claims
 * and both ways of queueing are in renewal-queue.ts.
 */

/** Attempts of one renewal before its job is dead-lettered. */
const RENEWAL_ATTEMPTS = 6;
/** 10 s, 20 s, 40 s ... : a store or rate source back within minutes; the claim's lease brings it again after that. */
const RENEWAL_BACKOFF: Backoff = { base: 10, cap: 600, jitter: 'spread' };
const renewalJobs: JobKind<RenewalJob, RenewalJob, string> = {
  name: 'subscription renewal',
  queue: renewalQueue,
  maxAttempts: () => RENEWAL_ATTEMPTS,
  backoff: () => RENEWAL_BACKOFF,
  open: async (job) => job,
  dueAt: () => undefined,
  async attempt(job, _job, now) {
    try {
      await stepSubscription(job.subscription_id, now);
      return { done: true };
    } catch (error) {
      return { done: false, failure: (error as Error)?.message ?? String(error) };
    }
  },
  retry: async (job) => ({ subscription_id: job.subscription_id, attempt: job.attempt + 1 }),
  retried(job, reason, delay) {
    countMetric('RenewalRetried');
    logger.warn('subscription renewal failed, retried later', { subscription_id: job.subscription_id, attempt: job.attempt + 1, delay, reason });
  },
  giveUp: async (job, _job, reason) => ({ job, subject: job, reason }),
  deadLettered({ job, reason }) {
    countMetric('RenewalDeadLettered');
    logger.error('subscription renewal dead-lettered', { subscription_id: job.subscription_id, reason });
  },
};

/** The renewal queue's consumer (the renew-subscriptions function). */
export const renewalQueueHandler = jobQueueHandler(renewalJobs);
