/**
 * Trying a call again with exponential backoff: the one loop the chain sources' HTTP requests
 * (watchers/sources/http.ts, hyperion.ts), LND's REST client and the Parameters and Secrets
 * extension's reads share. Each caller says how often and how long to wait, and, with a
 * predicate, which failures are worth another try (a garbage answer never is: it would only be
 * garbage again); it keeps its own words for the error it finally throws.
 */
import { backoffDelay } from '#shared/core/backoff';

/** How often a call is tried and how long is waited between tries. */
export interface RetryPolicy {
  /** Tries in all (1: no retry). */
  attempts: number;
  /** The wait before the second try, ms; doubled before each later one. */
  baseDelayMs: number;
  /** No wait is longer than this, ms (before jitter). Default: no cap. */
  capMs?: number;
  /**
   * Each wait multiplied by a uniform factor in [0.5, 1.5), so callers that failed together do
   * not come back together. Default: true.
   */
  jitter?: boolean;
}

/**
 * The last failure once every try failed with something the predicate retries: its `cause` is
 * that failure, its message says what it was and how many tries were made.
 */
export class RetriesExhaustedError extends Error {
  constructor(
    readonly attempts: number,
    readonly last: unknown,
    readonly problem: string,
  ) {
    super(`${problem} after ${attempts} tries`, { cause: last });
    this.name = 'RetriesExhaustedError';
  }
}

/** The wait before try `retry + 1` (`retry` = 1: the wait after the first failure), ms: the policy's backoff, spread unless told not to. */
export function retryDelayMs(policy: RetryPolicy, retry: number, random: () => number = Math.random): number {
  return backoffDelay({ base: policy.baseDelayMs, cap: policy.capMs, jitter: policy.jitter === false ? 'none' : 'spread' }, retry, random);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** What a retry loop needs besides the policy. */
export interface RetryOptions {
  /** Whether a failure is tried again; one it refuses is thrown at once, as it is. */
  retried: (error: unknown) => boolean;
  /** The failure in the final error's words (default: its message). */
  describe?: (error: unknown) => string;
  /** Waits (tests pass a recorder); the random source of the jitter. */
  wait?: (ms: number) => Promise<void>;
  random?: () => number;
}

/**
 * Runs `attempt` (given its try number, from 1) until it returns, it throws what `retried`
 * refuses (thrown as is), or `policy.attempts` tries failed ({@link RetriesExhaustedError}
 * naming the last failure), waiting {@link retryDelayMs} between tries.
 */
export async function withRetries<T>(policy: RetryPolicy, options: RetryOptions, attempt: (n: number) => Promise<T>): Promise<T> {
  const { retried, describe = describeError, wait = sleep, random = Math.random } = options;
  const attempts = Math.max(1, policy.attempts);
  for (let n = 1; ; n += 1) {
    try {
      return await attempt(n);
    } catch (error) {
      if (!retried(error)) throw error;
      if (n >= attempts) throw new RetriesExhaustedError(attempts, error, describe(error));
      await wait(retryDelayMs(policy, n, random));
    }
  }
}

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** An HTTP answer worth asking again (a rate limit, server-side trouble): thrown inside an attempt so the predicate sees it. */
export class RetryableStatusError extends Error {
  constructor(
    readonly status: number,
    detail?: string,
  ) {
    super(detail === undefined ? `HTTP ${status}` : `HTTP ${status}: ${detail}`);
    this.name = 'RetryableStatusError';
  }
}
