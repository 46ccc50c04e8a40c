/**
 * Whether a per-address source (TRON's TronGrid, a Solana node) can see now. Such a source has
 * no block cursor that could fall behind a tip, and a step with nothing due (no watched
 * address, or none due this step) asks it nothing about transfers: without this, a source that
 * is down, or a node stuck hours behind, would still be reported healthy while idle, and its
 * currency offered to the next buyer. So the source's newest final block (TRON's latest
 * solidified block, Solana's newest finalized slot) is asked at most every `everySeconds`, an
 * idle look too (they come minutes apart): a failure fails the step (the source goes
 * `failing`), and a block older than `maxBehindSeconds` is reported as not caught up, so the
 * health's lag grows until the source is `lagging` (SOURCE_MAX_LAG_SECONDS) and is not offered,
 * as a block chain's cursor behind its tip is.
 */
import type { SourceHealthNote } from '#shared/watchers/sources/port';

/** A source's newest final block: its height and when it was made. */
export interface SourceHead {
  height: number;
  time: Date;
}

/**
 * How old a final block may be while the source counts as caught up: TRON solidifies a block
 * about a minute after it is made (19 of 27 producers, a block every 3 s), Solana finalizes a slot
 * about 13 s after it (32 slots of 400 ms); three minutes leaves room for a slow minute and for
 * clocks that differ, and is well under SOURCE_MAX_LAG_SECONDS (900), after which it counts.
 */
export const MAX_HEAD_AGE_SECONDS = 180;

export class HeadCheck {
  private askedAt = Number.NEGATIVE_INFINITY;
  private last: { height: number; behindMs: number } | undefined;

  constructor(
    private readonly maxBehindSeconds = MAX_HEAD_AGE_SECONDS,
    private readonly everySeconds = 60,
  ) {}

  /** Asks `head` when the last answer is older than `everySeconds`; its error is the step's. */
  async ensure(now: Date, head: () => Promise<SourceHead>): Promise<void> {
    if (now.getTime() - this.askedAt < this.everySeconds * 1000) return;
    this.record(now, await head());
  }

  /** Takes an answer the source read itself (TRON reads its solid head every step it has addresses to watch). */
  record(now: Date, { height, time }: SourceHead): void {
    this.askedAt = now.getTime();
    this.last = { height, behindMs: now.getTime() - time.getTime() };
  }

  /** The part of the source's health note it knows: nothing before the first answer. */
  note(): Pick<SourceHealthNote, 'tipHeight' | 'caughtUp'> {
    if (!this.last) return {};
    return { tipHeight: this.last.height, caughtUp: this.last.behindMs <= this.maxBehindSeconds * 1000 };
  }
}
