import { leaseSeconds, MAX_RESPONSE_BYTES } from '#shared/callbacks/config';
import { ExpiringCache } from '#shared/core/cache';
import { callbackConfig, callbackUrlConfig } from '#shared/core/config';
import { countMetric } from '#shared/core/metrics';
import { postJson, CallbackTransportError } from '#shared/callbacks/http-post';
import { callbackQueue, enqueueDelivery, type DeliveryJob } from '#shared/callbacks/queue';
import { CALLBACK_BACKOFF, withRetryAfter } from '#shared/callbacks/schedule';
import { webhookHeaders } from '#shared/callbacks/signing';
import { type Delivery, type DeliveryAttempt, LOGGED_RESPONSE_CHARS, type OrderDelivery, subjectOf } from '#shared/domain/delivery';
import { CallbackInProgressError, NoCallbackError } from '#shared/domain/errors';
import { type Merchant, type MerchantProfile, signingSecrets } from '#shared/domain/merchant';
import { logger } from '#shared/core/logger';
import { findMerchant } from '#shared/store/merchants';
import { claimDelivery, findDelivery, findOverdueDeliveries, listDeliveries, markDeadLettered, markRequeued, recordAttempt, resetDelivery } from '#shared/store/deliveries';
import { ownedOrderId } from '#shared/callbacks/callback-log';
import { type DeadJob, deadLetterJob, type JobKind, processJobMessage, runJob } from '#shared/jobs/delayed-jobs';

const jobOf = (delivery: Delivery): DeliveryJob => ({
  ...subjectOf(delivery),
  version: delivery.version,
  event_id: delivery.event_id,
  attempt: delivery.attempt_count,
});

/**
 * Merchants' signing secrets: a worker delivering many callbacks of one merchant reads them
 * every few seconds, not once per attempt. A rolled secret signs callbacks within
 * SECRET_CACHE_MS, the old one beside it for the roll's overlap: a merchant who moves its
 * server to the new secret a few seconds after the roll loses no callback.
 */
export const SECRET_CACHE_MS = 5_000;
const secrets = new ExpiringCache<number, SigningSecrets>({ maxEntries: 1_000, maxAgeMs: SECRET_CACHE_MS });

type SigningSecrets = Pick<Merchant, 'callback_secret' | 'previous_callback_secret' | 'previous_callback_secret_until'>;

async function secretsOf(userId: number, now: Date): Promise<string[]> {
  const merchant = await secrets.getOrLoad(userId, () => findMerchant(userId));
  if (!merchant) throw new Error(`merchant ${userId} of a delivery does not exist`);
  return signingSecrets(merchant, now);
}

type Outcome = { kind: 'delivered'; attempt: DeliveryAttempt } | { kind: 'stop'; attempt: DeliveryAttempt } | { kind: 'retry'; attempt: DeliveryAttempt; retryAfter?: string };

/** A failed attempt, as the retry and the give-up record it: under the delivery's lease. */
interface FailedAttempt {
  lease: string;
  attempt: DeliveryAttempt;
  retryAfter?: string;
}

