import type { PayInvoice, PayOrder } from './api';
import { askCancel, cancel, choose, copy, simulate, switchLang } from './actions';
import { fill, h, type Child } from '../common/dom';
import { formatAmount } from '#shared/domain/amount-format';
import { isGateway, network, payAmount, quoteCurrency } from '../common/amounts';
import { countdown, safeUrl } from '../common/format';
import { htmlLang, languageSwitch } from '../common/i18n';
import { qrSvg } from '../common/qr';
import { poll } from './polling';
import { currencyPicker } from './picker';
import { gatewayPath, invoiceOf, ranOut, state, t, takeFocusRequest, validOrderId } from './state';

/**
 * Drawing the page from {@link state}: one view per order status, and the sandbox gateway's
 * test page. Controls call actions.ts; nothing here talks to the API.
 */

const bar = h('div', { class: 'bar' });
const head = h('header', { class: 'head' });
const status = h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' });
const body = h('div', { class: 'body' });
/** Announces copy results without moving focus. */
const note = h('p', { class: 'sr-only', 'aria-live': 'polite' });

let root: HTMLElement = document.body;

/** Puts the page's parts into `element` (the page's `#app`). */
export function mount(element: HTMLElement): void {
  root = element;
  root.replaceChildren(bar, head, status, body, note);
}

export function render(): void {
  const focused = takeFocusRequest() ?? document.activeElement?.getAttribute('data-k') ?? undefined;
  document.documentElement.lang = htmlLang(state.lang);
  const language = languageSwitch(state.lang, t(), switchLang, 'lang');
  language.dataset.k = 'lang';
  fill(bar, language);
  const gateway = gatewayPath();
  if (gateway) renderGateway(gateway);
  else renderOrder();
  if (focused) root.querySelector<HTMLElement>(`[data-k="${focused}"]`)?.focus();
}

function setStatus(text: string, tone: 'info' | 'ok' | 'warn' | 'error'): void {
  // Only a real change is written, so screen readers announce each status once.
  if (status.textContent !== text) status.textContent = text;
  status.className = `status ${tone}`;
  status.hidden = text === '';
}

// ---------------------------------------------------------------------------------------------
// The order page.

function renderOrder(): void {
  const strings = t();
  const view = state.view;
  if (state.failure === 'notFound' || (!view && !validOrderId())) {
    document.title = strings.notFound;
    fill(head, h('h1', null, strings.notFound));
    setStatus(strings.notFoundMore, 'error');
    fill(body);
    return;
  }
  if (!view) {
    document.title = strings.loading;
    fill(head);
    setStatus(state.failure === 'load' ? strings.loadFailed : strings.loading, state.failure ? 'error' : 'info');
    const retry = h('button', { type: 'button', class: 'button', 'data-k': 'retry', onclick: () => void poll() }, strings.retry);
    fill(body, state.failure ? retry : null);
    return;
  }
  const { order } = view;
  const invoice = invoiceOf(view);
  document.title = `${order.title || strings.order} · ${order.merchant_name}`;
  fill(
    head,
    h('p', { class: 'merchant' }, strings.payTo(order.merchant_name)),
    order.sandbox ? h('p', { class: 'badge' }, strings.sandboxBadge) : null,
    h('h1', null, order.title || strings.order),
    order.description ? h('p', { class: 'description' }, order.description) : null,
    h('p', { class: 'price' }, h('span', null, strings.total), ' ', h('strong', null, formatAmount(order.price_amount, order.price_currency))),
  );
  fill(body, ...orderBody(order, invoice, view.currencies));
  body.setAttribute('aria-busy', String(state.busy !== undefined));
}

