import type { PayPlanView } from '#shared/schemas/subscriber';
import { formatAmount } from '#shared/domain/amount-format';
import { h } from '../common/dom';
import { languageSwitch } from '../common/i18n';
import { switchLang } from './actions';
import { state, t } from './state';

/**
 * What the plan's page (plan-page.ts) and the subscriber's page (subscriber.ts) share: a plan's price and a date as the subscriber reads them, the language bar and
 * the status line.
 */

type PlanPrice = Pick<PayPlanView['plan'], 'price_amount' | 'price_currency' | 'interval_unit' | 'interval_count'>;

/** "12.50 USD every month", "每 3 个月 30.00 USD". */
export function priceText(plan: PlanPrice): string {
  const words = t().billing;
  return words.price(formatAmount(plan.price_amount, plan.price_currency), words.every(words.units[plan.interval_unit] ?? plan.interval_unit, plan.interval_count));
}

/** A day as the language writes it, in UTC as the API's times are (and as web/common/format.ts writes a time: "2 Jan 2027"). */
export const dayText = (iso: string): string => new Intl.DateTimeFormat(state.lang === 'zh' ? 'zh-CN' : 'en-GB', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso));

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
