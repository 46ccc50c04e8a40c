import { flag, optionalString, positiveInteger, requiredString } from '#shared/env';

/**
 * Settings of the callback pipeline, read once at cold start by the functions that use it.
 * See README "Callbacks" for the schedule these produce.
 */
export const callbackConfig = {
  queueUrl: requiredString(process.env, 'CALLBACK_QUEUE_URL'),
  /** Where a callback goes after its last failed attempt (and an alarm fires). */
  deadLetterQueueUrl: optionalString(process.env, 'CALLBACK_DLQ_URL'),
  retryBaseSeconds: positiveInteger(process.env, 'CALLBACK_RETRY_BASE_SECONDS', 60),
  maxAttempts: positiveInteger(process.env, 'CALLBACK_MAX_ATTEMPTS', 16),
  timeoutMs: positiveInteger(process.env, 'CALLBACK_TIMEOUT_MS', 10_000),
  /** Only the local runtime turns this on, so merchants can test against localhost. */
  allowLoopback: flag(process.env, 'CALLBACK_ALLOW_LOOPBACK'),
  /** A PENDING delivery this far past due has lost its queue message: the sweeper re-queues it. */
  sweepGraceSeconds: positiveInteger(process.env, 'CALLBACK_SWEEP_GRACE_SECONDS', 300),
} as const;

/** Response bodies are read to this size at most (the merchant's answer is only logged). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * How long one worker holds a delivery while it posts: the POST's timeout plus time to record
 * the attempt, at least a minute. Shorter than the queue's visibility timeout (6 x the
 * delivery function's timeout, which is the POST's plus 5 s), so a crashed worker's message
 * comes back only after its lease is over.
 */
export const LEASE_SECONDS = Math.max(60, Math.ceil(callbackConfig.timeoutMs / 1000) + 30);
