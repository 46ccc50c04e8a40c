import { SUBSCRIPTION_STATUSES } from '#shared/domain/subscription';
import type { PortalSubscriptionFigures, PortalSubscriptionRow } from '#shared/schemas/portal-responses';
import { fill, h } from '../../../common/dom';
import { subscriptionsApi } from '../api';
import { formatAmount, formatTime } from '../format';
import { currentLang, t } from '../i18n';
import { navigate } from '../router';
import { planPrice } from './plans';
import { filtersForm, notice, pagedRows, say, showScreen, type Screen, facts, type Column, columnRow, dataTable } from './screen';

const FILTERS = ['status', 'q'] as const;

/** A subscription's status as a pill, in the one label of its state. */
export const subscriptionStatusLabel = (status: string) => h('span', { class: `pill sub-${status}` }, t().subscriptionStatuses[status] ?? status);

/** Who a subscription is for: its customer's email, else the merchant's customer id, else its own id. */
export const subscriberOf = (row: Pick<PortalSubscriptionRow, 'customer_email' | 'customer_id' | 'subscription_id'>): string => row.customer_email ?? row.customer_id ?? row.subscription_id;

/** A share as a person reads it in the portal's language: "8.3%". */
const percent = (rate: number) => new Intl.NumberFormat(currentLang() === 'zh' ? 'zh-CN' : 'en-US', { style: 'percent', maximumFractionDigits: 1 }).format(rate);

/** Monthly recurring revenue (per currency) and the last 30 days' churn, with what each counts. */
function figuresSection(figures: PortalSubscriptionFigures): HTMLElement {
  const strings = t();
  const { churn } = figures;
  return h(
    'section',
    { 'aria-labelledby': 'figures-title', class: 'figures' },
    h('h2', { id: 'figures-title' }, strings.figuresTitle),
    facts([
      [
        strings.mrr,
        figures.mrr.length
          ? h(
              'ul',
              { class: 'plain', id: 'mrr' },
              figures.mrr.map((entry) => h('li', null, strings.mrrOf(formatAmount(entry.amount, entry.currency), entry.subscriptions))),
            )
          : strings.noRevenue,
      ],
      [strings.churnTitle, h('span', { id: 'churn' }, churn.rate === null ? strings.churnNone : strings.churnValue(percent(churn.rate), churn.ended, churn.at_start))],
    ]),
    h('p', { class: 'hint' }, strings.mrrHint),
    h('p', { class: 'hint' }, strings.churnHint),
    figures.complete ? null : h('p', { class: 'notice error', id: 'figures-partial' }, strings.figuresPartial(figures.read_limit)),
  );
}

/** The subscriptions: status filter and search in the URL (#/subscriptions?status=active&q=...), the figures, pages by cursor, CSV export. */
export const subscriptionsScreen: Screen = (main, params) => {
  const strings = t();
  const query = new URLSearchParams();
  for (const name of FILTERS) if (params[name]) query.set(name, params[name]!);
  const status = h(
    'select',
    { id: 'filter-status', name: 'status' },
    h('option', { value: '' }, strings.anyStatus),
    SUBSCRIPTION_STATUSES.map((code) => h('option', { value: code, selected: params.status === code }, strings.subscriptionStatuses[code] ?? code)),
  );
  const search = h('input', { id: 'filter-q', name: 'q', type: 'search', value: params.q ?? '', 'aria-describedby': 'filter-q-hint', spellcheck: 'false', maxlength: '254' });
  const form = filtersForm(
    'subscriptions',
    { status, q: search },
    h('div', { class: 'field' }, h('label', { for: 'filter-status' }, strings.status), status),
    h('div', { class: 'field wide' }, h('label', { for: 'filter-q' }, strings.search), search, h('p', { id: 'filter-q-hint', class: 'hint' }, strings.subscriptionSearchHint)),
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'submit', class: 'primary' }, strings.apply),
      h('a', { class: 'button', href: subscriptionsApi.exportUrl(query), download: '' }, strings.exportCsv),
    ),
  );
  const columns: Column<PortalSubscriptionRow>[] = [
    [strings.colCustomer, (row) => h('a', { href: `#/subscriptions/${row.subscription_id}` }, subscriberOf(row))],
    [strings.colPlan, (row) => h('span', null, row.plan_name, h('span', { class: 'sub' }, planPrice(row)))],
    [strings.colStatus, (row) => subscriptionStatusLabel(row.status)],
    [strings.colNextDue, (row) => (row.status === 'canceled' ? '—' : formatTime(row.period_due_at))],
    [strings.colCreated, (row) => formatTime(row.created_at)],
  ];
  const read = async (cursor?: string) => {
    const page = new URLSearchParams(query);
    if (cursor) page.set('cursor', cursor);
    const result = await subscriptionsApi.list(page);
    return result.ok ? { ...result, data: { rows: result.data.subscriptions, next_cursor: result.data.next_cursor } } : result;
  };
  const { body, outcome, more, load } = pagedRows(read, columnRow(columns), strings.noSubscriptions);
  const figures = h('div');
  const figuresOutcome = notice();
  showScreen(
    main,
    strings.subscriptions,
    h('p', null, strings.subscriptionsLead),
    figures,
    figuresOutcome,
    form,
    dataTable({ class: 'subscriptions', caption: strings.subscriptionsCaption }, columns, body),
    outcome,
    more,
  );
  void load();
  void subscriptionsApi.figures().then((result) => {
    if (result.ok) fill(figures, figuresSection(result.data));
    else if (result.status === 401) navigate('#/sign-in');
    else say(figuresOutcome, strings.error, 'error');
  });
};
