import { describe, expect, it } from 'vitest';
import { SHARD_BACKOFF } from '#infra/local/stream-shards';
import { CALLBACK_BACKOFF } from '#shared/callbacks/schedule';
import { type Backoff, backoffDelay, SQS_LONGEST_WAIT_SECONDS } from '#shared/core/backoff';
import { EMAIL_BACKOFF } from '#shared/email/sender';
import { UNPROCESSED_BACKOFF } from '#shared/store/batches';
import { SEND_BACKOFF } from '#shared/watchers/stepped';
import { WATCH_BACKOFF } from '#shared/watchers/watch-loop';

/** A draw at the top of Math.random's range (its very largest rounds 'shorten' up to a factor of 1). */
const TOP = 0.999_999;

/** The waits before retries 1 to `retries`, with every jitter draw `draw`. */
const waits = (schedule: Backoff, retries: number, draw = 0): number[] => Array.from({ length: retries }, (_, i) => backoffDelay(schedule, i + 1, () => draw));

/** The waits without their jitter. */
const nominal = (schedule: Backoff, retries: number): number[] => waits({ ...schedule, jitter: 'none' }, retries);

describe('backoffDelay', () => {
  it('doubles from the base up to the cap, and no more than `doublings` times', () => {
    expect(nominal({ base: 10, jitter: 'none' }, 5)).toEqual([10, 20, 40, 80, 160]);
    expect(nominal({ base: 10, cap: 50, jitter: 'none' }, 5)).toEqual([10, 20, 40, 50, 50]);
    expect(nominal({ base: 10, doublings: 2, jitter: 'none' }, 5)).toEqual([10, 20, 40, 40, 40]);
  });

  it('draws each jitter within its bounds, and none without drawing', () => {
    const schedule = { base: 100, jitter: 'none' } as const;
    expect(backoffDelay(schedule, 1, () => expect.unreachable('no draw'))).toBe(100);
    const bounds = (jitter: Backoff['jitter']) => [backoffDelay({ ...schedule, jitter }, 1, () => 0), backoffDelay({ ...schedule, jitter }, 1, () => TOP)];
    expect(bounds('spread')).toEqual([50, expect.closeTo(150, 3)]);
    expect(bounds('spread')[1]).toBeLessThan(150);
    expect(bounds('shorten')).toEqual([50, expect.closeTo(100, 3)]);
    expect(bounds('shorten')[1]).toBeLessThan(100);
    expect(bounds('lengthen')).toEqual([100, expect.closeTo(120, 3)]);
    expect(bounds('lengthen')[1]).toBeLessThan(120);
  });
});

// Each schedule as it stands: a change to one fails here, and must be meant (docs/reference.md
// and the guides quote the callbacks' and emails' numbers).
describe('the retry schedules', () => {
  it('SQS holds a retry 12 hours at most', () => {
    expect(SQS_LONGEST_WAIT_SECONDS).toBe(43_200);
  });

  it('callbacks: seconds, doubling from the base to 12 hours, lengthened by 0 to 20%', () => {
    expect(CALLBACK_BACKOFF).toEqual({ cap: SQS_LONGEST_WAIT_SECONDS, jitter: 'lengthen' });
    const schedule = { ...CALLBACK_BACKOFF, base: 60 };
    expect(nominal(schedule, 12)).toEqual([60, 120, 240, 480, 960, 1920, 3840, 7680, 15_360, 30_720, 43_200, 43_200]);
    expect(waits(schedule, 12)).toEqual(nominal(schedule, 12));
    expect(waits(schedule, 1, TOP)[0]).toBeCloseTo(72, 3);
    expect(waits(schedule, 12, TOP)[11]).toBeCloseTo(43_200 * 1.2, 0);
  });

  it('emails: seconds, doubling from the base to 12 hours, no jitter', () => {
    expect(EMAIL_BACKOFF).toEqual({ cap: SQS_LONGEST_WAIT_SECONDS, jitter: 'none' });
    const schedule = { ...EMAIL_BACKOFF, base: 60 };
    expect(nominal(schedule, 12)).toEqual([60, 120, 240, 480, 960, 1920, 3840, 7680, 15_360, 30_720, 43_200, 43_200]);
    expect(waits(schedule, 12, TOP)).toEqual(nominal(schedule, 12));
  });

  it('watchers: ms, from twice the interval, 9 doublings at most, up to a minute, shortened by up to half', () => {
    expect(WATCH_BACKOFF).toEqual({ cap: 60_000, doublings: 9, jitter: 'shorten' });
    const every10s = { ...WATCH_BACKOFF, base: 2 * 10_000 };
    expect(nominal(every10s, 4)).toEqual([20_000, 40_000, 60_000, 60_000]);
    expect(waits(every10s, 4)).toEqual([10_000, 20_000, 30_000, 30_000]);
    expect(waits(every10s, 4, TOP).every((wait, i) => wait < nominal(every10s, 4)[i]!)).toBe(true);
    // A 1 ms interval stops doubling at 1024 intervals, far below the cap.
    expect(nominal({ ...WATCH_BACKOFF, base: 2 }, 12).slice(8)).toEqual([512, 1024, 1024, 1024]);
  });

  it("a watch tick's send: ms, 200 then 400, no jitter", () => {
    expect(SEND_BACKOFF).toEqual({ base: 200, jitter: 'none' });
    expect(waits(SEND_BACKOFF, 2, TOP)).toEqual([200, 400]);
  });

  it("DynamoDB's unprocessed batch items: ms, 100 doubling without a cap, spread over [0.5, 1.5)", () => {
    expect(UNPROCESSED_BACKOFF).toEqual({ base: 100, jitter: 'spread' });
    expect(nominal(UNPROCESSED_BACKOFF, 4)).toEqual([100, 200, 400, 800]);
    expect(waits(UNPROCESSED_BACKOFF, 4)).toEqual([50, 100, 200, 400]);
    expect(waits(UNPROCESSED_BACKOFF, 4, TOP).map(Math.round)).toEqual([150, 300, 600, 1200]);
  });

  it("the local stream poller's failing shard: ms, doubling from the poll interval up to 5 s, no jitter", () => {
    expect(SHARD_BACKOFF).toEqual({ cap: 5_000, jitter: 'none' });
    expect(waits({ ...SHARD_BACKOFF, base: 200 }, 7, TOP)).toEqual([200, 400, 800, 1600, 3200, 5000, 5000]);
  });
});