function orderBody(order: PayOrder, invoice: PayInvoice | undefined, currencies: string[]): Child[] {
  const strings = t();
  const merchant = order.merchant_name;
  const back = safeUrl(order.cancel_url);
  const backLink = back ? h('a', { class: 'button secondary', href: back, 'data-k': 'back' }, strings.back(merchant)) : null;
  const problem = state.problem ? h('p', { class: 'problem', role: 'alert' }, state.problem) : null;

  if (order.status === 'NEW' && !ranOut(order, invoice) && !invoice && currencies.length === 0) {
    // A live merchant with no payment method configured here: nothing to pick, say so.
    setStatus(strings.noMethods(merchant), 'warn');
    return [backLink, cancelControl()];
  }
  if (order.status === 'NEW' && !ranOut(order, invoice)) {
    setStatus(invoice ? strings.waiting : strings.choose, 'info');
    return [picker(currencies, invoice?.pay_currency), problem, invoice ? paymentDetails(invoice) : null, invoice && order.sandbox ? sandboxControl() : null, cancelControl()];
  }
  switch (order.status) {
    case 'NEW':
    case 'EXPIRED':
      setStatus(strings.expired, 'warn');
      return [h('p', null, strings.expiredMore(merchant)), backLink ?? h('p', null, strings.contact(merchant))];
    case 'PENDING':
      setStatus(strings.pending, 'info');
      return [h('p', null, strings.pendingMore), invoice ? paymentDetails(invoice, false) : null];
    case 'PAID': {
      setStatus(strings.paid, 'ok');
      const next = safeUrl(order.success_url);
      return [next ? h('p', null, h('a', { href: next, 'data-k': 'success' }, strings.redirecting(merchant))) : h('p', null, strings.closePage)];
    }
    case 'UNRESOLVED': {
      setStatus(strings.unresolved, 'warn');
      const reason = order.unresolved_reason;
      return [h('p', null, reason ? strings[reason](merchant) : strings.contact(merchant)), backLink];
    }
    case 'RESOLVED':
      setStatus(strings.resolved(merchant), 'ok');
      return [backLink];
    case 'CANCELED':
      setStatus(strings.canceled, 'info');
      return [backLink ?? h('p', null, strings.closePage)];
    case 'REFUND_PENDING':
      setStatus(strings.refundPending, 'info');
      return [backLink];
    case 'REFUNDED':
      setStatus(strings.refunded, 'info');
      return [backLink];
    default:
      setStatus('', 'info');
      return [];
  }
}

const picker = (currencies: string[], current: string | undefined): HTMLElement => currencyPicker(currencies, { current, busy: state.busy !== undefined, pick: (code) => choose(code, current) });

function copyButton(text: string, what: string, key: string): HTMLElement {
  const button = h('button', { type: 'button', class: 'copy', 'data-k': key, 'aria-label': t().copyWhat(what) }, t().copy);
  button.addEventListener('click', () => void copy(text, what, button, note));
  return button;
}

/**
 * A value to copy under its label. The label names the field's group: a `code` element may not
 * carry aria-labelledby itself. `copyAs` names the value in the copy button (the label by default).
 */
function field(label: string, value: string, key: string, { valueClass = 'value', copyAs = label } = {}): HTMLElement {
  return h(
    'div',
    { class: 'field', role: 'group', 'aria-labelledby': `${key}-label` },
    h('span', { class: 'label', id: `${key}-label` }, label),
    h('div', { class: 'row' }, h('code', { class: valueClass, 'data-field': key }, value), copyButton(value, copyAs, `copy-${key}`)),
  );
}

