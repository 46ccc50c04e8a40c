import type { DynamoDBRecord } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { subscriptionConfig } from '#shared/core/config';
import { type FilterPattern, filterPredicate } from '#shared/aws/lambda-event-filter';
import { enqueueJobs, type JobQueue } from '#shared/jobs/delayed-jobs';
import { ENTITY } from '#shared/store/keys';
import { claimDueSubscription, DUE_SHARDS, type DueSubscription, findDueSubscriptions } from '#shared/store/subscriptions';

/**
 * The subscription renewal queue and what queues jobs on it (the table's stream, the minute
 * sweep): apart from the renewal job itself (subscription-renewals.ts), so order-events and
 * expire-orders, which only send, carry none of the steps' table calls nor the job pipeline's
 * consumer calls in their bundles.
 */

/** One renewal job: a subscription's steps (shared/services/subscription-renewals.ts). */
export interface RenewalJob {
  subscription_id: string;
  attempt: number;
}

export const renewalQueue: JobQueue = {
  url: () => subscriptionConfig().queueUrl,
  deadLetterUrl: () => subscriptionConfig().deadLetterQueueUrl,
};

/** A period order's status write that its subscription acts on (the handler keeps only changes of status). */
export const PERIOD_ORDER_PATTERN = {
  eventName: ['MODIFY'],
  dynamodb: { NewImage: { type: { S: [ENTITY.order] }, billed_by: { S: ['SUBSCRIPTION'] }, status: { S: ['PAID', 'EXPIRED', 'CANCELED'] } } },
} as const satisfies FilterPattern;

const matchesPeriodOrder = filterPredicate(PERIOD_ORDER_PATTERN);
export const isPeriodOrderRecord = (record: DynamoDBRecord): boolean => matchesPeriodOrder(record);

/** From the table's stream: a period order whose status changed to one its subscription acts on queues a renewal job at once. */
export async function queuePeriodOrderStep(record: DynamoDBRecord): Promise<void> {
  if (!isPeriodOrderRecord(record)) return;
  const image = (raw: unknown) => (raw ? unmarshall(raw as Record<string, AttributeValue>) : undefined);
  const next = image(record.dynamodb?.NewImage);
  const old = image(record.dynamodb?.OldImage);
  if (!next?.subscription_id || old?.status === next.status) return;
  const job: RenewalJob = { subscription_id: String(next.subscription_id), attempt: 0 };
  await enqueueJobs(renewalQueue, [job]);
}

/** How long a claimed subscription waits for its job before a sweep queues it again. */
export const CLAIM_LEASE_MS = 15 * 60_000;

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
