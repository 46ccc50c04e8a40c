import { callPage, type PayInvoice, type PayView } from './api';
import { countdown, safeUrl } from '../common/format';
import { orderId, ranOut, rerender, SETTLED, state } from './state';

/**
 * Keeping the order fresh: every answer is the whole order, applied newest request first
 * (actions.ts numbers its requests with {@link nextSequence} too). Polling slows down when the
 * tab is hidden, for orders that rarely move and after failures, and stops once the order is
 * settled or the page is leaving.
 */

/** Poll interval while the page is visible; when hidden, and for orders that rarely move. */
const POLL_MS = 3_000;
const HIDDEN_POLL_MS = 30_000;
const SLOW_POLL_MS = 15_000;
const MAX_BACKOFF_MS = 60_000;
/** Long enough to read "Payment received" before the shop's page opens. */
const REDIRECT_DELAY_MS = 1_200;

let sent = 0;
let applied = 0;
let redirecting = false;

/** The number of a request about to be sent: answers to older ones are ignored. */
export const nextSequence = (): number => ++sent;

/** An answer (of a poll or an action) becomes the page's order, unless a newer one came first. */
export function apply(view: PayView, sequence: number): void {
  if (sequence < applied) return;
  applied = sequence;
  const changed = JSON.stringify(view) !== JSON.stringify(state.view);
  state.view = view;
  state.failure = undefined;
  if (view.order.status !== 'NEW') state.asking = false;
  const next = safeUrl(view.order.success_url);
  if (view.order.status === 'PAID' && next && !redirecting) {
    redirecting = true;
    state.leaving = true;
    setTimeout(() => location.assign(next), REDIRECT_DELAY_MS);
  }
  if (changed) rerender();
}

let timer: ReturnType<typeof setTimeout> | undefined;
let failures = 0;
let polling = false;
/** No request before this time (ms): the API answered 429 and said how long to wait. */
let quietUntil = 0;

/** The API asked us to wait `ms` (a 429's Retry-After): no poll goes out before then. */
export function holdOff(ms: number): void {
  if (ms > 0) quietUntil = Math.max(quietUntil, Date.now() + ms);
}

/** How long until the page may call the API again (0: now). */
export const waitLeftMs = (): number => Math.max(0, quietUntil - Date.now());

export function schedule(): void {
  clearTimeout(timer);
  const current = state.view?.order.status;
  if (state.failure === 'notFound' || state.leaving || (current && SETTLED.includes(current))) return;
  let delay = document.hidden ? HIDDEN_POLL_MS : current === 'EXPIRED' || current === 'UNRESOLVED' ? SLOW_POLL_MS : POLL_MS;
  if (failures) delay = Math.max(delay, Math.min(MAX_BACKOFF_MS, POLL_MS * 2 ** failures));
  delay = Math.max(delay, waitLeftMs());
  timer = setTimeout(() => void poll(), delay);
}

export async function poll(): Promise<void> {
  if (polling) return;
  // An action's answer is newer than anything a poll sent now could read first.
  if (state.busy) return schedule();
  // Asked to wait (429 Retry-After): the next poll goes out when the wait is over, not before.
  if (waitLeftMs() > 0) return schedule();
  polling = true;
  clearTimeout(timer);
  const sequence = nextSequence();
  const result = await callPage(orderId);
  polling = false;
  if (result.ok) {
    failures = 0;
    apply(result.view, sequence);
  } else if (result.status === 404) {
    state.failure = 'notFound';
    rerender();
  } else {
    failures += 1;
    holdOff(result.retryAfterMs);
    if (!state.view && state.failure !== 'load') {
      state.failure = 'load';
      rerender();
    }
  }
  schedule();
}

/** Once a second: the countdown, and the switch to "expired" when it reaches zero. */
function tick(): void {
  const view = state.view;
  if (!view || !('expired_at_t' in view.invoice)) return;
  const invoice = view.invoice as PayInvoice;
  const clock = document.getElementById('countdown');
  if (clock) clock.textContent = countdown(invoice.expired_at_t - Date.now());
  if (clock && ranOut(view.order, invoice)) rerender();
}

/** Asks for the order at once, then keeps it fresh. */
export function startPolling(): void {
  void poll();
  setInterval(tick, 1_000);
  // Back to the tab: look at once, then poll at the visible pace again.
  document.addEventListener('visibilitychange', () => (document.hidden ? schedule() : void poll()));
}
