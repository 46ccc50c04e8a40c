/**
 * Exponential backoff, the one formula the back end's waits between two tries follow (the
 * browser pages in web/ keep their own polling). Each caller keeps its schedule as data (a
 * {@link Backoff}, named where it is used) and asks {@link backoffDelay} for the wait before a
 * retry. The schedules differ on purpose, and keep their differences as data: a callback's
 * steps only lengthen (its retries never end before their nominal span), a watcher's only
 * shorten (it is back within its cap), an email's or a local shard's do not move at all.
 * tests/unit/backoff.test.ts holds each to its numbers.
 */

/**
 * How a wait is drawn around its nominal length, so callers that failed together do not come
 * back together: 'spread' multiplies it by a uniform factor in [0.5, 1.5), 'shorten' in
 * [0.5, 1), 'lengthen' in [1, 1.2); 'none' keeps it.
 */
export type Jitter = 'none' | 'spread' | 'shorten' | 'lengthen';

const JITTER_FACTOR: Record<Exclude<Jitter, 'none'>, (random: number) => number> = {
  spread: (random) => 0.5 + random,
  shorten: (random) => 0.5 + random / 2,
  lengthen: (random) => 1 + 0.2 * random,
};

/** A retry schedule, in the caller's unit (ms or seconds): the first wait, doubled before each later one up to a cap, then jittered. */
export interface Backoff {
  /** The wait before the first retry. */
  base: number;
  /** No wait is longer than this before jitter. Default: no cap. */
  cap?: number;
  /** The wait stops doubling after this many doublings, even below the cap. Default: it doubles up to the cap. */
  doublings?: number;
  jitter: Jitter;
}

/** The wait before retry `retry` (1: the wait after the first failure), in the schedule's unit. */
export function backoffDelay(schedule: Backoff, retry: number, random: () => number = Math.random): number {
  const doublings = Math.min(retry - 1, schedule.doublings ?? Number.POSITIVE_INFINITY);
  const nominal = Math.min(schedule.cap ?? Number.POSITIVE_INFINITY, schedule.base * 2 ** doublings);
  return schedule.jitter === 'none' ? nominal : nominal * JITTER_FACTOR[schedule.jitter](random());
}

/**
 * The longest one step of a queued retry waits, 12 hours: SQS hides a received message that
 * long at most (its longest visibility timeout). The callback and email retries cap their steps
 * at it, and their queues postpone a message by no more.
 */
export const SQS_LONGEST_WAIT_SECONDS = 12 * 3600;
