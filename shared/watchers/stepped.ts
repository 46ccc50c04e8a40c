/**
 * A chain in demand, in AWS: stepped, not waited on (operator-guide.md "How payments are
 * detected"). Each invocation of the chain's
 * watch-chain function makes one step (more at once while the watcher is behind, within a
 * budget) and sends the next one as a delayed message (shared/watchers/ticks.ts), so Lambda bills
 * the steps' work and never a sleep between two polls.
 *
 * One line of ticks per chain. The chain's lease (shared/store/watch-demand.ts) names the line's
 * owner: the minute's scheduled run, or a wake, starts a line only when nobody holds the lease;
 * a line claims the lease again every {@link CLAIM_EVERY_MS} (handing it to a fresh owner id,
 * conditional on still holding it), and a tick whose owner lost the lease ends there. So a second
 * line (an SQS message delivered twice, a run that lost its lease during a long backoff) ends
 * within a minute, and a line that broke (an invocation that died before sending its tick) is
 * replaced by the scheduled run once its lease expires. The same claim checks the demand: a line
 * ends, and gives the lease back, once nothing needs the chain.
 */
import { randomUUID } from 'node:crypto';
import { type Backoff, backoffDelay } from '#shared/core/backoff';
import { watchConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { passWatchLease, releaseWatchLease, takeWatchLease, watchingNeeded, watchLeaseHeld } from '#shared/store/watch-demand';
import type { StepReport } from '#shared/watchers/block-report';
import type { IndexedStepReport } from '#shared/watchers/indexed-watcher';
import { idleRun, type IdleSummary } from '#shared/watchers/idle';
import type { SecretReader } from '#shared/watchers/runnable';
import { chainStepper } from '#shared/watchers/step-hooks';
import type { TickSender, WatchTick } from '#shared/watchers/ticks';
import { type StepsSummary, stepWhileBehind, WATCH_BACKOFF } from '#shared/watchers/watch-loop';

/**
 * How long a claim holds the chain. A line claims again after {@link CLAIM_EVERY_MS}, at its
 * first tick past it; the longest gap between ticks is the backoff's cap plus a step, so a
 * working line never loses its lease, and a broken one is replaced within this time (and the
 * next scheduled minute).
 */
export const LEASE_MS = 150_000;
/** A line claims the lease again (and checks the demand) at its first tick this long after its last claim. */
export const CLAIM_EVERY_MS = 60_000;
/** The longest wait after failed steps (the backoff doubles from the interval up to this): the watch loop's cap. */
export const MAX_BACKOFF_SECONDS = WATCH_BACKOFF.cap / 1000;

/** What one invocation did: stepped (with the next tick's delay), or why not. */
export type SteppedSummary =
  | IdleSummary
  | (StepsSummary<StepReport | IndexedStepReport> & { next: { delaySeconds: number; failures: number } })
  /** Another line holds the chain (this invocation was the schedule's or a wake's). */
  | { steps: 0; failures: 0; leased: true }
  /** The tick's line lost the lease to another: it ends here. */
  | { steps: 0; failures: 0; superseded: true }
  /** Nothing needs the chain any more: the line ended and gave the lease back. */
  | { steps: 0; failures: 0; ended: true };

export interface StepOptions {
  /** Where the next tick goes (AWS: the step timer's queue). */
  send: TickSender;
  readSecret?: SecretReader;
  /** Steps again at once while behind until this long after `now`. */
  budgetMs: number;
  now?: Date;
}

/**
 * One invocation of `chain`'s watcher: `tick` when the step timer sent it, undefined when the
 * minute's schedule or a wake did. An idle chain gets its idle run; a chain in demand one step
 * (or a few while behind) and its next tick. The tick is sent after the steps and before this
 * returns: an invocation that dies before it leaves the line to the scheduled run.
 */
export async function watchChainStep(chain: string, tick: WatchTick | undefined, options: StepOptions): Promise<SteppedSummary> {
  const now = options.now ?? new Date();
  let owner: string;
  let claimedAt: Date;
  if (tick === undefined) {
    const idle = await idleRun(chain, now, options.readSecret);
    if (idle) return idle;
    // A line is stepping the chain (the usual case for the minute's run while it is in demand): one read, and done.
    if (await watchLeaseHeld(chain, now)) return { steps: 0, failures: 0, leased: true };
    owner = randomUUID();
    if (!(await takeWatchLease(chain, owner, new Date(now.getTime() + LEASE_MS), now))) return { steps: 0, failures: 0, leased: true };
    claimedAt = now;
    logger.info('watch line started', { chain });
  } else {
    owner = tick.owner;
    claimedAt = new Date(tick.claimed_at);
    if (now.getTime() - claimedAt.getTime() >= CLAIM_EVERY_MS) {
      let claim: { owner: string } | 'ended' | 'superseded';
      try {
        claim = await claimAgain(chain, owner, now);
      } catch (error) {
        // The store failed the claim (throttled, down) past the SDK's retries: the line's tick
        // goes on as a failed step's, to claim again after the backoff. Thrown without it, the
        // line was lost until its lease expired and the next scheduled minute (issue 43).
        await sendNext(chain, owner, claimedAt, tick.failures + 1, options.send);
        throw error;
      }
      if (claim === 'ended') return { steps: 0, failures: 0, ended: true };
      if (claim === 'superseded') return { steps: 0, failures: 0, superseded: true };
      owner = claim.owner;
      claimedAt = now;
    }
  }
  const failuresBefore = tick?.failures ?? 0;
  const { watcher, onStep, onError } = await chainStepper(chain, options.readSecret).catch(async (error: unknown) => {
    // The watcher could not be built (its endpoint's parameter unreadable): a failed step like any other.
    await sendNext(chain, owner, claimedAt, failuresBefore + 1, options.send);
    throw error;
  });
  const steps = await stepWhileBehind(watcher, { deadline: now.getTime() + options.budgetMs, onStep, onError: (error) => onError(error, failuresBefore + 1) });
  const failures = steps.failed ? failuresBefore + 1 : 0;
  const delaySeconds = await sendNext(chain, owner, claimedAt, failures, options.send, steps.behind);
  return { ...steps, next: { delaySeconds, failures } };
}

/** A line's claim: the lease passed to a fresh owner id, or the line ends (nothing needs the chain: the lease given back; or another line holds it). */
async function claimAgain(chain: string, owner: string, now: Date): Promise<{ owner: string } | 'ended' | 'superseded'> {
  if (!(await watchingNeeded(chain, now))) {
    await releaseWatchLease(chain, owner);
    logger.info('watch line ended: nothing needs the chain', { chain });
    return 'ended';
  }
  const next = randomUUID();
  return (await passWatchLease(chain, owner, next, new Date(now.getTime() + LEASE_MS))) ? { owner: next } : 'superseded';
}

/** The next tick's delay: none while behind, the interval, or after failures a backoff with jitter up to {@link MAX_BACKOFF_SECONDS}. */
export function nextDelaySeconds(failures: number, behind: boolean, intervalSeconds = watchConfig().watchIntervalSeconds, random = Math.random): number {
  if (behind) return 0;
  if (failures === 0) return intervalSeconds;
  const backoff = backoffDelay({ ...WATCH_BACKOFF, base: 2 * intervalSeconds, cap: MAX_BACKOFF_SECONDS }, failures, random);
  return Math.max(intervalSeconds, Math.round(backoff));
}

/**
 * A failed send is tried again this many times more (after {@link SEND_BACKOFF}'s waits),
 * whatever the error: the SDK's own three tries can all meet a throttled or failing queue, and
 * a line whose tick is not sent is lost until its lease expires and the next scheduled minute
 * (issue 43). An error that will not pass costs only the pauses.
 */
const SEND_RETRIES = 2;
/** The waits before a tick's send is tried again, ms: 200, then 400, no jitter. */
export const SEND_BACKOFF: Backoff = { base: 200, jitter: 'none' };

async function sendNext(chain: string, owner: string, claimedAt: Date, failures: number, send: TickSender, behind = false): Promise<number> {
  const delay = nextDelaySeconds(failures, behind);
  const tick: WatchTick = { source: 'watch-tick', chain, owner, claimed_at: claimedAt.toISOString(), failures };
  for (let retry = 0; ; retry += 1) {
    try {
      await send(tick, delay);
      return delay;
    } catch (error) {
      if (retry >= SEND_RETRIES) throw error;
      logger.warn('a watch tick was not sent: trying again', { chain, error: error as Error });
      await new Promise((resolve) => setTimeout(resolve, backoffDelay(SEND_BACKOFF, retry + 1)));
    }
  }
}
