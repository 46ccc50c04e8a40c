import { callPage, type PayInvoice, type PayView } from './api';
import { countdown, safeUrl } from '../common/format';
import { answerOrder, type Look, type Pace, poller } from '../common/poller';
import { orderId, ranOut, rerender, SETTLED, state } from './state';

/**
 * Keeping the order fresh: every answer is the whole order, applied newest request first
 * (actions.ts takes its requests' turns with {@link nextTurn} too). Polling (web/common/poller.ts)
 * slows down when the tab is hidden, for orders that rarely move and after failures, and stops
 * once the order is settled, missing or the page is leaving.
 */

/** Poll interval while the page is visible; when hidden, and for orders that rarely move. */
const POLL_MS = 3_000;
const HIDDEN_POLL_MS = 30_000;
const SLOW_POLL_MS = 15_000;
const MAX_BACKOFF_MS = 60_000;
/** Long enough to read "Payment received" before the shop's page opens. */
const REDIRECT_DELAY_MS = 1_200;

let redirecting = false;

/** The turn of a request about to be sent: its answer is ignored when a later one's came first. */
export const nextTurn = answerOrder();

/** An answer (of a poll or an action) becomes the page's order, unless a newer one came first (its request's turn says). */
export function apply(view: PayView, current: () => boolean): void {
  if (!current()) return;
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

/** The order's pace; an expired or unresolved order rarely moves, and is looked at every {@link SLOW_POLL_MS}. */
const PACE: Pace = { visibleMs: POLL_MS, hiddenMs: HIDDEN_POLL_MS, maxBackoffMs: MAX_BACKOFF_MS };

/** One look at the order: its answer applied, a missing order said (and no more looks), a failure said when nothing is shown yet. */
async function look(): Promise<Look> {
  const current = nextTurn();
  const result = await callPage(orderId);
  if (result.ok) {
    apply(result.body, current);
    return { ok: true };
  }
  if (result.status === 404) {
    state.failure = 'notFound';
    rerender();
    return 'stop';
  }
  if (!state.view && state.failure !== 'load') {
    state.failure = 'load';
    rerender();
  }
  return { ok: false, retryAfterMs: result.retryAfterMs };
}

const polls = poller(PACE, look, {
  // Settled, or leaving for the shop's page: nothing more to learn.
  wanted: () => {
    const current = state.view?.order.status;
    if (state.leaving || (current && SETTLED.includes(current))) return false;
    return current === 'EXPIRED' || current === 'UNRESOLVED' ? SLOW_POLL_MS : true;
  },
  // An action's answer is newer than anything a poll sent now could read first.
  held: () => !!state.busy,
});

/** The API asked us to wait `ms` (a 429's Retry-After): no poll goes out before then. */
export const holdOff = polls.holdOff;

/** How long until the page may call the API again (0: now). */
export const waitLeftMs = polls.waitLeftMs;

/** Looks at the order now (unless an action is running or the API asked to wait), then keeps to the pace. */
export const poll = polls.now;

/** Once a second: the countdown, and the switch to "expired" when it reaches zero. */
function tick(): void {
  const view = state.view;
  if (!view || !('expired_at_t' in view.invoice)) return;
  const invoice = view.invoice as PayInvoice;
  const clock = document.getElementById('countdown');
  if (clock) clock.textContent = countdown(invoice.expired_at_t - Date.now());
  if (clock && ranOut(view.order, invoice)) rerender();
}

/** Asks for the order at once, then keeps it fresh (back to the tab: at once again). */
export function startPolling(): void {
  void poll();
  setInterval(tick, 1_000);
}
