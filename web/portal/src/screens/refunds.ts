import { fill, h } from '../../../common/dom';
import { qrSvg } from '../../../common/qr';
import type { PortalOrderPage, PortalRefund, PortalRefundQuote } from '#shared/schemas/portal-responses';
import { refundsApi, type Result } from '../api';
import { formatAmount, formatTime } from '../format';
import { currentLang, t } from '../i18n';
import { lockedRateText, ratioText, rateTime } from '../rate-text';
import { field, notice, pagedListScreen, say, sayFailure, type Screen, facts, section } from './screen';

/** What the order page does with a request, as it is sent, whose answer is the order's page again (drawn, or the failure said in `region`). */
export type PageAnswer = (request: Promise<Result<PortalOrderPage>>, region: HTMLElement) => Promise<void>;

type Quote = NonNullable<PortalRefundQuote['quote']>;

/**
 * The "Refund" form (owners and developers): all that is left, the price's fiat value at today's
 * rate (the rate shown, locked when asked), or a custom amount in the paid currency; a note for
 * the buyer. A gateway order (no quote) is refunded in full at its gateway.
 */
export function refundForm(orderId: string, quote: Quote | null, answer: PageAnswer): HTMLElement {
  const strings = t();
  const outcome = notice();
  const reason = h('input', { id: 'refund-reason', name: 'reason', maxlength: '200', autocomplete: 'off' });
  const amount = h('input', { id: 'refund-amount', name: 'amount', inputmode: 'decimal', autocomplete: 'off', pattern: '[0-9]+([.][0-9]+)?', 'aria-describedby': 'refund-amount-hint' });
  const choice = (value: string, label: string, checked = false) => h('label', { class: 'check' }, h('input', { type: 'radio', name: 'basis', value, checked }), label);
  const choices = quote
    ? h(
        'fieldset',
        { class: 'choice' },
        h('legend', null, strings.refundAmount),
        choice('crypto', strings.refundAll(formatAmount(quote.left, quote.currency)), true),
        quote.fiat ? choice('fiat', strings.refundFiat(formatAmount(quote.fiat.amount, quote.fiat.currency), formatAmount(quote.fiat.crypto, quote.currency))) : null,
        quote.fiat
          ? h(
              'p',
              { class: 'hint', id: 'refund-rate' },
              strings.refundRate(
                quote.fiat.rate.fiat_currency,
                ratioText(quote.fiat.rate.numerator, quote.fiat.rate.denominator),
                quote.currency,
                quote.fiat.rate.source,
                rateTime(quote.fiat.rate.as_of, currentLang()),
              ),
            )
          : null,
        choice('custom', strings.refundCustom),
        field('refund-amount', strings.refundCustomAmount(quote.currency), amount, strings.refundCustomHint(formatAmount(quote.left, quote.currency))),
      )
    : h('p', { class: 'hint' }, strings.refundGateway);
  const form = h(
    'form',
    {
      class: 'inline-form',
      'aria-labelledby': 'refund-ask-title',
      novalidate: true,
      onsubmit: async (event: Event) => {
        event.preventDefault();
        const basis = (form.querySelector<HTMLInputElement>('input[name="basis"]:checked')?.value ?? 'crypto') as 'crypto' | 'fiat' | 'custom';
        if (basis === 'custom' && !/^[0-9]+(\.[0-9]+)?$/.test(amount.value.trim())) {
          say(outcome, strings.refundAmountNeeded, 'error');
          amount.focus();
          return;
        }
        if (!window.confirm(strings.confirm.refund ?? '')) return;
        await answer(refundsApi.ask(orderId, { basis, reason: reason.value.trim() || undefined, amount: basis === 'custom' ? amount.value.trim() : undefined }), outcome);
      },
    },
    h('h3', { id: 'refund-ask-title' }, strings.refundAsk),
    choices,
    field('refund-reason', strings.refundReason, reason),
    h('button', { type: 'submit' }, strings.action.refund),
    outcome,
  );
  return form;
}