function paymentDetails(invoice: PayInvoice, payable = true): HTMLElement {
  const strings = t();
  const code = invoice.pay_currency;
  const name = strings.currencies[code] ?? code;
  const amount = payAmount(invoice.pay_amount, code);
  const gateway = isGateway(code);
  const where = code === 'EOS' ? strings.account : code === 'LBTC' ? strings.lightning : gateway ? strings.link : strings.address;
  const walletUrl = gateway ? safeUrl(invoice.payment_uri) : invoice.payment_uri;
  // The network by name where an address alone does not say it (every EVM network's look alike).
  const chain = network(code);
  return h(
    'section',
    { class: 'payment', 'aria-label': name },
    field(`${strings.amount} (${quoteCurrency(code)})`, amount, 'amount', { valueClass: 'value amount', copyAs: strings.amount }),
    chain
      ? [h('p', { class: 'network' }, `${strings.network}: `, h('strong', { 'data-field': 'network' }, chain)), h('p', { class: 'hint warn', 'data-k': 'network-hint' }, strings.networkHint(chain))]
      : null,
    gateway ? null : field(where, invoice.payment_address, 'address'),
    // Solana Pay: the memo is the transfer's reference, which the wallet adds from the QR code.
    invoice.memo && (code === 'USDC_SOL' || code === 'PYUSD')
      ? [field(strings.reference, invoice.memo, 'memo'), h('p', { class: 'hint warn' }, strings.referenceHint)]
      : // TON: the comment is how the transfer finds the order; the wallet's "comment" field.
        invoice.memo && (code === 'TON' || code === 'USDT_TON')
        ? [field(strings.comment, invoice.memo, 'memo'), h('p', { class: 'hint warn', 'data-k': 'memo-hint' }, strings.commentHint)]
        : // Stellar: the muxed address carries the id; a wallet that cannot pay one pays the account with the id as a MEMO_ID.
          invoice.memo && invoice.account
          ? [h('p', { class: 'hint', 'data-k': 'memo-hint' }, strings.muxedHint), field(strings.account, invoice.account, 'account'), field(strings.memoId, invoice.memo, 'memo')]
          : invoice.memo
            ? [field(strings.memo, invoice.memo, 'memo'), h('p', { class: 'hint warn' }, strings.memoHint)]
            : null,
    payable
      ? [
          h('figure', { class: 'qr-box' }, qrSvg(invoice.payment_uri, strings.qr(name)), h('figcaption', null, strings.scan)),
          walletUrl
            ? h(
                'a',
                gateway ? { class: 'button', href: walletUrl, target: '_blank', rel: 'noopener noreferrer', 'data-k': 'wallet' } : { class: 'button', href: walletUrl, 'data-k': 'wallet' },
                gateway ? strings.openGateway(name) : strings.wallet,
              )
            : null,
          h('p', { class: 'hint' }, strings.exact),
          h('p', { class: 'timer' }, `${strings.timeLeft}: `, h('time', { id: 'countdown' }, countdown(invoice.expired_at_t - Date.now()))),
        ]
      : null,
  );
}

function sandboxControl(): HTMLElement {
  const strings = t();
  return h(
    'section',
    { class: 'sandbox', 'aria-label': strings.sandboxControls },
    h('button', { type: 'button', class: 'button sandbox-pay', 'data-k': 'simulate', 'aria-disabled': String(state.busy !== undefined), onclick: simulate }, strings.simulate),
    h('p', { class: 'hint' }, strings.simulateHint),
  );
}

function cancelControl(): HTMLElement {
  const strings = t();
  if (!state.asking) {
    return h('div', { class: 'cancel' }, h('button', { type: 'button', class: 'link', 'data-k': 'cancel', onclick: () => askCancel(true) }, strings.cancel));
  }
  return h(
    'div',
    { class: 'cancel asking', role: 'group', 'aria-labelledby': 'cancel-ask' },
    h('p', { id: 'cancel-ask' }, strings.cancelAsk),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'button danger', 'data-k': 'cancel-yes', 'aria-disabled': String(state.busy !== undefined), onclick: () => void cancel() }, strings.cancelYes),
      h('button', { type: 'button', class: 'button secondary', 'data-k': 'cancel-no', onclick: () => askCancel(false) }, strings.cancelNo),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// The sandbox gateway's page: `.../sandbox-gateway/<alipay|aliglobal|wechat>?invoice=&amount=&mode=`.

function renderGateway(gateway: string): void {
  const strings = t();
  const query = new URLSearchParams(location.search);
  const amount = query.get('amount') ?? '';
  document.title = strings.gatewayTitle(gateway);
  fill(head, h('p', { class: 'badge' }, strings.sandboxBadge), h('h1', null, strings.gatewayTitle(gateway)));
  setStatus('', 'info');
  fill(
    body,
    /^\d+(\.\d+)?$/.test(amount) ? h('p', { class: 'price' }, h('span', null, strings.amount), ' ', h('strong', null, formatAmount(amount, 'CNY'))) : null,
    h('p', null, `${strings.currencies[gateway] ?? gateway} · ${strings.mode(query.get('mode') ?? 'qr')}`),
    h('p', { class: 'hint' }, strings.gatewayMore),
  );
}
