/**
 * The one way every web page keeps what it shows fresh (the payment page's order, a payment
 * link, a subscriber's subscription; the portal's live screens): one look at a time, at a pace
 * kept as data, slower in a hidden tab and after failures in a row, never before a wait the
 * service asked for (a 429's Retry-After), at once when the tab is shown again.
 */

/** A Retry-After header as the wait it asks for, ms: whole seconds (what the API sends; an HTTP date is read too), bounded to 10 min. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (!header) return 0;
  const ms = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) ? Math.min(600_000, Math.max(0, ms)) : 0;
}

/**
 * Answers drawn in the order their requests went out, on a page whose look and action may be on
 * their way at once: each request takes a turn as it is sent, and its answer is drawn only when
 * its turn says so, that is when no answer to a later request was drawn first (the older answer
 * would put back what the later one replaced, until the next look).
 */
export function answerOrder(): () => () => boolean {
  let taken = 0;
  let drawn = 0;
  return () => {
    const mine = ++taken;
    return () => {
      if (mine < drawn) return false;
      drawn = mine;
      return true;
    };
  };
}

/** How often a page looks again: while visible, while hidden, and at most after failures in a row (doubling from `visibleMs`). */
export interface Pace {
  visibleMs: number;
  hiddenMs: number;
  maxBackoffMs: number;
}

/** What one look found: an answer, a failure to try again after (with the wait the service asked for), or the end of the polling. */
export type Look = { ok: true } | { ok: false; retryAfterMs: number } | 'stop';

export interface PollOptions {
  /** Whether the page still wants news (false: no look is scheduled); a number: at least that long between looks (a state that rarely moves). */
  wanted?: () => boolean | number;
  /** Whether the reader is in the middle of something (an action): a look waits for its next turn. */
  held?: () => boolean;
}

export interface Poller {
  /** Looks at once (after the one under way, if any), unless held, not wanted or asked to wait; then keeps to the pace. */
  now(): Promise<void>;
  /** The next look at the pace, counted from now (after an action's answer). */
  schedule(): void;
  /** The service asked to wait `ms` (a 429's Retry-After): no look goes out before then. */
  holdOff(ms: number): void;
  /** How long until the page may call the service again (0: now). */
  waitLeftMs(): number;
  /** No look any more (the screen is left). */
  stop(): void;
}

/** Starts nothing, and follows no tab event, until the page asks for its first look (`now`) or schedules one. */
export function poller(pace: Pace, look: () => Promise<Look>, options: PollOptions = {}): Poller {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let failures = 0;
  let quietUntil = 0;
  let looking = false;
  let again = false;
  let stopped = false;
  let listening = false;
  const waitLeftMs = () => Math.max(0, quietUntil - Date.now());
  const holdOff = (ms: number) => {
    if (ms > 0) quietUntil = Math.max(quietUntil, Date.now() + ms);
  };
  // Only a started poller (one asked to look or to schedule) follows the tab: a page's module
  // that is loaded but not shown (the order page's, on a payment link's page) never looks.
  const follow = () => {
    if (listening || stopped) return;
    listening = true;
    document.addEventListener('visibilitychange', shown);
  };
  const schedule = () => {
    follow();
    clearTimeout(timer);
    const wanted = options.wanted?.() ?? true;
    if (stopped || wanted === false) return;
    let delay = document.hidden ? pace.hiddenMs : pace.visibleMs;
    if (typeof wanted === 'number') delay = Math.max(delay, wanted);
    if (failures) delay = Math.max(delay, Math.min(pace.maxBackoffMs, pace.visibleMs * 2 ** failures));
    timer = setTimeout(() => void now(), Math.max(delay, waitLeftMs()));
  };
  const now = async (): Promise<void> => {
    if (stopped) return;
    follow();
    // Asked while a look is under way: the next follows it at once (its answer may be older than the news).
    if (looking) {
      again = true;
      return;
    }
    if (options.held?.() || options.wanted?.() === false || waitLeftMs() > 0) return schedule();
    looking = true;
    clearTimeout(timer);
    let found: Look;
    try {
      found = await look();
    } finally {
      looking = false;
    }
    if (stopped) return;
    if (found === 'stop') return stop();
    if (found.ok) failures = 0;
    else {
      failures += 1;
      holdOff(found.retryAfterMs);
    }
    if (again) {
      again = false;
      return now();
    }
    schedule();
  };
  const shown = () => (document.hidden ? schedule() : void now());
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', shown);
  };
  return { now, schedule, holdOff, waitLeftMs, stop };
}
