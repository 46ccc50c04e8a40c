import { fill, h } from '../../../common/dom';
import type { PortalOrderAction, PortalOrderPage } from '#shared/schemas/portal-responses';
import { portalApi } from '../api';
import { formatAmount, formatTime } from '../format';
import { t } from '../i18n';
import { signedInUser } from '../session';
import { drawRefundForm, refundsSection, type PageAnswer } from './refunds';
import { keepFresh, notice, say, sayFailure, showScreen, type Screen, facts, statusPill, type Column, columnRow, dataTable, section } from './screen';

function detailsSection(page: PortalOrderPage) {
  const strings = t();
  const { order } = page;
  return section(
    'details-title',
    strings.details,
    facts([
      [strings.status, statusPill(order.status)],
      [strings.merchantOrderId, order.merchant_order_id || '—'],
      [strings.title, order.title || '—'],
      [strings.price, formatAmount(order.price_amount, order.price_currency)],
      [strings.pay, formatAmount(order.pay_amount, order.pay_currency)],
      [strings.created, formatTime(order.created_at)],
      [strings.updated, formatTime(order.updated_at)],
      [strings.sandbox, order.sandbox ? strings.yes : strings.no],
    ]),
  );
}

function historySection(page: PortalOrderPage) {
  const strings = t();
  return section(
    'history-title',
    strings.history,
    h(
      'ol',
      { class: 'history' },
      page.order.history.map((change) =>
        h(
          'li',
          null,
          h('time', { datetime: change.at }, formatTime(change.at)),
          ' ',
          strings.statuses[change.to] ?? change.to,
          change.reason ? h('span', { class: 'sub' }, strings.historyWhy(strings.unresolvedReasons[change.reason] ?? change.reason)) : null,
        ),
      ),
    ),
  );
}

function invoicesSection(page: PortalOrderPage) {
  const strings = t();
  return section(
    'invoices-title',
    strings.invoices,
    page.invoices.length === 0 ? h('p', null, '—') : null,
    page.invoices.map((invoice) =>
      h(
        'article',
        { class: 'card' },
        h('h3', null, strings.invoice(invoice.pay_currency, invoice.invoice_id)),
        facts([
          [strings.status, strings.statuses[invoice.status] ?? invoice.status],
          [strings.amount, formatAmount(invoice.pay_amount, invoice.pay_currency)],
          [strings.address, h('code', null, invoice.payment_address)],
        ]),
        h('h4', null, strings.payments),
        invoice.payments.length === 0
          ? h('p', null, strings.noPayments)
          : h(
              'ul',
              { class: 'payments' },
              invoice.payments.map((payment) =>
                h(
                  'li',
                  { class: 'payment' },
                  h('span', { class: 'label' }, `${strings.txid}: `),
                  payment.explorer_url
                    ? h('a', { href: payment.explorer_url, rel: 'noopener noreferrer', target: '_blank', 'aria-label': strings.onExplorer(payment.txid) }, h('code', null, payment.txid))
                    : h('code', null, payment.txid),
                  h('span', null, ` · ${strings.amount}: ${formatAmount(payment.amount, invoice.pay_currency)}`),
                  h('span', null, ` · ${strings.confirmations}: ${payment.confirmations}`),
                  h('span', null, ` · ${strings.seenAt}: `, h('time', { datetime: payment.seen_at }, formatTime(payment.seen_at))),
                  payment.left_chain_at ? h('span', { class: 'warn' }, ` · ${strings.leftChain}`) : null,
                ),
              ),
            ),
      ),
    ),
  );
}

