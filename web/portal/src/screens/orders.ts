import { h } from '../../../common/dom';
import type { PortalOrderRow } from '#shared/schemas/portal-responses';
import { ORDER_STATUSES } from '#shared/domain/statuses';
import { portalApi } from '../api';
import { formatAmount, formatTime } from '../format';
import { t } from '../i18n';
import { navigate } from '../router';
import { filtersForm, pagedRows, say, showScreen, type Screen, type Column, columnRow, dataTable, statusPill } from './screen';

const FILTERS = ['status', 'from', 'to', 'q'] as const;

/** The orders list: filters and search in the URL (#/orders?status=PAID&q=...), pages by cursor, CSV export. */
export const ordersScreen: Screen = (main, params) => {
  const strings = t();
  const query = new URLSearchParams();
  for (const name of FILTERS) if (params[name]) query.set(name, params[name]!);
  const field = (name: string, label: string, control: HTMLElement) => h('div', { class: 'field' }, h('label', { for: `filter-${name}` }, label), control);
  const status = h(
    'select',
    { id: 'filter-status', name: 'status' },
    h('option', { value: '' }, strings.anyStatus),
    ORDER_STATUSES.map((code) => h('option', { value: code, selected: params.status === code }, strings.statuses[code] ?? code)),
  );
  const from = h('input', { id: 'filter-from', name: 'from', type: 'date', value: params.from ?? '' });
  const to = h('input', { id: 'filter-to', name: 'to', type: 'date', value: params.to ?? '' });
  const search = h('input', { id: 'filter-q', name: 'q', type: 'search', value: params.q ?? '', 'aria-describedby': 'filter-q-hint', spellcheck: 'false', maxlength: '200' });
  const form = filtersForm(
    'orders',
    { status, from, to, q: search },
    field('status', strings.status, status),
    field('from', strings.from, from),
    field('to', strings.to, to),
    h('div', { class: 'field wide' }, h('label', { for: 'filter-q' }, strings.search), search, h('p', { id: 'filter-q-hint', class: 'hint' }, strings.searchHint)),
    h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, strings.apply), h('a', { class: 'button', href: portalApi.exportUrl(query), download: '' }, strings.exportCsv)),
  );
  const read = async (cursor?: string) => {
    const page = new URLSearchParams(query);
    if (cursor) page.set('cursor', cursor);
    const result = await portalApi.orders(page);
    return result.ok ? { ...result, data: { rows: result.data.orders, next_cursor: result.data.next_cursor } } : result;
  };
  const columns: Column<PortalOrderRow>[] = [
    [strings.colOrder, (order) => [h('a', { href: `#/orders/${order.order_id}` }, order.merchant_order_id || order.order_id), order.title ? h('span', { class: 'sub' }, order.title) : null]],
    [strings.colStatus, (order) => statusPill(order.status)],
    [strings.colAmount, (order) => formatAmount(order.price_amount, order.price_currency)],
    [strings.colCreated, (order) => formatTime(order.created_at)],
  ];
  const { body, outcome, more, load } = pagedRows(read, columnRow(columns), strings.noOrders, (region, failure) =>
    failure.status === 401 ? navigate('#/sign-in') : say(region, strings.error, 'error'),
  );
  showScreen(main, strings.orders, form, dataTable({ class: 'orders', caption: strings.ordersCaption }, columns, body), outcome, more);
  void load();
};