/** One POST of the delivery's frozen body, signed for this attempt's timestamp. */
async function post(delivery: Delivery, secrets: readonly string[], now: Date): Promise<Outcome> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const at = now.toISOString();
  try {
    const response = await postJson(delivery.callback_url, {
      body: delivery.payload,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'crypto-pay-orders-callbacks/1.0',
        ...webhookHeaders(secrets, delivery.event_id, timestamp, delivery.payload),
      },
      timeoutMs: callbackConfig().timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      allowLoopback: callbackUrlConfig().allowLoopback,
    });
    const logged: DeliveryAttempt = {
      at,
      http_status: response.status,
      latency_ms: Math.round(response.latencyMs),
      ...(response.body ? { response: response.body.slice(0, LOGGED_RESPONSE_CHARS) } : {}),
    };
    if (response.status >= 200 && response.status < 300) return { kind: 'delivered', attempt: logged };
    // 410 Gone: the merchant asks us to stop (Standard Webhooks). 3xx is a failure, never followed.
    if (response.status === 410) return { kind: 'stop', attempt: logged };
    const retryAfter = response.headers['retry-after'];
    return { kind: 'retry', attempt: logged, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
  } catch (error) {
    const latency = Date.now() - now.getTime();
    if (!(error instanceof CallbackTransportError)) throw error;
    logger.warn('callback attempt failed', { kind: error.kind, code: error.code, eventId: delivery.event_id });
    const logged = { at, latency_ms: latency, error: `${error.kind}: ${error.message}` };
    // A forbidden address (the name now resolves into a private network) is retried like any
    // failure: DNS may change back, and after the last attempt it is dead-lettered (an alarm)
    // instead of stopping quietly. Only the merchant's 410 stops the retries.
    return { kind: 'retry', attempt: logged };
  }
}

/**
 * Callback deliveries as jobs of the delayed-job pipeline: a job names one attempt of one
 * delivery, which the table holds (its state, attempt count and due time). A job for another
 * attempt, or a delivery no longer PENDING, is stale; duplicate jobs for one attempt (a replayed
 * stream record, a sweep) collapse at the attempt count check or at the claim: only one claims
 * the delivery. A 2xx delivers it, the merchant's 410 stops it; any other answer or a transport
 * failure is retried on the callbacks' schedule (lengthened to the merchant's Retry-After), and
 * after the last attempt the delivery is FAILED and dead-lettered.
 */
const callbackDeliveries: JobKind<DeliveryJob, Delivery, FailedAttempt> = {
  name: 'callback delivery',
  queue: callbackQueue,
  maxAttempts: () => callbackConfig().maxAttempts,
  backoff: () => ({ ...CALLBACK_BACKOFF, base: callbackConfig().retryBaseSeconds }),
  async open(job, now) {
    const delivery = await findDelivery(job.subscription_id !== undefined ? { subscription_id: job.subscription_id } : { order_id: job.order_id }, job.version);
    if (delivery?.state === 'FAILED') {
      await failedDeliveryJob(delivery, job, now);
      return undefined;
    }
    if (!delivery || delivery.state !== 'PENDING' || delivery.attempt_count !== job.attempt) return undefined;
    return delivery;
  },
  dueAt: (_job, delivery) => delivery.next_attempt_at,
  async attempt(_job, delivery, now) {
    const lease = await claimDelivery(delivery, now, leaseSeconds());
    if (!lease) return { done: true };
    const outcome = await post(delivery, await secretsOf(delivery.user_id, now), now);
    if (outcome.kind === 'delivered') {
      await recordAttempt(delivery, lease, outcome.attempt, { state: 'DELIVERED', nextAttemptAt: delivery.next_attempt_at, deliveredAt: new Date().toISOString() });
      countMetric('CallbackDelivered');
      return { done: true };
    }
    if (outcome.kind === 'stop') {
      await recordAttempt(delivery, lease, outcome.attempt, { state: 'STOPPED', nextAttemptAt: delivery.next_attempt_at });
      countMetric('CallbackStopped');
      return { done: true };
    }
    return { done: false, failure: { lease, attempt: outcome.attempt, ...(outcome.retryAfter !== undefined ? { retryAfter: outcome.retryAfter } : {}) } };
  },
  retryDelay: (delay, failure, finishedAt) => withRetryAfter(delay, failure.retryAfter, finishedAt),
  async retry(_job, delivery, failure, { delaySeconds, finishedAt }) {
    const nextAttemptAt = new Date(finishedAt.getTime() + delaySeconds * 1000).toISOString();
    const written = await recordAttempt(delivery, failure.lease, failure.attempt, { state: 'PENDING', nextAttemptAt });
    return written ? jobOf(written) : undefined;
  },
  retried: () => countMetric('CallbackAttemptFailed'),
  async giveUp(_job, delivery, failure) {
    const written = await recordAttempt(delivery, failure.lease, failure.attempt, { state: 'FAILED', nextAttemptAt: delivery.next_attempt_at });
    return written ? deadJobOf(written) : undefined;
  },
  async deadLettered({ subject: delivery }, now) {
    await markDeadLettered(delivery, now);
    countMetric('CallbackDeadLettered');
  },
};

