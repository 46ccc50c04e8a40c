import type { Backoff } from '#shared/core/backoff';
import { logger } from '#shared/core/logger';
import { countMetric } from '#shared/core/metrics';
import { enqueueJobs, type JobKind, jobQueueHandler } from '#shared/jobs/delayed-jobs';
import { type RenewalJob, renewalQueue } from '#shared/services/renewal-queue';
import { stepSubscription } from '#shared/services/subscriptions';
import { claimDueSubscription, DUE_SHARDS, type DueSubscription, findDueSubscriptions } from '#shared/store/subscriptions';

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
 * a job at once (renewal-queue.ts), so a payment makes its subscription active within seconds.
 */

/** Attempts of one renewal before its job is dead-lettered. */
const RENEWAL_ATTEMPTS = 6;
/** 10 s, 20 s, 40 s ... : a store or rate source back within minutes; the claim's lease brings it again after that. */
const RENEWAL_BACKOFF: Backoff = { base: 10, cap: 600, jitter: 'spread' };
/** How long a claimed subscription waits for its job before a sweep queues it again. */
export const CLAIM_LEASE_MS = 15 * 60_000;

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

/** How many due subscriptions one sweep claims at most (a shard's pages are read until then); the next minute's sweep goes on. */
const SWEEP_MOST = 50_000;
const PAGE = 500;
const CLAIMS_AT_ONCE = 16;

/**
 * Claims and queues every subscription due at `now` (up to SWEEP_MOST a run). Answers the ids
 * queued. A claim whose job could not be sent is due again when its lease ends.
 */
export async function queueDueSubscriptions(now: Date): Promise<string[]> {
  const leaseUntil = new Date(now.getTime() + CLAIM_LEASE_MS);
  const queued: string[] = [];
  await Promise.all(
    Array.from({ length: DUE_SHARDS }, async (_, shard) => {
      let after: Record<string, unknown> | undefined;
      do {
        const page = await findDueSubscriptions(shard, now, PAGE, after);
        after = page.next;
        const claimed = await claimAll(page.due, leaseUntil);
        await enqueueJobs(
          renewalQueue,
          claimed.map((subscriptionId) => ({ subscription_id: subscriptionId, attempt: 0 })),
        );
        queued.push(...claimed);
      } while (after && queued.length < SWEEP_MOST);
    }),
  );
  return queued;
}

/** The due subscriptions this sweep claimed (another sweep's or a step's are skipped). */
async function claimAll(due: DueSubscription[], leaseUntil: Date): Promise<string[]> {
  const claimed: string[] = [];
  for (let start = 0; start < due.length; start += CLAIMS_AT_ONCE) {
    const slice = due.slice(start, start + CLAIMS_AT_ONCE);
    const outcomes = await Promise.all(slice.map((entry) => claimDueSubscription(entry, leaseUntil)));
    slice.forEach((entry, index) => outcomes[index] && claimed.push(entry.subscriptionId));
  }
  return claimed;
}
