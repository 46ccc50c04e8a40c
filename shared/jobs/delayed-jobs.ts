import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handleQueueBatch } from '#shared/aws/lambda-batches';
import { delaySeconds as sqsDelay, sqs } from '#shared/aws/sqs';
import { type Backoff, backoffDelay, SQS_LONGEST_WAIT_SECONDS } from '#shared/core/backoff';
import { publishMetrics } from '#shared/core/metrics';

/**
 * Durable delayed jobs on SQS, with retries and a dead-letter queue: the one pipeline the
 * callback deliveries (shared/callbacks/delivery-job.ts) and the emails (shared/email/sender.ts)
 * run on, each a {@link JobKind}. A job is a JSON message naming its attempt (how many tries were
 * made before it was sent). A message that arrives before its job is due is postponed (hidden
 * again, 12 hours per step at most), not run. A due job is tried once: done, or failed; a
 * failure is retried by a new message after the kind's backoff, until the kind's last attempt,
 * after which the job goes to the dead-letter queue (its alarm tells an operator). Everything a
 * kind records about its job (a table item, a metric) is its own, in its hooks.
 */

/** A job's queues: where its messages go, and where it goes after its last attempt (none: nowhere). */
export interface JobQueue {
  url(): string;
  deadLetterUrl(): string | undefined;
}

/** The fields every job message has. */
export interface QueuedJob {
  /** Tries already made when this message was sent. */
  attempt: number;
}

/** One try of a due job: done (also when there was nothing to try), or failed with the kind's account of it. */
export type JobTry<Failure> = { done: true } | { done: false; failure: Failure };

/** A job given up after its last attempt: its message on the dead-letter queue, with the reason. */
export interface DeadJob<Job, Subject> {
  job: Job;
  subject: Subject;
  reason: string;
}

/** When the next try of a failed job happens: `delaySeconds` after `finishedAt` (the try's end) or after `now` (the message's time). */
export interface RetryTime {
  delaySeconds: number;
  now: Date;
  finishedAt: Date;
}

/**
 * A kind of job. `Subject` is what one message's job acts on (a delivery read from the table, or
 * the message itself); `Failure` what a failed try tells the retry and the give-up.
 */
export interface JobKind<Job extends QueuedJob, Subject, Failure> {
  /** Named in the queue consumer's logs. */
  name: string;
  queue: JobQueue;
  /** Tries before the job is dead-lettered. */
  maxAttempts(): number;
  /** The waits between tries, in seconds (see {@link jobRetryDelay}). */
  backoff(): Backoff;
  /** What the job acts on, or undefined when there is nothing to do (a stale message, one handled here). */
  open(job: Job, now: Date): Promise<Subject | undefined>;
  /** When the job is due (ISO time), undefined: now. */
  dueAt(job: Job, subject: Subject): string | undefined;
  /** One try. Throwing keeps the message (it comes back after its visibility timeout) without counting a try. */
  attempt(job: Job, subject: Subject, now: Date): Promise<JobTry<Failure>>;
  /** The retry's delay, seconds, from the backoff's and the failure (a Retry-After lengthens it; an email sent but not recorded shortens it). */
  retryDelay?(delaySeconds: number, failure: Failure, finishedAt: Date): number;
  /** Records the failed try as retried; the next try's job, to be sent after the delay, or undefined for none. */
  retry(job: Job, subject: Subject, failure: Failure, at: RetryTime): Promise<Job | undefined>;
  /** After a retry's message was sent (or none was: see retry). */
  retried?(job: Job, failure: Failure, delaySeconds: number): void;
  /** Records the last failed try; the job to dead-letter, or undefined for none. */
  giveUp(job: Job, subject: Subject, failure: Failure, now: Date): Promise<DeadJob<Job, Subject> | undefined>;
  /** After the job was sent to the dead-letter queue. */
  deadLettered?(dead: DeadJob<Job, Subject>, now: Date): Promise<void> | void;
}

/** Sends a job to its queue, delayed by up to 15 minutes (SQS's most): a longer wait continues by postponing the message. */
export async function enqueueJob(queue: JobQueue, job: QueuedJob, delaySeconds = 0): Promise<void> {
  await sqs().send(new SendMessageCommand({ QueueUrl: queue.url(), MessageBody: JSON.stringify(job), DelaySeconds: sqsDelay(delaySeconds) }));
}

/** SQS takes at most this many messages a batch. */
const BATCH_MOST = 10;

