import type { PayPlanView } from '#shared/schemas/subscriber';
import { formatAmount } from '#shared/domain/amount-format';
import { h } from '../common/dom';
import { languageSwitch } from '../common/i18n';
import { switchLang } from './actions';
import { apiBase, retryAfterMs } from './api';
import { state, t } from './state';

/**
 * What the plan's page (plan-page.ts) and the subscriber's page (subscriber.ts) share: one JSON
 * call to the API, a plan's price and a date as the subscriber reads them, the language bar and
 * the status line.
 */

/** An answer of the API: its body when the status is the one expected, else why not (status 0: no answer at all). */
export type Answer<T> = { ok: true; body: T } | { ok: false; status: number; code: string; retryAfterMs: number };

/** Calls `path` with a JSON body (a POST) or none (a GET). */
export async function callApi<T>(path: string, expected: number, body?: unknown): Promise<Answer<T>> {
  try {
    const response = await fetch(`${apiBase()}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
    const parsed = (await response.json().catch(() => ({}))) as T & { error_code?: string };
    if (response.status === expected) return { ok: true, body: parsed };
    return { ok: false, status: response.status, code: parsed.error_code ?? '', retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
  } catch {
    return { ok: false, status: 0, code: '', retryAfterMs: 0 };
  }
}

type PlanPrice = Pick<PayPlanView['plan'], 'price_amount' | 'price_currency' | 'interval_unit' | 'interval_count'>;

/** "12.50 USD every month", "每 3 个月 30.00 USD". */
export function priceText(plan: PlanPrice): string {
  const words = t().billing;
  return words.price(formatAmount(plan.price_amount, plan.price_currency), words.every(words.units[plan.interval_unit] ?? plan.interval_unit, plan.interval_count));
}

/** A day as the language writes it, in UTC as the API's times are (and as web/common/format.ts writes a time: "2 Jan 2027"). */
export const dayText = (iso: string): string => new Intl.DateTimeFormat(state.lang === 'zh' ? 'zh-CN' : 'en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso));

/** What a refused request says: the API's limit with its wait, else the page's own word for the code, else a plain failure. */
export function problemOf(answer: Extract<Answer<unknown>, { ok: false }>, explained: Readonly<Record<string, string>>): string {
  if (answer.status === 429 && answer.retryAfterMs > 0) return t().API_LIMIT_EXCEEDED(Math.ceil(answer.retryAfterMs / 1000));
  return explained[answer.code] ?? t().failed;
}

/** The bar with the language switch; `redraw` draws the page again in the language chosen. */
export const pageBar = (redraw: () => void): HTMLElement =>
  h(
    'div',
    { class: 'bar' },
    languageSwitch(
      state.lang,
      t(),
      (next) => {
        switchLang(next);
        redraw();
      },
      'lang',
    ),
  );

/** The page's one live status line (#status), in its tone. */
export const statusLine = (text: string, tone: 'info' | 'ok' | 'warn' | 'error'): HTMLElement => h('p', { id: 'status', class: `status ${tone}`, role: 'status', 'aria-live': 'polite' }, text);
