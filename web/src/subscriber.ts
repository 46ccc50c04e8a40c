import type { SubscriberPageView, SubscriberPeriodView } from '#shared/schemas/subscriber';
import { formatAmount } from '#shared/domain/amount-format';
import { STATE_LABELS } from '#shared/domain/state-labels';
import { fill, h } from '../common/dom';
import { answerOrder, type Look, type Pace, poller } from '../common/poller';
import { dateTime } from '../common/format';
import { htmlLang } from '../common/i18n';
import { callApi } from './api';
import { problemOf } from './problems';
import { dayText, pageBar, priceText, statusLine } from './billing';
import { state, t } from './state';

/**
 * The subscriber's own page, opened by the link every subscriber email carries
 * (`#subscription=<secret>`: the secret stays in the fragment, so no server or CDN log sees it;
 * it is sent in POST bodies). No account: the link is the capability. It shows the
 * subscription's status, the next due date and amount, "Pay now" when something is owed (on the
 * period order's own payment page), the past periods with their receipts, the cancellation at
 * the period's end, and a new link in place of this one.
 */

const SECRET = /^#subscription=([A-Za-z0-9_-]{43})$/;

/** The link's secret, or undefined when the page was not opened by a subscriber's link. */
export const subscriberSecret = (): string | undefined => SECRET.exec(location.hash)?.[1];

let view: SubscriberPageView | undefined;
let failure: 'invalid' | 'load' | undefined;
/** The control whose request is running (its data-k), or 'leaving' for the payment page. */
let busy: string | undefined;
let asking = false;
let problem: string | undefined;
/** What the last action said that is no problem (nothing due, a new link sent). */
let notice: string | undefined;
let replaced = false;
let root: HTMLElement = document.body;
let secret = '';

export async function openSubscriber(element: HTMLElement, linkSecret: string): Promise<void> {
  root = element;
  secret = linkSecret;
  draw();
  // The first look whatever is awaited (nothing is known yet), then the poller's.
  await load();
}

/** While a payment is awaited, how often the page looks again (visible tab, hidden tab, at most after failures). */
const PACE: Pace = { visibleMs: 10_000, hiddenMs: 60_000, maxBackoffMs: 120_000 };

/**
 * Whether the page expects news: the first period is unpaid, a period is owed, or its payment
 * was just made and the subscription has not taken it in yet (a renewal job does that in
 * seconds). An active subscription with nothing owed changes only once a period, so the page
 * does not keep asking.
 */
const awaited = (): boolean => !!view && view.subscription.status !== 'canceled' && (view.subscription.payable || view.subscription.status === 'incomplete' || view.subscription.status === 'past_due');

/** What the page shows, but the sandbox's test clock (it moves with every answer). */
const news = (): string => JSON.stringify([view && { ...view, subscription: { ...view.subscription, clock: undefined } }, failure]);

/** One look at the subscription: drawn when something changed; an invalid link ends the looks. */
async function look(): Promise<Look> {
  const current = turn();
  const answer = await callApi<SubscriberPageView>('/v1/pay/subscriptions/open', 200, { secret });
  // An answer older than one drawn already (an action's look overtook this one) is left.
  if (!current()) return answer.ok ? { ok: true } : { ok: false, retryAfterMs: answer.retryAfterMs };
  const before = news();
  if (answer.ok) [view, failure] = [answer.body, undefined];
  else if (answer.code === 'SUBSCRIPTION_NOT_FOUND' || answer.status === 400) failure = 'invalid';
  else if (!view) failure = 'load';
  // A refresh that found nothing new leaves the page (and the reader's focus) alone.
  if (news() !== before) draw();
  if (failure === 'invalid') return 'stop';
  return answer.ok ? { ok: true } : { ok: false, retryAfterMs: answer.retryAfterMs };
}

/** The answers' order: a look or the cancellation takes a turn as it is sent (web/common/poller.ts). */
const turn = answerOrder();

/** Looks while something is awaited, unless the reader is in the middle of something (an action, the cancel question). */
const polls = poller(PACE, look, { wanted: () => failure !== 'invalid' && awaited(), held: () => busy !== undefined || asking || replaced });

/** A look at once (the first, an action's: its `busy` would hold the poller's), then the pace again. */
async function load(): Promise<void> {
  await look();
  polls.schedule();
}

