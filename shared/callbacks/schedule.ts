/**
 * The retry schedule of callbacks: exponential from a base (60 s by default), doubling up to
 * 12 hours (the longest an SQS message can be hidden in one step), with ±20% jitter so
 * retries of many orders do not arrive at a recovering merchant together.
 * With the defaults: 16 attempts over about 77 hours.
 */
export const MAX_STEP_SECONDS = 12 * 3600;

/** Delay before attempt `attempt + 1` after `attempt` failed (attempt counts from 1). */
export function retryDelaySeconds(attempt: number, baseSeconds: number, random: () => number = Math.random): number {
  const nominal = Math.min(MAX_STEP_SECONDS, baseSeconds * 2 ** (attempt - 1));
  const jittered = nominal * (0.8 + 0.4 * random());
  return Math.max(1, Math.min(MAX_STEP_SECONDS, Math.round(jittered)));
}

/** Delay honouring the merchant's Retry-After (seconds or HTTP date), never past 12 hours. */
export function withRetryAfter(delaySeconds: number, retryAfter: string | undefined, now: Date): number {
  if (!retryAfter) return delaySeconds;
  const seconds = /^\d+$/.test(retryAfter.trim())
    ? Number(retryAfter.trim())
    : Math.ceil((Date.parse(retryAfter) - now.getTime()) / 1000);
  if (!Number.isFinite(seconds) || seconds <= 0) return delaySeconds;
  return Math.min(MAX_STEP_SECONDS, Math.max(delaySeconds, seconds));
}

/** The nominal schedule (no jitter): cumulative hours after the first attempt, for the docs. */
export function nominalSchedule(baseSeconds: number, maxAttempts: number): { attempt: number; delaySeconds: number; afterSeconds: number }[] {
  const rows = [{ attempt: 1, delaySeconds: 0, afterSeconds: 0 }];
  for (let attempt = 2; attempt <= maxAttempts; attempt += 1) {
    const delaySeconds = retryDelaySeconds(attempt - 1, baseSeconds, () => 0.5);
    rows.push({ attempt, delaySeconds, afterSeconds: rows[rows.length - 1]!.afterSeconds + delaySeconds });
  }
  return rows;
}