function callbacksSection(page: PortalOrderPage) {
  const strings = t();
  const attemptColumns: Column<PortalOrderPage['callbacks'][number]['attempts'][number]>[] = [
    [strings.attemptAt, (attempt) => formatTime(attempt.at)],
    [strings.httpStatus, (attempt) => (attempt.http_status === undefined ? '—' : String(attempt.http_status))],
    [strings.latency, (attempt) => `${attempt.latency_ms} ms`],
    [strings.answer, (attempt) => h('code', null, (attempt.response ?? attempt.error ?? '').slice(0, 200) || '—')],
  ];
  return section(
    'callbacks-title',
    strings.callbacks,
    page.callbacks.length === 0 ? h('p', null, strings.noCallbacks) : null,
    page.callbacks.map((delivery) =>
      h(
        'article',
        { class: 'card delivery' },
        h('h3', null, strings.delivery(strings.statuses[delivery.status] ?? delivery.status, strings.deliveryStates[delivery.state] ?? delivery.state)),
        delivery.attempts.length === 0
          ? h('p', null, strings.noAttempts)
          : dataTable({ class: 'attempts', caption: `${strings.attempts} (${delivery.attempt_count})` }, attemptColumns, h('tbody', null, delivery.attempts.map(columnRow(attemptColumns)))),
      ),
    ),
  );
}

/** One order: its details, history, invoices and payments, callbacks, and the buttons the API allows; live while open. */
export const orderScreen: Screen = (main, params) => {
  const strings = t();
  const orderId = params.id ?? '';
  const content = h('div', { class: 'order' });
  const actions = h('div', { class: 'actions' });
  // The refund form and the refunds are drawn apart from the rest: a poll does not wipe what is being typed.
  const refundBox = h('div', { class: 'refund-ask' });
  const refundsBox = h('div', { class: 'refunds' });
  const outcome = notice();
  const canWrite = signedInUser()?.role !== 'viewer';
  let shown = '';
  let refundsShown = '';
  let refundAllowed = false;
  const draw = (page: PortalOrderPage) => {
    const { actions: allowed, refunds, ...rest } = page;
    const fingerprint = JSON.stringify(rest);
    if (fingerprint !== shown) {
      shown = fingerprint;
      fill(content, detailsSection(page), historySection(page), invoicesSection(page), callbacksSection(page));
    }
    if (JSON.stringify({ refunds, allowed }) !== refundsShown) {
      refundsShown = JSON.stringify({ refunds, allowed });
      fill(refundsBox, refundsSection(page, canWrite, answer));
      const stillFocused = actions.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.action : undefined;
      // "Refund" is its own form (the amount choices), not a button.
      fill(
        actions,
        allowed.filter((action) => action !== 'refund').map((action) => h('button', { type: 'button', 'data-action': action, onclick: () => void act(action) }, strings.action[action] ?? action)),
      );
      if (stillFocused) actions.querySelector<HTMLElement>(`[data-action="${stillFocused}"]`)?.focus();
      const canRefund = allowed.includes('refund');
      if (canRefund !== refundAllowed) {
        refundAllowed = canRefund;
        if (canRefund) void drawRefundForm(refundBox, orderId, answer);
        else fill(refundBox);
      }
    }
  };
  // An action's answer is the order's page too: drawn as the reads' are (keepFresh's `drawn`).
  const answer: PageAnswer = async (request, region) => {
    const result = await live.drawn(request);
    if (result.ok) say(outcome, strings.done);
    else sayFailure(region, result);
  };
  const act = async (action: PortalOrderAction) => {
    const question = strings.confirm[action];
    if (question && !window.confirm(question)) return;
    const result = await live.drawn(portalApi.act(orderId, action));
    if (result.ok) say(outcome, strings.done);
    else say(outcome, result.status === 401 ? strings.signInFailed : strings.error, 'error');
  };
  showScreen(
    main,
    strings.orderTitle(orderId),
    h('p', null, h('a', { href: '#/orders' }, strings.back)),
    h('p', { class: 'hint' }, strings.live),
    section('actions-title', strings.actions, actions, refundBox, outcome),
    refundsBox,
    content,
  );
  const live = keepFresh(outcome, () => portalApi.order(orderId), draw, strings.notFound);
  return live.leave;
};
