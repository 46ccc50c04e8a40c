import { type Answer, callPage, type PayView } from './api';
import { problemOf } from './problems';
import { h } from '../common/dom';
import { safeUrl } from '../common/format';
import { rememberLang } from '../common/i18n';
import { LANG_KEY, type Lang } from './i18n';
import { apply, holdOff, nextTurn, poll, waitLeftMs } from './polling';
import { focusAfterRender, orderId, rerender, state, t } from './state';

/**
 * What the buyer can do on the page: pick a currency (a checkout), simulate a sandbox payment,
 * cancel (asked once), copy a value, switch the language. Each changes {@link state} and asks
 * for a new drawing; the API's answers go through polling.ts's `apply`.
 */

/** Errors the page explains in its own words; anything else is "That did not work". */
const EXPLAINED = () => {
  const strings = t();
  return { ORDER_NOT_NEW: strings.ORDER_NOT_NEW, PAYMENT_NOT_AVAILABLE: strings.PAYMENT_NOT_AVAILABLE, ORDER_CANCELED_FAIILED: strings.ORDER_CANCELED_FAIILED };
};

async function act(action: string, key: string, payload?: unknown): Promise<Answer<PayView> | undefined> {
  if (state.busy) return undefined;
  // Still inside a wait the API asked for (429 Retry-After): say so instead of asking again.
  if (waitLeftMs() > 0) {
    state.problem = t().API_LIMIT_EXCEEDED(Math.ceil(waitLeftMs() / 1000));
    rerender();
    return undefined;
  }
  state.busy = key;
  state.problem = undefined;
  rerender();
  const current = nextTurn();
  const result = await callPage(orderId, action, payload);
  state.busy = undefined;
  // Keep the keyboard where it was: on the control that was used (if it is still there).
  focusAfterRender(key);
  if (result.ok) {
    apply(result.body, current);
    rerender();
  } else {
    holdOff(result.retryAfterMs);
    state.problem = problemOf(result, EXPLAINED());
    rerender();
    void poll();
  }
  return result;
}

export function choose(code: string, current: string | undefined): void {
  if (code !== current) void act('/checkout', `cur-${code}`, { pay_currency: code });
}

export function simulate(): void {
  void act('/sandbox-pay', 'simulate');
}

/** Opens or closes the cancel confirmation; the keyboard goes to its safe answer, or back. */
export function askCancel(asking: boolean): void {
  if (state.asking === asking) return;
  state.asking = asking;
  focusAfterRender(asking ? 'cancel-no' : 'cancel');
  rerender();
}

export async function cancel(): Promise<void> {
  const result = await act('/cancel', 'cancel-yes');
  if (!result?.ok) return;
  const back = safeUrl(result.body.order.cancel_url);
  if (back) {
    state.leaving = true;
    location.assign(back);
  }
}

export function switchLang(lang: Lang): void {
  state.lang = lang;
  rememberLang(LANG_KEY, lang);
  rerender();
}

/** How long a copy button says "Copied". */
const COPIED_MS = 2_000;

/**
 * Copies `text`; the button shows "Copied", and its accessible name says what was copied,
 * for as long; a live region announces it without moving focus.
 */
export async function copy(text: string, what: string, button: HTMLElement, note: HTMLElement): Promise<void> {
  let copied = false;
  try {
    await navigator.clipboard.writeText(text);
    copied = true;
  } catch {
    // Older browsers, or no permission: copy from a selected, off-screen text area.
    const area = h('textarea', { class: 'offscreen', readonly: true });
    area.value = text;
    document.body.appendChild(area);
    area.select();
    copied = document.execCommand('copy');
    area.remove();
  }
  const strings = t();
  note.textContent = copied ? strings.copiedWhat(what) : strings.copyFailed;
  if (!copied) return;
  button.textContent = strings.copied;
  button.setAttribute('aria-label', strings.copiedWhat(what));
  setTimeout(() => {
    button.textContent = t().copy;
    button.setAttribute('aria-label', t().copyWhat(what));
  }, COPIED_MS);
}
