import type { PayRefundView } from '#shared/schemas/refunds';
import { callApi } from './api';
import { fill, h } from '../common/dom';
import { htmlLang, rememberLang, type Lang } from '../common/i18n';
import { formatAmount } from '#shared/domain/amount-format';
import { LANG_KEY } from './i18n';
import { state, t } from './state';

/**
 * The buyer's refund page: the same bundle as the payment page, opened by the refund link
 * (`#refund=<secret>`: the secret stays in the fragment, so no server log sees it; it is sent in
 * a POST body). It shows the order, the amount, currency and network, and takes the address the
 * API checks for that network; once an address is set the link stops working.
 */

const SECRET = /^#refund=([A-Za-z0-9_-]{43})$/;

/** The link's secret, or undefined when the page was not opened by a refund link. */
export const refundSecret = (): string | undefined => SECRET.exec(location.hash)?.[1];

interface RefundState {
  view?: PayRefundView;
  failure?: 'invalid' | 'load';
  problem?: string;
  busy?: boolean;
  saved?: boolean;
}

const page: RefundState = {};
let root: HTMLElement = document.body;

const post = (path: string, body: unknown) => callApi<PayRefundView>(path, 200, body);

export async function openRefund(element: HTMLElement, secret: string): Promise<void> {
  root = element;
  draw();
  const answer = await post('/v1/pay/refund', { secret });
  if (answer.ok) page.view = answer.body;
  else page.failure = answer.code === 'REFUND_LINK_INVALID' || answer.status === 400 ? 'invalid' : 'load';
  draw();
}

async function submit(secret: string, form: HTMLFormElement): Promise<void> {
  const data = new FormData(form);
  const address = String(data.get('address') ?? '').trim();
  const memo = String(data.get('memo') ?? '').trim();
  page.busy = true;
  page.problem = undefined;
  draw();
  const answer = await post('/v1/pay/refund/address', { secret, address, ...(memo ? { memo } : {}) });
  page.busy = false;
  if (answer.ok) {
    page.view = answer.body;
    page.saved = true;
  } else if (answer.code === 'REFUND_ADDRESS_INVALID') page.problem = answer.message;
  else if (answer.code === 'REFUND_LINK_INVALID') page.failure = 'invalid';
  else page.problem = t().refund.failed;
  draw('address');
}

function switchLang(lang: Lang): void {
  state.lang = lang;
  rememberLang(LANG_KEY, lang);
  draw('lang');
}

function draw(focus?: string): void {
  const strings = t().refund;
  document.documentElement.lang = htmlLang(state.lang);
  const other: Lang = state.lang === 'en' ? 'zh' : 'en';
  const bar = h(
    'div',
    { class: 'bar' },
    h('button', { type: 'button', class: 'lang', lang: htmlLang(other), 'data-k': 'lang', 'aria-label': t().switchLabel, onclick: () => switchLang(other) }, t().switchTo),
  );
  const status = (text: string, tone: string) => h('p', { id: 'status', class: `status ${tone}`, role: 'status', 'aria-live': 'polite' }, text);
  if (page.failure || !page.view) {
    document.title = page.failure === 'invalid' ? strings.invalid : t().loading;
    fill(
      root,
      bar,
      h('header', { class: 'head' }, h('h1', null, page.failure === 'invalid' ? strings.invalid : strings.title)),
      status(page.failure === 'invalid' ? strings.invalidMore : page.failure === 'load' ? t().loadFailed : t().loading, page.failure ? 'error' : 'info'),
    );
    return;
  }
  const { order, refund } = page.view;
  const currencyName = t().currencies[refund.currency as keyof ReturnType<typeof t>['currencies']] ?? refund.currency;
  document.title = `${strings.title} · ${order.merchant_name}`;
  const amount = formatAmount(refund.amount, refund.currency);
  const summary = h(
    'dl',
    { class: 'refund-facts' },
    h('dt', null, strings.amount),
    h('dd', null, h('strong', { 'data-field': 'amount' }, amount)),
    h('dt', null, strings.currency),
    h('dd', null, currencyName),
    refund.network ? [h('dt', null, t().network), h('dd', { 'data-field': 'network' }, refund.network)] : null,
    refund.reason ? [h('dt', null, strings.reason), h('dd', null, refund.reason)] : null,
  );
  const head = h(
    'header',
    { class: 'head' },
    h('p', { class: 'merchant' }, strings.from(order.merchant_name)),
    order.sandbox ? h('p', { class: 'badge' }, t().sandboxBadge) : null,
    h('h1', null, strings.title),
    h('p', { class: 'price' }, h('span', null, order.title || t().order), ' ', h('strong', null, formatAmount(order.price_amount, order.price_currency))),
  );
  if (refund.status !== 'AWAITING_ADDRESS' || page.saved) {
    fill(
      root,
      bar,
      head,
      status(strings.saved, 'ok'),
      h(
        'div',
        { class: 'body' },
        summary,
        h('p', null, strings.goesTo),
        h('p', null, h('code', { class: 'value', 'data-field': 'address' }, refund.address ?? '')),
        refund.memo ? h('p', null, `${strings.memo}: `, h('code', null, refund.memo)) : null,
        h('p', { class: 'hint' }, strings.savedMore),
      ),
    );
    return;
  }
  const label = refund.asks === 'invoice' ? strings.invoice(amount) : refund.asks === 'account' ? strings.account : strings.address(refund.network ?? refund.currency);
  const problemId = 'address-problem';
  const form = h(
    'form',
    { class: 'refund-form', novalidate: true },
    h('label', { for: 'address', class: 'label' }, label),
    h(refund.asks === 'invoice' ? 'textarea' : 'input', {
      id: 'address',
      name: 'address',
      'data-k': 'address',
      autocomplete: 'off',
      autocapitalize: 'none',
      spellcheck: 'false',
      required: true,
      ...(refund.asks === 'invoice' ? { rows: 4 } : { type: 'text' }),
      ...(page.problem ? { 'aria-invalid': 'true', 'aria-describedby': problemId } : {}),
    }),
    refund.takes_memo ? [h('label', { for: 'memo', class: 'label' }, strings.memoOptional), h('input', { id: 'memo', name: 'memo', type: 'text', autocomplete: 'off', maxlength: 256 })] : null,
    page.problem ? h('p', { class: 'problem', id: problemId, role: 'alert' }, page.problem) : null,
    h('p', { class: 'hint warn' }, strings.check(refund.network ?? refund.currency)),
    h('button', { type: 'submit', class: 'button', 'data-k': 'save', disabled: page.busy === true }, page.busy ? strings.saving : strings.save),
  );
  const secret = refundSecret() ?? '';
  form.addEventListener('submit', (event: Event) => {
    event.preventDefault();
    void submit(secret, form);
  });
  fill(root, bar, head, status(strings.ask, 'info'), h('div', { class: 'body' }, summary, form));
  if (focus) root.querySelector<HTMLElement>(`[data-k="${focus}"]`)?.focus();
}
