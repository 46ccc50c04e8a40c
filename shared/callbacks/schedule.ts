/**
 * The retry schedule of callbacks: exponential from a base (60 s by default), doubling up to
 * a nominal 12 hours, plus 0 to 20% jitter so retries of many orders do not arrive at a
 * recovering merchant together. Jitter only lengthens a step, so the schedule never ends
 * before its nominal span: with the defaults, 16 attempts over 77 to 92 hours, never less than
 * 72 (docs/merchant-guide.md, "Callbacks", has the table). The delayed-job pipeline
 * (shared/jobs/delayed-jobs.ts) rounds each step to whole seconds and waits out steps past SQS's
 * 12-hour limit by postponing the message again.
 */
import { type Backoff, SQS_LONGEST_WAIT_SECONDS } from '#shared/core/backoff';

/** The callbacks' schedule, seconds, from CALLBACK_RETRY_BASE_SECONDS: doubling to 12 hours, each step lengthened by 0 to 20%. */
export const CALLBACK_BACKOFF: Omit<Backoff, 'base'> = { cap: SQS_LONGEST_WAIT_SECONDS, jitter: 'lengthen' };

/** The longest Retry-After honoured: a merchant may ask for a day's pause, not a week's. */
export const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/** Delay honouring the merchant's Retry-After (seconds or HTTP date), at most a day. */
export function withRetryAfter(delaySeconds: number, retryAfter: string | undefined, now: Date): number {
  if (!retryAfter) return delaySeconds;
  const seconds = /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : Math.ceil((Date.parse(retryAfter) - now.getTime()) / 1000);
  if (!Number.isFinite(seconds) || seconds <= 0) return delaySeconds;
  return Math.max(delaySeconds, Math.min(MAX_RETRY_AFTER_SECONDS, seconds));
}