/** Runs one action of the page (`key`: its control) and draws what it answered. */
async function act(key: string, run: () => Promise<void>): Promise<void> {
  if (busy) return;
  busy = key;
  problem = undefined;
  notice = undefined;
  draw();
  await run();
  if (busy === key) busy = undefined;
  draw(key);
}

const EXPLAINED = () => ({ SUBSCRIPTION_PAYMENT_PENDING: t().subscriber.SUBSCRIPTION_PAYMENT_PENDING });

const payNow = () =>
  act('pay', async () => {
    const answer = await callApi<{ payment_url: string | null }>('/v1/pay/subscriptions/payment', 200, { secret });
    if (answer.ok && answer.body.payment_url) {
      busy = 'leaving';
      location.assign(answer.body.payment_url);
      return;
    }
    if (answer.ok) {
      notice = t().subscriber.nothingDue;
      await load();
    } else if (answer.code === 'SUBSCRIPTION_NOT_FOUND') failure = 'invalid';
    else problem = problemOf(answer, EXPLAINED());
  });

const cancel = () =>
  act('cancel-yes', async () => {
    const current = turn();
    const answer = await callApi<SubscriberPageView>('/v1/pay/subscriptions/cancellation', 200, { secret });
    asking = false;
    if (answer.ok) {
      if (current()) view = answer.body;
    } else if (answer.code === 'SUBSCRIPTION_NOT_FOUND') failure = 'invalid';
    else problem = problemOf(answer, EXPLAINED());
  });

const newLink = () =>
  act('new-link', async () => {
    const answer = await callApi('/v1/pay/subscriptions/link', 200, { secret });
    replaced = answer.ok;
    if (answer.ok) notice = t().subscriber.newLinkSent;
    else if (answer.code === 'SUBSCRIPTION_NOT_FOUND') failure = 'invalid';
    else problem = problemOf(answer, {});
  });

/** The sentence that says where the subscription stands. */
function standing(subscription: SubscriberPageView['subscription']): { text: string; tone: 'info' | 'ok' | 'warn' } {
  const words = t().subscriber;
  if (subscription.status === 'canceled') return { text: (words.ended[subscription.cancel_reason ?? 'merchant'] ?? words.ended.merchant!)(subscription.merchant_name), tone: 'warn' };
  if (subscription.cancel_at_period_end && subscription.ends_at) return { text: words.ending(dayText(subscription.ends_at)), tone: 'warn' };
  if (subscription.status === 'trialing') return { text: words.trialing(dayText(subscription.trial_ends_at ?? subscription.started_at)), tone: 'ok' };
  if (subscription.status === 'active') return { text: words.active, tone: 'ok' };
  if (subscription.status === 'past_due') return { text: words.past_due, tone: 'warn' };
  return { text: words.incomplete, tone: 'info' };
}

/** A list of terms and their values (rows whose value is null are left out). */
const facts = (rows: [string, string | null, string?][]) =>
  h('dl', { class: 'refund-facts' }, ...rows.filter(([, value]) => value !== null).flatMap(([term, value, field]) => [h('dt', null, term), h('dd', field ? { 'data-field': field } : null, value)]));

function periodItem(period: SubscriberPeriodView): HTMLElement {
  const words = t().subscriber;
  const labels = STATE_LABELS[state.lang].orderStatus;
  return h(
    'li',
    { class: 'period', 'data-period': period.period },
    h('h3', null, words.period(period.period), period.attempt > 1 ? ` (${words.attempt(period.attempt)})` : ''),
    facts([
      [words.dueOn, dayText(period.due_at)],
      [t().amount, formatAmount(period.amount, period.currency)],
      [words.status, labels[period.status] ?? period.status, 'status'],
      [words.paidAt, period.paid_at ? dateTime(period.paid_at, state.lang) : null],
      [words.paidWith, period.pay_amount && period.pay_currency ? formatAmount(period.pay_amount, period.pay_currency) : null],
    ]),
    period.txids.length ? h('p', null, `${words.transaction}: `, ...period.txids.map((txid) => h('code', { class: 'value' }, txid))) : null,
    period.paid_at ? h('p', null, h('a', { href: period.receipt_url }, words.receipt(period.period))) : null,
  );
}

