import { MAX_CLOCK_ADVANCE_DAYS } from '#shared/domain/subscription';
import type { PortalSubscriptionPage } from '#shared/schemas/portal-responses';
import { fill, h } from '../../../common/dom';
import { subscriptionsApi } from '../api';
import { formatAmount, formatTime } from '../format';
import { t } from '../i18n';
import { planPrice } from './plans';
import { field, keepFresh, notice, say, sayFailure, showScreen, type Screen, facts, statusPill, type Column, columnRow, dataTable, section } from './screen';
import { subscriberOf, subscriptionStatusLabel } from './subscriptions';

type Page = PortalSubscriptionPage;

function detailsSection(page: Page): HTMLElement {
  const strings = t();
  const { subscription, plan, due } = page;
  const pairs: [string, string | Node][] = [
    [strings.colStatus, subscriptionStatusLabel(subscription.status)],
    [strings.colPlan, h('span', null, h('a', { href: `#/plans/${plan.plan_id}` }, plan.name), h('span', { class: 'sub' }, planPrice(plan)))],
    [strings.customerEmail, subscription.customer_email ?? '—'],
    [strings.customerId, subscription.customer_id ?? '—'],
  ];
  if (due)
    pairs.push([strings.periodDue(due.period), h('time', { datetime: due.due_at, id: 'due-at' }, formatTime(due.due_at))], [strings.amountDue, formatAmount(due.price_amount, due.price_currency)]);
  pairs.push([strings.periodsPaid, h('span', { id: 'periods-paid' }, String(subscription.periods_paid))], [strings.startedAt, formatTime(subscription.started_at)]);
  if (subscription.sandbox) pairs.push([strings.testClock, h('time', { datetime: subscription.clock, id: 'clock' }, formatTime(subscription.clock))]);
  if (subscription.cancel_at_period_end && subscription.status !== 'canceled') pairs.push([strings.colState, strings.endsAtPeriodEnd]);
  if (subscription.canceled_at) {
    const why = subscription.cancel_reason ? strings.historyWhy(strings.cancelReasons[subscription.cancel_reason] ?? subscription.cancel_reason) : '';
    pairs.push([strings.endedAt, h('span', null, formatTime(subscription.canceled_at), why ? h('span', { class: 'sub' }, why) : null)]);
  }
  return section('details-title', strings.details, facts(pairs));
}

function periodsSection(page: Page): HTMLElement {
  const strings = t();
  const columns: Column<Page['periods'][number]>[] = [
    [strings.colPeriod, (period) => strings.periodAttempt(period.period, period.attempt)],
    [strings.colDue, (period) => formatTime(period.due_at)],
    [strings.colAmount, (period) => formatAmount(period.price_amount, period.price_currency)],
    // An order id is a long word: it gives way (breaks anywhere) before the words beside it are squeezed.
    [strings.colOrder, (period) => h('a', { href: `#/orders/${period.order_id}`, class: 'hash' }, period.order_id)],
    [strings.colStatus, (period) => (period.order_status ? statusPill(period.order_status) : '—')],
    [strings.colCreated, (period) => formatTime(period.created_at)],
  ];
  return section(
    'periods-title',
    strings.periodsTitle,
    page.periods.length ? dataTable({ class: 'periods', labelledBy: 'periods-title' }, columns, h('tbody', null, page.periods.map(columnRow(columns)))) : h('p', null, strings.noPeriods),
  );
}

/**
 * One subscription: its plan, what is due next, its periods with each order (a link to its page)
 * and the buttons the API allows (cancel now or at the period's end; a sandbox's test clock);
 * live while open, so a period paid elsewhere shows without a reload.
 */
export const subscriptionScreen: Screen = (main, params) => {
  const strings = t();
  const subscriptionId = params.id ?? '';
  const outcome = notice();
  const content = h('div', { class: 'subscription' });
  // The actions are drawn apart from the rest: a poll does not wipe the days being typed.
  const actions = h('div', { class: 'actions' });
  let shown = '';
  let actionsShown = '';
  const draw = (page: Page) => {
    heading.textContent = strings.subscriptionPage(subscriberOf(page.subscription));
    document.title = heading.textContent;
    const { actions: allowed, ...rest } = page;
    const fingerprint = JSON.stringify(rest);
    if (fingerprint !== shown) {
      shown = fingerprint;
      fill(content, detailsSection(page), periodsSection(page));
    }
    if (JSON.stringify(allowed) !== actionsShown) {
      actionsShown = JSON.stringify(allowed);
      fill(actions, actionsOf(allowed));
    }
  };
  // An action's answer is the subscription's page: drawn as the reads' are (keepFresh's `drawn`).
  const answered = async (request: ReturnType<typeof subscriptionsApi.get>, done: (page: Page) => string) => {
    const result = await live.drawn(request);
    if (!result.ok) return sayFailure(outcome, result);
    say(outcome, done(result.data));
  };
  const cancel = async (atPeriodEnd: boolean) => {
    if (!window.confirm(atPeriodEnd ? strings.confirmCancelAtEnd : strings.confirmCancelNow)) return;
    await answered(subscriptionsApi.cancel(subscriptionId, atPeriodEnd), (page) => (page.subscription.status === 'canceled' ? strings.subscriptionEnded : strings.cancelScheduled));
  };
  const clockForm = () => {
    const days = h('input', { id: 'clock-days', name: 'days', type: 'number', min: '1', max: String(MAX_CLOCK_ADVANCE_DAYS), step: '1', inputmode: 'numeric', value: '30', required: true });
    return h(
      'form',
      {
        class: 'inline-form clock',
        'aria-labelledby': 'clock-title',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          await answered(subscriptionsApi.advanceClock(subscriptionId, Number(days.value)), (page) => strings.clockMoved(formatTime(page.subscription.clock)));
        },
      },
      h('h3', { id: 'clock-title' }, strings.moveClock),
      h('p', { class: 'hint' }, strings.moveClockLead),
      field('clock-days', strings.clockDays, days),
      h('div', { class: 'buttons' }, h('button', { type: 'submit' }, strings.moveClock)),
    );
  };
  const actionsOf = (allowed: Page['actions']) => [
    allowed.includes('cancel') || allowed.includes('cancel_at_period_end')
      ? h(
          'div',
          { class: 'buttons' },
          allowed.includes('cancel') ? h('button', { type: 'button', id: 'cancel-now', onclick: () => void cancel(false) }, strings.cancelNow) : null,
          allowed.includes('cancel_at_period_end') ? h('button', { type: 'button', id: 'cancel-at-end', onclick: () => void cancel(true) }, strings.cancelAtEnd) : null,
        )
      : null,
    allowed.includes('advance_clock') ? clockForm() : null,
  ];
  const heading = showScreen(
    main,
    strings.subscriptions,
    h('p', null, h('a', { href: '#/subscriptions' }, strings.backToSubscriptions)),
    h('p', { class: 'hint' }, strings.live),
    section('actions-title', strings.actions, actions, outcome),
    content,
  );
  const live = keepFresh(outcome, () => subscriptionsApi.get(subscriptionId), draw, strings.noSuchSubscription);
  return live.leave;
};
