import { type Backoff, backoffDelay } from '#shared/core/backoff';

/** What the loop needs of a step's report: whether there is more to do at once. */
export interface Progress {
  /** More than 0: the watcher is behind its source (step again at once). */
  behind: number;
  /** Another run moved the cursor first. */
  yielded: boolean;
}

/** A block watcher (block-watcher.ts) or an indexed one (indexed-watcher.ts). */
export interface Stepper<R extends Progress> {
  step(): Promise<R>;
}

export interface PollOptions<R extends Progress> {
  /** Between steps once caught up (WATCH_INTERVAL_SECONDS). */
  intervalMs: number;
  /** Stop: the loop ends after the step in flight (abortable waits). */
  signal: AbortSignal;
  /** The longest wait after failures (backoff doubles from the interval up to this). */
  maxBackoffMs?: number;
  /** Awaited: a step's report (its health written) is done before the next step or the run's end. */
  onStep?: (report: R) => void | Promise<void>;
  onError?: (error: unknown, failuresInARow: number) => void | Promise<void>;
}

export interface PollSummary<R extends Progress> {
  steps: number;
  failures: number;
  last?: R;
}

/** Waits `ms`, or less when `signal` ends the run first (the run's loops and its wait for a lease). */
export const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * A watcher's wait after failed steps, ms, from twice its interval: doubling per failure, 9
 * times at most (1024 intervals), up to a minute, each wait shortened by up to half (so the
 * first is 1 to 2 intervals). The stepped watcher waits the same, in seconds.
 */
export const WATCH_BACKOFF = { cap: 60_000, doublings: 9, jitter: 'shorten' } satisfies Omit<Backoff, 'base'>;

/**
 * Steps a watcher until `signal` stops it: again at once while blocks are still to scan (each
 * step's work is bounded), every `intervalMs` once caught up, and after a failure (the source
 * timing out or answering garbage, the store throttling) with exponential backoff and jitter.
 * A failed step booked nothing wrong: what it did is idempotent and the cursor did not move
 * past anything unbooked. The AWS watcher function and the local runtime both run this.
 */
export async function pollChain<R extends Progress>(watcher: Stepper<R>, options: PollOptions<R>): Promise<PollSummary<R>> {
  const summary: PollSummary<R> = { steps: 0, failures: 0 };
  const backoff: Backoff = { ...WATCH_BACKOFF, base: 2 * options.intervalMs, cap: options.maxBackoffMs ?? WATCH_BACKOFF.cap };
  let inARow = 0;
  while (!options.signal.aborted) {
    try {
      const report = await watcher.step();
      summary.steps += 1;
      summary.last = report;
      inARow = 0;
      await options.onStep?.(report);
      if (report.behind > 0 && !report.yielded) continue;
      await pause(options.intervalMs, options.signal);
    } catch (error) {
      summary.failures += 1;
      inARow += 1;
      await options.onError?.(error, inARow);
      await pause(backoffDelay(backoff, inARow), options.signal);
    }
  }
  return summary;
}

/** What {@link stepWhileBehind} did: its steps, and whether the last one failed or left the watcher behind. */
export interface StepsSummary<R extends Progress> extends PollSummary<R> {
  /** The last step threw (its error went to `onError`). */
  failed: boolean;
  /** The last step left blocks to scan (the next step is due at once). */
  behind: boolean;
}

/**
 * The stepped watcher's share of {@link pollChain}, without its waits: steps once, and again at
 * once while the watcher is behind, until `deadline` (epoch ms). A failed step ends it (the
 * backoff is the next step's delay, shared/watchers/stepped.ts).
 */
export async function stepWhileBehind<R extends Progress>(
  watcher: Stepper<R>,
  options: { deadline: number; onStep?: PollOptions<R>['onStep']; onError?: (error: unknown) => void | Promise<void> },
): Promise<StepsSummary<R>> {
  const summary: StepsSummary<R> = { steps: 0, failures: 0, failed: false, behind: false };
  do {
    try {
      const report = await watcher.step();
      summary.steps += 1;
      summary.last = report;
      await options.onStep?.(report);
      summary.behind = report.behind > 0 && !report.yielded;
    } catch (error) {
      summary.failures += 1;
      summary.failed = true;
      summary.behind = false;
      await options.onError?.(error);
      return summary;
    }
  } while (summary.behind && Date.now() < options.deadline);
  return summary;
}
