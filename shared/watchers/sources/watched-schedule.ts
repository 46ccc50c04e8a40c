/**
 * An address (TRON) or Solana Pay reference a per-address source asks about, with its invoice's
 * horizons; the watcher's run reads them from the table (shared/store/watch-list.ts).
 */
export interface WatchedTarget {
  address: string;
  currency: string;
  /** When the invoice was made (ISO). */
  since: string;
  /** The invoice's expiry (ISO): until then asked every step. */
  open_until: string;
  /** Solana: the wallet the reference's transfer must pay. */
  recipient?: string;
}

/**
 * When a per-address source (TRON, Solana) asks about a watched address: every step while its
 * invoice is open, and every `lateEverySeconds` (default 600) once it expired but is still in
 * its late window, so a week of late window costs a request per address every ten minutes,
 * not every few seconds. A step asks about `limit` addresses at most (the bound on its work);
 * when more are due, the next step goes on where this one stopped, so every address is asked
 * within ceil(due / limit) steps instead of the newest never while older ones stay open.
 */
export class WatchedSchedule {
  private lateAskedAt = 0;
  /** Where the next step starts in the due list when it is longer than a step's limit. */
  private offset = 0;

  constructor(private readonly lateEverySeconds = 600) {}

  /** The entries of `currency` to ask about at `now`, at most `limit`. */
  due(entries: readonly WatchedTarget[], currency: string, now: Date, limit: number): WatchedTarget[] {
    const lateDue = now.getTime() - this.lateAskedAt >= this.lateEverySeconds * 1000;
    if (lateDue) this.lateAskedAt = now.getTime();
    const due = entries.filter((entry) => entry.currency === currency && (lateDue || Date.parse(entry.open_until) >= now.getTime()));
    const max = Math.max(limit, 1);
    if (due.length <= max) {
      this.offset = 0;
      return due;
    }
    const start = this.offset % due.length;
    this.offset = start + max;
    return [...due.slice(start), ...due.slice(0, start)].slice(0, max);
  }
}