/** One refund: its state, the link for the buyer, then the address, exact amount and wallet QR code, and the forms to act. */
function refundCard(orderId: string, refund: PortalRefund, canWrite: boolean, answer: PageAnswer): HTMLElement {
  const strings = t();
  const outcome = notice();
  const id = refund.refund_id;
  const copy = refund.refund_url
    ? h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            await navigator.clipboard
              .writeText(refund.refund_url ?? '')
              .then(() => say(outcome, strings.copied))
              .catch(() => say(outcome, strings.error, 'error'));
          },
        },
        strings.copyRefundLink,
      )
    : null;
  const lightning = refund.currency === 'LBTC';
  const txid = h('input', { id: `txid-${id}`, name: 'txid', autocomplete: 'off', spellcheck: 'false', required: true });
  const report =
    canWrite && refund.status === 'AWAITING_PAYMENT'
      ? h(
          'form',
          {
            class: 'inline-form',
            onsubmit: async (event: Event) => {
              event.preventDefault();
              if (!txid.value.trim()) return say(outcome, strings.refundTxidNeeded, 'error');
              await answer(refundsApi.reportTxid(orderId, id, txid.value.trim()), outcome);
            },
          },
          field(`txid-${id}`, lightning ? strings.refundPreimage : strings.refundTxid, txid),
          h('button', { type: 'submit' }, strings.refundReport),
        )
      : null;
  const renew =
    canWrite && refund.status !== 'SENT'
      ? h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: async () => {
              if (!window.confirm(strings.refundNewLinkConfirm)) return;
              await answer(refundsApi.renewLink(orderId, id), outcome);
            },
          },
          strings.refundNewLink,
        )
      : null;
  return h(
    'article',
    { class: 'card refund', 'data-refund': id },
    h('h3', null, strings.refundHeading(formatAmount(refund.amount, refund.currency), strings.refundStatuses[refund.status] ?? refund.status)),
    facts([
      [strings.status, h('span', { class: 'pill', 'data-field': 'refund-status' }, strings.refundStatuses[refund.status] ?? refund.status)],
      [strings.amount, h('span', { 'data-field': 'refund-amount' }, formatAmount(refund.amount, refund.currency))],
      [strings.refundNetwork, refund.network],
      [strings.refundRateLocked, refund.rate ? h('span', { 'data-field': 'refund-rate' }, lockedRateText(refund.rate, refund.currency, currentLang())) : null],
      [strings.refundReason, refund.reason],
      [strings.created, formatTime(refund.created_at)],
      [strings.refundLink, refund.refund_url ? h('span', { class: 'link-url' }, h('code', { 'data-field': 'refund-url' }, refund.refund_url), copy) : null],
      [strings.refundAddress, refund.address ? h('code', { 'data-field': 'refund-address' }, refund.address) : null],
      [strings.refundMemo, refund.memo],
      [strings.refundAddressSet, refund.address_set_at ? formatTime(refund.address_set_at) : null],
      [strings.txid, refund.txid ? h('code', null, refund.txid) : null],
      [strings.refundSent, refund.sent_at ? formatTime(refund.sent_at) : null],
    ]),
    refund.payment_uri && refund.status === 'AWAITING_PAYMENT'
      ? h(
          'figure',
          { class: 'refund-qr' },
          qrSvg(refund.payment_uri, strings.refundQrLabel(formatAmount(refund.amount, refund.currency))),
          h('figcaption', null, strings.refundQrCaption, ' ', h('code', { 'data-field': 'payment-uri' }, refund.payment_uri)),
        )
      : null,
    refund.short_payments.length > 0
      ? [
          h('h4', null, strings.refundShort),
          h(
            'ul',
            { class: 'payments' },
            refund.short_payments.map((payment) =>
              h('li', null, h('code', null, payment.txid), ` · ${formatAmount(payment.amount, refund.currency)} · `, h('time', { datetime: payment.seen_at }, formatTime(payment.seen_at))),
            ),
          ),
        ]
      : null,
    report,
    renew ? h('div', { class: 'actions' }, renew) : null,
    outcome,
  );
}

/** The order page's refunds, oldest first. */
export function refundsSection(page: PortalOrderPage, canWrite: boolean, answer: PageAnswer): HTMLElement {
  const strings = t();
  return section(
    'refunds-title',
    strings.refunds,
    page.refunds.length === 0 ? h('p', null, strings.noRefunds) : page.refunds.map((refund) => refundCard(page.order.order_id, refund, canWrite, answer)),
  );
}

/** Loads today's quote and draws the refund form into `box`. */
export async function drawRefundForm(box: HTMLElement, orderId: string, answer: PageAnswer): Promise<void> {
  const result = await refundsApi.quote(orderId);
  if (result.ok) fill(box, refundForm(orderId, result.data.quote, answer));
  else {
    const region = notice();
    fill(box, region);
    sayFailure(region, result);
  }
}

/** Refunds waiting for the buyer's address or the merchant's payment, oldest first, each linking to its order. */
export const refundsScreen: Screen = (main) => {
  const strings = t();
  pagedListScreen<PortalRefund>(main, {
    title: strings.refundsWaiting,
    lead: strings.refundsWaitingLead,
    caption: strings.refundsWaitingCaption,
    empty: strings.noWaitingRefunds,
    columns: [
      [strings.created, (refund) => formatTime(refund.created_at)],
      [strings.colOrder, (refund) => h('a', { href: `#/orders/${encodeURIComponent(refund.order_id)}` }, refund.order_id)],
      [strings.amount, (refund) => formatAmount(refund.amount, refund.currency)],
      [strings.status, (refund) => strings.refundStatuses[refund.status] ?? refund.status],
    ],
    page: async (cursor) => {
      const result = await refundsApi.waiting(cursor);
      return result.ok ? { ...result, data: { rows: result.data.refunds, next_cursor: result.data.next_cursor } } : result;
    },
  });
};