/**
 * Sends many jobs to their queue, ten a request (due now). A job SQS refused in its batch is
 * sent once more on its own; failing again, it throws (the caller's claim on it ends, and it is
 * found again).
 */
export async function enqueueJobs(queue: JobQueue, jobs: readonly QueuedJob[]): Promise<void> {
  for (let start = 0; start < jobs.length; start += BATCH_MOST) {
    const batch = jobs.slice(start, start + BATCH_MOST);
    const result = await sqs().send(new SendMessageBatchCommand({ QueueUrl: queue.url(), Entries: batch.map((job, index) => ({ Id: String(index), MessageBody: JSON.stringify(job) })) }));
    for (const failed of result.Failed ?? []) await enqueueJob(queue, batch[Number(failed.Id)]!);
  }
}

/** Hides a received message for `seconds` (whole seconds, from 1 to 12 hours per step). */
async function postponeJob(queue: JobQueue, receiptHandle: string, seconds: number): Promise<void> {
  await sqs().send(new ChangeMessageVisibilityCommand({ QueueUrl: queue.url(), ReceiptHandle: receiptHandle, VisibilityTimeout: Math.max(1, Math.min(SQS_LONGEST_WAIT_SECONDS, Math.ceil(seconds))) }));
}

/** The job, with the reason, to its dead-letter queue (none set: not sent), then the kind's note of it. */
export async function deadLetterJob<Job extends QueuedJob, Subject, Failure>(kind: JobKind<Job, Subject, Failure>, dead: DeadJob<Job, Subject>, now: Date): Promise<void> {
  const url = kind.queue.deadLetterUrl();
  if (url) await sqs().send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify({ ...dead.job, reason: dead.reason }) }));
  await kind.deadLettered?.(dead, now);
}

/** The wait before retry `retry` (1: after the first failed try) on `schedule`, in whole seconds (SQS's unit), at least 1. */
export function jobRetryDelay(schedule: Backoff, retry: number, random: () => number = Math.random): number {
  return Math.max(1, Math.round(backoffDelay(schedule, retry, random)));
}

/**
 * One job of `kind`, from the message whose receipt is `receiptHandle`. Returns 'keep' when the
 * message must stay in the queue (postponed until the job is due), 'done' when it can be
 * deleted: tried, retried by a new message, dead-lettered, or nothing to do.
 */
export async function runJob<Job extends QueuedJob, Subject, Failure>(kind: JobKind<Job, Subject, Failure>, job: Job, receiptHandle: string, now: Date): Promise<'done' | 'keep'> {
  const subject = await kind.open(job, now);
  if (subject === undefined) return 'done';
  const due = kind.dueAt(job, subject);
  const dueIn = due === undefined ? 0 : (Date.parse(due) - now.getTime()) / 1000;
  if (dueIn > 1) {
    await postponeJob(kind.queue, receiptHandle, dueIn);
    return 'keep';
  }
  const tried = await kind.attempt(job, subject, now);
  if (tried.done) return 'done';
  const { failure } = tried;
  const retry = job.attempt + 1;
  const finishedAt = new Date();
  if (retry >= kind.maxAttempts()) {
    const dead = await kind.giveUp(job, subject, failure, now);
    if (dead) await deadLetterJob(kind, dead, now);
    return 'done';
  }
  const backoff = jobRetryDelay(kind.backoff(), retry);
  const delaySeconds = kind.retryDelay ? kind.retryDelay(backoff, failure, finishedAt) : backoff;
  const next = await kind.retry(job, subject, failure, { delaySeconds, now, finishedAt });
  if (next) await enqueueJob(kind.queue, next, delaySeconds);
  kind.retried?.(job, failure, delaySeconds);
  return 'done';
}

/** One queue message of `kind`: its job run (see runJob), then the metrics written. */
export async function processJobMessage<Job extends QueuedJob, Subject, Failure>(
  kind: JobKind<Job, Subject, Failure>,
  message: { body: string; receiptHandle: string },
  now: Date,
): Promise<'done' | 'keep'> {
  try {
    return await runJob(kind, JSON.parse(message.body) as Job, message.receiptHandle, now);
  } finally {
    publishMetrics();
  }
}

/** The queue consumer of `kind`'s messages: each one job (see processJobMessage), at the time it is handled. */
export function jobQueueHandler<Job extends QueuedJob, Subject, Failure>(kind: JobKind<Job, Subject, Failure>): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return (event) => handleQueueBatch(event, kind.name, (message) => processJobMessage(kind, message, new Date()));
}