/** One message of the callback queue: its job, processed (see processDeliveryJob); its metrics written. */
export async function processDeliveryMessage(message: { body: string; receiptHandle: string }, now: Date): Promise<'done' | 'keep'> {
  return processJobMessage(callbackDeliveries, message, now);
}

/**
 * The delivery side, for one queue job. Returns 'keep' when the message must stay in the queue
 * (postponed until its delivery is due), 'done' when it can be deleted: delivered, stopped,
 * dead-lettered, rescheduled with a new message, or stale (another message carries it).
 */
export async function processDeliveryJob(job: DeliveryJob, receiptHandle: string, now: Date): Promise<'done' | 'keep'> {
  return runJob(callbackDeliveries, job, receiptHandle, now);
}

/** The reason a FAILED delivery is dead-lettered: its last attempt's error or HTTP status. */
function failureReason(delivery: Delivery): string {
  const last = delivery.attempts.at(-1);
  return last?.error ?? (last?.http_status !== undefined ? `HTTP ${last.http_status}` : 'failed');
}

/** The FAILED delivery's job as the dead-letter queue gets it. */
const deadJobOf = (delivery: Delivery): DeadJob<DeliveryJob, Delivery> => ({ job: jobOf(delivery), subject: delivery, reason: failureReason(delivery) });

/**
 * A job for a FAILED delivery. The message of its last attempt, back because dead-lettering
 * failed after FAILED was written: dead-letter it now. A message an operator redrove from the
 * dead-letter queue (its attempt is the final count): the delivery starts over, as a
 * redelivery does. Anything else is stale.
 */
async function failedDeliveryJob(delivery: Delivery, job: DeliveryJob, now: Date): Promise<void> {
  if (!delivery.dead_lettered_at && job.attempt === delivery.attempt_count - 1) {
    await deadLetterJob(callbackDeliveries, deadJobOf(delivery), now);
  } else if (delivery.dead_lettered_at && job.attempt === delivery.attempt_count) {
    const reset = await resetDelivery(delivery, now);
    if (reset) await enqueueDelivery(jobOf(reset));
  }
}

/**
 * Re-queues deliveries whose queue message was lost (a crash, a restart of the local
 * emulator): PENDING, past due by more than `graceSeconds`, not re-queued within it.
 */
export async function sweepDeliveries(now: Date, graceSeconds: number, limit = 100): Promise<number> {
  const cutoff = new Date(now.getTime() - graceSeconds * 1000);
  let requeued = 0;
  for (const delivery of await findOverdueDeliveries(cutoff, limit)) {
    if (delivery.lease_until && Date.parse(delivery.lease_until) > now.getTime()) continue;
    if (await markRequeued(delivery, now, cutoff)) {
      await enqueueDelivery(jobOf(delivery));
      requeued += 1;
    }
  }
  return requeued;
}

/** Queues the latest event again (same event id), from a first attempt. */
export async function redeliverLatest(merchant: MerchantProfile, orderId: unknown, now: Date): Promise<OrderDelivery> {
  const deliveries = await listDeliveries(await ownedOrderId(merchant, orderId));
  const latest = deliveries.at(-1);
  if (!latest) throw new NoCallbackError();
  const reset = await resetDelivery(latest, now);
  // A worker holds it (mid-POST) or just recorded an attempt: posting again now would
  // deliver the event twice at once.
  if (!reset) throw new CallbackInProgressError();
  await enqueueDelivery(jobOf(reset));
  return { ...latest, ...reset } as OrderDelivery;
}
