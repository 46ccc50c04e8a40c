import type { DynamoDBRecord } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { subscriptionConfig } from '#shared/core/config';
import { type FilterPattern, filterPredicate } from '#shared/aws/lambda-event-filter';
import { enqueueJobs, type JobQueue } from '#shared/jobs/delayed-jobs';
import { ENTITY } from '#shared/store/keys';

/**
 * The subscription renewal queue and what the table's stream queues on it: apart from the
 * renewal job itself (subscription-renewals.ts), so order-events, which only sends, carries none
 * of the steps' table calls in its bundle.
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