function draw(focus?: string): void {
  const strings = t();
  const words = strings.subscriber;
  document.documentElement.lang = htmlLang(state.lang);
  const bar = pageBar(() => draw());
  const status = statusLine;
  if (failure || !view) {
    document.title = failure === 'invalid' ? words.invalid : strings.loading;
    fill(
      root,
      bar,
      h('header', { class: 'head' }, h('h1', null, failure === 'invalid' ? words.invalid : words.title)),
      status(failure === 'invalid' ? words.invalidMore : failure === 'load' ? strings.loadFailed : strings.loading, failure ? 'error' : 'info'),
    );
    return;
  }
  const { subscription, periods } = view;
  const ended = subscription.status === 'canceled';
  document.title = `${words.title} · ${subscription.merchant_name}`;
  const head = h(
    'header',
    { class: 'head' },
    h('p', { class: 'merchant' }, strings.billing.from(subscription.merchant_name)),
    subscription.sandbox ? h('p', { class: 'badge' }, strings.sandboxBadge) : null,
    h('h1', null, subscription.plan.name),
    subscription.plan.description ? h('p', { class: 'description' }, subscription.plan.description) : null,
    h('p', { class: 'price' }, h('strong', null, priceText(subscription.plan))),
  );
  const where = standing(subscription);
  const summary = facts([
    [
      words.nextPayment,
      subscription.next_due_at && subscription.next_amount && subscription.next_currency
        ? words.nextValue(formatAmount(subscription.next_amount, subscription.next_currency), dayText(subscription.next_due_at))
        : null,
      'next',
    ],
    [words.periodsPaid, String(subscription.periods_paid)],
    [words.started, dayText(subscription.started_at)],
    // A sandbox subscription's test clock runs ahead of the real one: its dates are on that clock.
    [words.testClock, subscription.sandbox ? dateTime(subscription.clock, state.lang) : null],
  ]);
  const pay = subscription.payable
    ? h(
        'button',
        { type: 'button', class: 'button', 'data-k': 'pay', 'aria-disabled': busy ? 'true' : undefined, onclick: () => void payNow() },
        busy === 'pay' || busy === 'leaving' ? words.opening : words.payNow,
      )
    : null;
  const cancelling =
    ended || subscription.cancel_at_period_end
      ? null
      : asking
        ? h(
            'div',
            { class: 'cancel asking', role: 'group', 'aria-labelledby': 'cancel-ask' },
            h('p', { id: 'cancel-ask' }, words.cancelAsk),
            h(
              'div',
              { class: 'actions' },
              h(
                'button',
                { type: 'button', class: 'button danger', 'data-k': 'cancel-yes', 'aria-disabled': busy ? 'true' : undefined, onclick: () => void cancel() },
                busy === 'cancel-yes' ? words.canceling : words.cancelYes,
              ),
              h('button', { type: 'button', class: 'button secondary', 'data-k': 'cancel-no', onclick: () => ((asking = false), draw('cancel')) }, words.cancelNo),
            ),
          )
        : h('div', { class: 'cancel' }, h('button', { type: 'button', class: 'link', 'data-k': 'cancel', onclick: () => ((asking = true), draw('cancel-no')) }, words.cancel));
  const history = h(
    'section',
    { 'aria-labelledby': 'history-title' },
    h('h2', { id: 'history-title' }, words.history),
    periods.length ? h('ul', { class: 'periods' }, ...periods.map(periodItem)) : h('p', { class: 'hint' }, words.noHistory),
  );
  const renewal = replaced
    ? null
    : h(
        'section',
        { class: 'again' },
        h('p', { class: 'hint' }, words.newLinkHint),
        h('button', { type: 'button', class: 'button secondary', 'data-k': 'new-link', 'aria-disabled': busy ? 'true' : undefined, onclick: () => void newLink() }, words.newLink),
      );
  fill(
    root,
    bar,
    head,
    status(where.text, where.tone),
    h(
      'div',
      { class: 'body' },
      summary,
      problem ? h('p', { class: 'problem', role: 'alert' }, problem) : null,
      notice ? h('p', { class: 'hint', role: 'status' }, notice) : null,
      replaced ? null : pay,
      replaced ? null : cancelling,
      history,
      renewal,
    ),
  );
  if (focus) root.querySelector<HTMLElement>(`[data-k="${focus}"]`)?.focus();
}
