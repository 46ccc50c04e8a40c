import { describe, expect, it } from 'vitest';
import { RetriesExhaustedError, retryDelayMs, RetryableStatusError, withRetries } from '#shared/core/retry';

/** A wait that records what it was asked to wait and returns at once. */
function recorder(): { waits: number[]; wait: (ms: number) => Promise<void> } {
  const waits: number[] = [];
  return { waits, wait: async (ms) => void waits.push(ms) };
}

/** An attempt that fails with `failures` in turn, then answers `value`. */
function failing<T>(failures: unknown[], value: T): { calls: number[]; attempt: (n: number) => Promise<T> } {
  const calls: number[] = [];
  return {
    calls,
    attempt: async (n) => {
      calls.push(n);
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
      return value;
    },
  };
}

const always = () => true;

describe('retryDelayMs', () => {
  it('doubles from the base, capped, the jitter a factor in [0.5, 1.5)', () => {
    const policy = { attempts: 6, baseDelayMs: 250, jitter: false };
    expect([1, 2, 3, 4].map((retry) => retryDelayMs(policy, retry))).toEqual([250, 500, 1000, 2000]);
    expect([1, 2, 3, 4].map((retry) => retryDelayMs({ ...policy, capMs: 600 }, retry))).toEqual([250, 500, 600, 600]);
    // The jitter is on by default: the smallest and the largest factor.
    expect(retryDelayMs({ attempts: 3, baseDelayMs: 250 }, 2, () => 0)).toBe(250);
    expect(retryDelayMs({ attempts: 3, baseDelayMs: 250 }, 2, () => 0.999)).toBeCloseTo(749.5);
  });
});

describe('withRetries', () => {
  it('tries again after each retried failure, waiting the policy between tries, and answers the first success', async () => {
    const { waits, wait } = recorder();
    const { calls, attempt } = failing([new Error('reset'), new RetryableStatusError(503)], 'ok');
    await expect(withRetries({ attempts: 3, baseDelayMs: 50, jitter: false }, { retried: always, wait }, attempt)).resolves.toBe('ok');
    expect(calls).toEqual([1, 2, 3]);
    expect(waits).toEqual([50, 100]);
  });

  it('gives up after the last try with the last failure, and waits no more after it', async () => {
    const { waits, wait } = recorder();
    const last = new RetryableStatusError(503, 'lnd is starting up');
    const { calls, attempt } = failing([new Error('reset'), new Error('reset'), last], 'never');
    const error = await withRetries({ attempts: 3, baseDelayMs: 10 }, { retried: always, wait, random: () => 0.5 }, attempt).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect((error as RetriesExhaustedError).message).toBe('HTTP 503: lnd is starting up after 3 tries');
    expect((error as RetriesExhaustedError).cause).toBe(last);
    expect(calls).toEqual([1, 2, 3]);
    expect(waits).toEqual([10, 20]);
  });

  it('throws what the predicate refuses at once, as it is', async () => {
    const { waits, wait } = recorder();
    const garbage = new SyntaxError('not JSON');
    const { calls, attempt } = failing([new Error('reset'), garbage], 'never');
    await expect(withRetries({ attempts: 5, baseDelayMs: 10 }, { retried: (error) => !(error instanceof SyntaxError), wait }, attempt)).rejects.toBe(garbage);
    expect(calls).toEqual([1, 2]);
    expect(waits).toHaveLength(1);
  });

  it("describes the last failure in the caller's words, and makes one try when told fewer than one", async () => {
    const { attempt, calls } = failing([Object.assign(new Error('aborted'), { name: 'TimeoutError' })], 'never');
    const describe = (error: unknown) => ((error as Error).name === 'TimeoutError' ? 'no answer within 300 ms' : 'other');
    await expect(withRetries({ attempts: 0, baseDelayMs: 10 }, { retried: always, describe, wait: recorder().wait }, attempt)).rejects.toThrow(/^no answer within 300 ms after 1 tries$/);
    expect(calls).toEqual([1]);
  });
});
