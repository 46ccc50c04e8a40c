import { SQSClient } from '@aws-sdk/client-sqs';
import { sqsConfig } from '#shared/core/config';

let client: SQSClient | undefined;

/**
 * The one SQS client of the process, built on first use (up to 3 tries a call): it sends the
 * jobs and dead letters of the delayed-job pipeline (shared/jobs/delayed-jobs.ts: the callback
 * and the email queues) and postpones their messages (ChangeMessageVisibility); it sends the
 * watchers' steps (shared/watchers/ticks.ts). It receives none: Lambda's event source mappings
 * do in AWS, infra/local/queue-poller.ts (a client of its own) locally. SQS_ENDPOINT points it
 * at the emulator locally and in tests; unset on AWS.
 */
export function sqs(): SQSClient {
  const { endpoint } = sqsConfig();
  return (client ??= new SQSClient({ ...(endpoint ? { endpoint } : {}), maxAttempts: 3 }));
}

/** SQS delays a message by at most 15 minutes (DelaySeconds 0 to 900). */
export const MAX_DELAY_SECONDS = 900;

/** `seconds` as a DelaySeconds SQS takes: a whole number from 0 to 900. */
export const delaySeconds = (seconds: number): number => Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.ceil(seconds)));
