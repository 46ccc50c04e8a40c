import { callPage, type ApiResult, type PayInvoice, type PayOrder, type PayView } from './api';
import { fill, h, type Child } from './dom';
import { countdown, isGateway, payAmount, price, quoteCurrency, safeUrl } from './format';
import { htmlLang, initialLang, rememberLang, STRINGS, type Lang, type Strings } from './i18n';
import { qrSvg } from './qr';

/**
 * The hosted payment page. It works from `?id=<order_id>`, polls the public order endpoint
 * while the order can still change, and renders one view per order status. The same bundle
 * serves the sandbox gateway's test page (`.../sandbox-gateway/<gateway>?amount=...`).
 */

const ORDER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Poll interval while the page is visible; when hidden, and for orders that rarely move. */
const POLL_MS = 3_000;
const HIDDEN_POLL_MS = 30_000;
const SLOW_POLL_MS = 15_000;
const MAX_BACKOFF_MS = 60_000;
/** Long enough to read "Payment received" before the shop's page opens. */
const REDIRECT_DELAY_MS = 1_200;
/** Statuses no buyer action or payment can change any more: polling stops. */
const SETTLED = ['PAID', 'RESOLVED', 'CANCELED', 'REFUND_PENDING', 'REFUNDED'];

interface State {
  lang: Lang;
  view?: PayView;
  failure?: 'notFound' | 'load';
  /** The control whose request is running (its data-k). */
  busy?: string;
  /** The cancel control asks for confirmation. */
  asking?: boolean;
  /** Why the last action failed. */
  problem?: string;
  /** Leaving for the merchant's page. */
  leaving?: boolean;
}

const state: State = { lang: initialLang() };
const t = (): Strings => STRINGS[state.lang];

const root = document.getElementById('app') ?? document.body;
const bar = h('div', { class: 'bar' });
const head = h('header', { class: 'head' });
const status = h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' });
const body = h('div', { class: 'body' });
/** Announces copy results without moving focus. */
const note = h('p', { class: 'sr-only', 'aria-live': 'polite' });

/** The control to focus after the next render (else the one focused before it, by data-k). */
let focusNext: string | undefined;

function render(): void {
  const focused = focusNext ?? document.activeElement?.getAttribute('data-k') ?? undefined;
  focusNext = undefined;
  document.documentElement.lang = htmlLang(state.lang);
  fill(bar, languageSwitch());
  const gateway = gatewayPath();
  if (gateway) renderGateway(gateway);
  else renderOrder();
  if (focused) root.querySelector<HTMLElement>(`[data-k="${focused}"]`)?.focus();
}

function languageSwitch(): HTMLElement {
  const other: Lang = state.lang === 'en' ? 'zh' : 'en';
  return h(
    'button',
    {
      type: 'button',
      class: 'lang',
      lang: htmlLang(other),
      'data-k': 'lang',
      'aria-label': t().switchLabel,
      onclick: () => {
        state.lang = other;
        rememberLang(other);
        render();
      },
    },
    t().switchTo,
  );
}

function setStatus(text: string, tone: 'info' | 'ok' | 'warn' | 'error'): void {
  // Only a real change is written, so screen readers announce each status once.
  if (status.textContent !== text) status.textContent = text;
  status.className = `status ${tone}`;
  status.hidden = text === '';
}

// ---------------------------------------------------------------------------------------------
// The order page.

const orderId = new URLSearchParams(location.search).get('id') ?? '';

