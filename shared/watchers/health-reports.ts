/**
 * What a watcher tells the table about its source after each look (shared/store/source-health.ts,
 * read by the checkout gate, GET /v1/health and `npm run health`): a success with the tip, how
 * far it has booked, whether it is caught up, its chain check and the currencies failing on
 * their own; or a failure with its reason, stripped of URLs. Written when something changed and
 * otherwise at most every REPORT_EVERY_MS, so a watcher polling every 10 s costs a few writes a
 * minute at most. A report that cannot be written is logged; watching goes on.
 */
import { logger } from '#shared/core/logger';
import { WrongChainError } from '#shared/core/source-error';
import { reportSourceHealth } from '#shared/services/health';
import type { SourceHealthNote } from '#shared/watchers/sources/port';

/** A success report at most this often while nothing changes (well inside SOURCE_MAX_SILENCE_SECONDS). */
const REPORT_EVERY_MS = 60_000;

/** An error's text for operators: no URL (a node URL may carry credentials), bounded. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '<url>')
    .replace(/\/\/[^/\s@]+@/g, '//')
    .slice(0, 300);
}

export interface StepHealth {
  tipHeight?: number;
  /** When the source's tip was made (block sources): a tip older than the chain's limit is not caught up. */
  tipTime?: Date;
  cursorHeight?: number;
  /** Nothing more to read at the source now. */
  caughtUp: boolean;
  note?: SourceHealthNote;
}

/** One watched source's reports, kept per process. */
export class HealthReporter {
  private lastWritten = 0;
  private lastShape = '';
  private tipStale = false;

  /**
   * @param maxTipAgeSeconds how old a block source's tip may be while it counts as caught up
   *   (chains/tip-age.ts: a node that stopped following its chain answers its old tip); 0: not checked.
   */
  constructor(
    private readonly source: string,
    private readonly kind: string,
    private readonly now: () => Date = () => new Date(),
    private readonly maxTipAgeSeconds = 0,
  ) {}

  /** After a step that succeeded. */
  succeeded(step: StepHealth): Promise<void> {
    const checked = this.now();
    // A per-address source says itself whether it is behind (sources/head-check.ts); a block
    // source's tip says it by its time.
    const caughtUp = step.caughtUp && step.note?.caughtUp !== false && this.tipFresh(step.tipTime, checked);
    const shape = JSON.stringify(['ok', caughtUp, step.note?.chainOk ?? null, step.note?.currencyErrors ?? null]);
    if (!this.due(shape, checked)) return Promise.resolve();
    return this.write(
      {
        ok: true,
        source: this.source,
        kind: this.kind,
        checked_at: checked.toISOString(),
        tip_height: step.tipHeight ?? step.note?.tipHeight,
        cursor_height: step.cursorHeight,
        // Left unset while behind: the stored time stays that of the last catch-up, and the lag grows.
        caught_up_at: caughtUp ? checked.toISOString() : undefined,
        chain_ok: step.note?.chainOk,
        currency_errors: step.note?.currencyErrors ?? {},
      },
      shape,
      checked,
    );
  }

  /** Whether the tip is recent enough (no time, or no limit: it cannot tell, as before); a change is logged once. */
  private tipFresh(tipTime: Date | undefined, at: Date): boolean {
    if (tipTime === undefined || this.maxTipAgeSeconds === 0) return true;
    const ageSeconds = Math.round((at.getTime() - tipTime.getTime()) / 1000);
    const stale = ageSeconds > this.maxTipAgeSeconds;
    if (stale !== this.tipStale) {
      if (stale) logger.warn("the source's newest block is older than its chain's limit: is the node stuck?", { source: this.source, ageSeconds, limitSeconds: this.maxTipAgeSeconds });
      else logger.info("the source's newest block is recent again", { source: this.source, ageSeconds });
      this.tipStale = stale;
    }
    return !stale;
  }

  /** After a step that failed. */
  failed(error: unknown): Promise<void> {
    const checked = this.now();
    const wrongChain = error instanceof WrongChainError;
    const text = errorText(error);
    const shape = JSON.stringify(['failed', text]);
    if (!this.due(shape, checked)) return Promise.resolve();
    return this.write({ ok: false, source: this.source, kind: this.kind, checked_at: checked.toISOString(), error: text, ...(wrongChain ? { chain_ok: false } : {}) }, shape, checked);
  }

  private due(shape: string, at: Date): boolean {
    return shape !== this.lastShape || at.getTime() - this.lastWritten >= REPORT_EVERY_MS;
  }

  private async write(report: Parameters<typeof reportSourceHealth>[0], shape: string, at: Date): Promise<void> {
    try {
      await reportSourceHealth(report, at);
      this.lastWritten = at.getTime();
      this.lastShape = shape;
    } catch (error) {
      logger.warn('source health not recorded', { source: this.source, error: errorText(error) });
    }
  }
}