function renderOrder(): void {
  const strings = t();
  const view = state.view;
  if (state.failure === 'notFound' || (!view && !ORDER_ID.test(orderId))) {
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
  const invoice = 'pay_amount' in view.invoice ? (view.invoice as PayInvoice) : undefined;
  document.title = `${order.title || strings.order} · ${order.merchant_name}`;
  fill(
    head,
    h('p', { class: 'merchant' }, strings.payTo(order.merchant_name)),
    order.sandbox ? h('p', { class: 'badge' }, strings.sandboxBadge) : null,
    h('h1', null, order.title || strings.order),
    order.description ? h('p', { class: 'description' }, order.description) : null,
    h('p', { class: 'price' }, h('span', null, strings.total), ' ', h('strong', null, price(order.price_amount, order.price_currency, state.lang))),
  );
  fill(body, ...orderBody(order, invoice, view.currencies));
  body.setAttribute('aria-busy', String(state.busy !== undefined));
}

/** A NEW order whose invoice ran out: the expiry job has not caught up yet, but it cannot be paid. */
const ranOut = (order: PayOrder, invoice: PayInvoice | undefined): boolean =>
  order.status === 'NEW' && invoice !== undefined && Date.now() >= invoice.expired_at_t;

function orderBody(order: PayOrder, invoice: PayInvoice | undefined, currencies: string[]): Child[] {
  const strings = t();
  const merchant = order.merchant_name;
  const back = safeUrl(order.cancel_url);
  const backLink = back ? h('a', { class: 'button secondary', href: back, 'data-k': 'back' }, strings.back(merchant)) : null;
  const problem = state.problem ? h('p', { class: 'problem', role: 'alert' }, state.problem) : null;

  if (order.status === 'NEW' && !ranOut(order, invoice)) {
    setStatus(invoice ? strings.waiting : strings.choose, 'info');
    return [
      picker(currencies, invoice?.pay_currency),
      problem,
      invoice ? paymentDetails(invoice) : null,
      invoice && order.sandbox ? sandboxControl() : null,
      cancelControl(),
    ];
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
      return [
        next
          ? h('p', null, h('a', { href: next, 'data-k': 'success' }, strings.redirecting(merchant)))
          : h('p', null, strings.closePage),
      ];
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

function picker(currencies: string[], current: string | undefined): HTMLElement {
  const strings = t();
  return h(
    'fieldset',
    { class: 'picker' },
    h('legend', null, strings.payWith),
    h(
      'div',
      { class: 'grid' },
      currencies.map((code) =>
        h(
          'button',
          {
            type: 'button',
            'data-k': `cur-${code}`,
            'aria-pressed': String(code === current),
            'aria-disabled': String(state.busy !== undefined),
            onclick: () => {
              if (code !== current) void act('/checkout', `cur-${code}`, { pay_currency: code });
            },
          },
          h('strong', null, code),
          h('span', null, strings.currencies[code] ?? code),
        ),
      ),
    ),
  );
}

function copyButton(text: string, what: string, key: string): HTMLElement {
  const strings = t();
  const button = h('button', { type: 'button', class: 'copy', 'data-k': key, 'aria-label': strings.copyWhat(what) }, strings.copy);
  button.addEventListener('click', () => void copy(text, what, button));
  return button;
}

async function copy(text: string, what: string, button: HTMLElement): Promise<void> {
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
  if (copied) {
    button.textContent = strings.copied;
    setTimeout(() => (button.textContent = t().copy), 2_000);
  }
}

function field(label: string, value: string, key: string): HTMLElement {
  return h(
    'div',
    { class: 'field' },
    h('span', { class: 'label', id: `${key}-label` }, label),
    h('div', { class: 'row' }, h('code', { class: 'value', 'aria-labelledby': `${key}-label`, 'data-field': key }, value), copyButton(value, label, `copy-${key}`)),
  );
}

function paymentDetails(invoice: PayInvoice, payable = true): HTMLElement {
  const strings = t();
  const code = invoice.pay_currency;
  const name = strings.currencies[code] ?? code;
  const amount = payAmount(invoice.pay_amount, code);
  const gateway = isGateway(code);
  const where =
    code === 'EOS' ? strings.account : code === 'LBTC' ? strings.lightning : gateway ? strings.link : strings.address;
  const walletUrl = gateway ? safeUrl(invoice.payment_uri) : invoice.payment_uri;
  return h(
    'section',
    { class: 'payment', 'aria-label': name },
    h(
      'div',
      { class: 'field' },
      h('span', { class: 'label', id: 'amount-label' }, `${strings.amount} (${quoteCurrency(code)})`),
      h(
        'div',
        { class: 'row' },
        h('code', { class: 'value amount', 'aria-labelledby': 'amount-label', 'data-field': 'amount' }, amount),
        copyButton(amount, strings.amount, 'copy-amount'),
      ),
    ),
    gateway ? null : field(where, invoice.payment_address, 'address'),
    invoice.memo ? [field(strings.memo, invoice.memo, 'memo'), h('p', { class: 'hint warn' }, strings.memoHint)] : null,
    payable
      ? [
          h('figure', { class: 'qr-box' }, qrSvg(invoice.payment_uri, strings.qr(name)), h('figcaption', null, strings.scan)),
          walletUrl
            ? h(
                'a',
                gateway
                  ? { class: 'button', href: walletUrl, target: '_blank', rel: 'noopener noreferrer', 'data-k': 'wallet' }
                  : { class: 'button', href: walletUrl, 'data-k': 'wallet' },
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
    { class: 'sandbox', 'aria-label': 'Sandbox' },
    h('button', { type: 'button', class: 'button sandbox-pay', 'data-k': 'simulate', 'aria-disabled': String(state.busy !== undefined), onclick: () => void act('/sandbox-pay', 'simulate') }, strings.simulate),
    h('p', { class: 'hint' }, strings.simulateHint),
  );
}

function cancelControl(): HTMLElement {
  const strings = t();
  if (!state.asking) {
    return h(
      'div',
      { class: 'cancel' },
      h('button', { type: 'button', class: 'link', 'data-k': 'cancel', onclick: () => ((state.asking = true), (focusNext = 'cancel-no'), render()) }, strings.cancel),
    );
  }
  return h(
    'div',
    { class: 'cancel asking', role: 'group', 'aria-labelledby': 'cancel-ask' },
    h('p', { id: 'cancel-ask' }, strings.cancelAsk),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'button danger', 'data-k': 'cancel-yes', 'aria-disabled': String(state.busy !== undefined), onclick: () => void cancel() }, strings.cancelYes),
      h('button', { type: 'button', class: 'button secondary', 'data-k': 'cancel-no', onclick: () => ((state.asking = false), (focusNext = 'cancel'), render()) }, strings.cancelNo),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Talking to the API: every answer is the whole order, applied newest request first.

let sent = 0;
let applied = 0;
let redirecting = false;

function apply(view: PayView, sequence: number): void {
  if (sequence < applied) return;
  applied = sequence;
  const changed = JSON.stringify(view) !== JSON.stringify(state.view);
  state.view = view;
  state.failure = undefined;
  if (view.order.status !== 'NEW') state.asking = false;
  const next = safeUrl(view.order.success_url);
  if (view.order.status === 'PAID' && next && !redirecting) {
    redirecting = true;
    state.leaving = true;
    setTimeout(() => location.assign(next), REDIRECT_DELAY_MS);
  }
  if (changed) render();
}

async function act(action: string, key: string, payload?: unknown): Promise<ApiResult | undefined> {
  if (state.busy) return undefined;
  state.busy = key;
  state.problem = undefined;
  render();
  const sequence = ++sent;
  const result = await callPage(orderId, action, payload);
  state.busy = undefined;
  // Keep the keyboard where it was: on the control that was used (if it is still there).
  focusNext = key;
  if (result.ok) {
    apply(result.view, sequence);
    render();
  } else {
    const strings = t();
    const known = result.code === 'ORDER_NOT_NEW' || result.code === 'PAYMENT_NOT_AVAILABLE' || result.code === 'ORDER_CANCELED_FAIILED';
    state.problem = known ? strings[result.code as 'ORDER_NOT_NEW'] : strings.failed;
    render();
    void poll();
  }
  return result;
}

async function cancel(): Promise<void> {
  const result = await act('/cancel', 'cancel-yes');
  if (!result?.ok) return;
  const back = safeUrl(result.view.order.cancel_url);
  if (back) {
    state.leaving = true;
    location.assign(back);
  }
}

let timer: ReturnType<typeof setTimeout> | undefined;
let failures = 0;
let polling = false;

function schedule(): void {
  clearTimeout(timer);
  const current = state.view?.order.status;
  if (state.failure === 'notFound' || state.leaving || (current && SETTLED.includes(current))) return;
  let delay = document.hidden ? HIDDEN_POLL_MS : current === 'EXPIRED' || current === 'UNRESOLVED' ? SLOW_POLL_MS : POLL_MS;
  if (failures) delay = Math.max(delay, Math.min(MAX_BACKOFF_MS, POLL_MS * 2 ** failures));
  timer = setTimeout(() => void poll(), delay);
}

async function poll(): Promise<void> {
  if (polling) return;
  // An action's answer is newer than anything a poll sent now could read first.
  if (state.busy) return schedule();
  polling = true;
  clearTimeout(timer);
  const sequence = ++sent;
  const result = await callPage(orderId);
  polling = false;
  if (result.ok) {
    failures = 0;
    apply(result.view, sequence);
  } else if (result.status === 404) {
    state.failure = 'notFound';
    render();
  } else {
    failures += 1;
    if (!state.view && state.failure !== 'load') {
      state.failure = 'load';
      render();
    }
  }
  schedule();
}

/** Once a second: the countdown, and the switch to "expired" when it reaches zero. */
function tick(): void {
  const view = state.view;
  if (!view || !('expired_at_t' in view.invoice)) return;
  const invoice = view.invoice as PayInvoice;
  const clock = document.getElementById('countdown');
  if (clock) clock.textContent = countdown(invoice.expired_at_t - Date.now());
  if (clock && ranOut(view.order, invoice)) render();
}

// ---------------------------------------------------------------------------------------------
// The sandbox gateway's page: `.../sandbox-gateway/<alipay|aliglobal|wechat>?invoice=&amount=&mode=`.

function gatewayPath(): string | undefined {
  const match = /\/sandbox-gateway\/(alipay|aliglobal|wechat)\/?$/.exec(location.pathname);
  return match?.[1]?.toUpperCase();
}

function renderGateway(gateway: string): void {
  const strings = t();
  const query = new URLSearchParams(location.search);
  const amount = query.get('amount') ?? '';
  document.title = strings.gatewayTitle(gateway);
  fill(head, h('p', { class: 'badge' }, strings.sandboxBadge), h('h1', null, strings.gatewayTitle(gateway)));
  setStatus('', 'info');
  fill(
    body,
    /^\d+(\.\d+)?$/.test(amount)
      ? h('p', { class: 'price' }, h('span', null, strings.amount), ' ', h('strong', null, `${amount} CNY`))
      : null,
    h('p', null, `${strings.currencies[gateway] ?? gateway} · ${strings.mode(query.get('mode') ?? 'qr')}`),
    h('p', { class: 'hint' }, strings.gatewayMore),
  );
}

// ---------------------------------------------------------------------------------------------

root.replaceChildren(bar, head, status, body, note);
render();
if (!gatewayPath() && ORDER_ID.test(orderId)) {
  void poll();
  setInterval(tick, 1_000);
  // Back to the tab: look at once, then poll at the visible pace again.
  document.addEventListener('visibilitychange', () => (document.hidden ? schedule() : void poll()));
}
