import type { PayLinkView } from '#shared/schemas/payment-links';
import { callApi } from './api';
import { problemOf } from './problems';
import { switchLang } from './actions';
import { fill, h } from '../common/dom';
import { type Look, poller } from '../common/poller';
import { formatAmount } from '#shared/domain/amount-format';
import { htmlLang, languageSwitch } from '../common/i18n';
import { currencyPicker } from './picker';
import { state, t } from './state';

/**
 * The payment link page (`?link=<link_id>`): the link's title, price or amount bounds, and the
 * currencies it offers. Opening it makes nothing. When the buyer picks a currency (after the
 * amount and the email, when the link asks for them), the page asks for an order and continues
 * on that order's own payment page, which has everything a payment needs (address, QR code,
 * countdown, live status, sandbox payment): one payment page to keep right, not two. While
 * open, the page reads the link again now and then, so a link that sells out, expires or is
 * turned off says so without a reload.
 */

type LinkView = PayLinkView;

const POLL_MS = 10_000;
const HIDDEN_POLL_MS = 60_000;
const MAX_BACKOFF_MS = 120_000;

const linkId = new URLSearchParams(location.search).get('link') ?? '';
const LINK_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Errors of the buyer's order the page says in its own words. */
const EXPLAINED = () => {
  const strings = t();
  return { LINK_SOLD_OUT: strings.LINK_SOLD_OUT, LINK_DISABLED: strings.LINK_DISABLED, LINK_EXPIRED: strings.LINK_EXPIRED, PAYMENT_NOT_AVAILABLE: strings.PAYMENT_NOT_AVAILABLE };
};

export const isLinkPage = (): boolean => new URLSearchParams(location.search).has('link');

let view: LinkView | undefined;
let failure: 'notFound' | 'load' | undefined;
let busy: string | undefined;
let problem: string | undefined;
/** What the buyer typed: kept across redraws (a poll redraws the page). */
const typed = { amount: '', email: '' };

const bar = h('div', { class: 'bar' });
const head = h('header', { class: 'head' });
const status = h('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' });
const body = h('div', { class: 'body' });

export function startLinkPage(root: HTMLElement): void {
  root.replaceChildren(bar, head, status, body);
  draw();
  if (!LINK_ID.test(linkId)) {
    failure = 'notFound';
    draw();
    return;
  }
  void polls.now();
}

/** One look at the link: its answer drawn when it changed, a missing link said (and no more looks), a failure said when nothing is shown yet. */
async function look(): Promise<Look> {
  const answer = await callApi<LinkView>(`/v1/pay/links/${encodeURIComponent(linkId)}`, 200);
  if (answer.ok) {
    failure = undefined;
    const changed = JSON.stringify(answer.body) !== JSON.stringify(view);
    view = answer.body;
    if (changed) draw();
    return { ok: true };
  }
  if (answer.status === 404) {
    failure = 'notFound';
    draw();
    return 'stop';
  }
  if (!view && failure !== 'load') {
    failure = 'load';
    draw();
  }
  return { ok: false, retryAfterMs: answer.retryAfterMs };
}

/** While open, the page reads the link again (a choice being made holds it; leaving ends it). */
const polls = poller({ visibleMs: POLL_MS, hiddenMs: HIDDEN_POLL_MS, maxBackoffMs: MAX_BACKOFF_MS }, look, { wanted: () => busy !== 'leaving', held: () => busy !== undefined });

function setStatus(text: string, tone: 'info' | 'warn' | 'error'): void {
  if (status.textContent !== text) status.textContent = text;
  status.className = `status ${tone}`;
}

function draw(): void {
  const strings = t();
  const focused = document.activeElement?.getAttribute('data-k') ?? undefined;
  document.documentElement.lang = htmlLang(state.lang);
  fill(
    bar,
    languageSwitch(
      state.lang,
      t(),
      (next) => {
        switchLang(next);
        draw();
      },
      'lang',
    ),
  );
  if (failure === 'notFound' || !view) {
    document.title = failure === 'notFound' ? strings.linkNotFound : strings.loading;
    fill(head, failure === 'notFound' ? h('h1', null, strings.linkNotFound) : null);
    setStatus(failure === 'notFound' ? strings.linkNotFoundMore : failure === 'load' ? strings.linkLoadFailed : strings.loading, failure ? 'error' : 'info');
    fill(body);
    return;
  }
  const { link, currencies } = view;
  const code = link.price_currency;
  document.title = `${link.title} · ${link.merchant_name}`;
  fill(
    head,
    h('p', { class: 'merchant' }, strings.payTo(link.merchant_name)),
    link.sandbox ? h('p', { class: 'badge' }, strings.sandboxBadge) : null,
    h('h1', null, link.title),
    link.description ? h('p', { class: 'description' }, link.description) : null,
    link.price_amount !== null
      ? h('p', { class: 'price' }, h('span', null, strings.total), ' ', h('strong', null, formatAmount(link.price_amount, code)))
      : h('p', { class: 'price' }, h('span', null, strings.amount), ' ', h('strong', null, strings.amountRange(formatAmount(link.min_amount ?? '', code), formatAmount(link.max_amount ?? '', code)))),
    link.state === 'OPEN' && link.units_left !== null ? h('p', { class: 'hint', 'data-field': 'units-left' }, strings.unitsLeft(link.units_left)) : null,
    link.state === 'OPEN' && link.expires_at ? h('p', { class: 'hint' }, strings.availableUntil(new Date(link.expires_at).toLocaleString(htmlLang(state.lang)))) : null,
  );
  if (link.state !== 'OPEN') {
    setStatus(link.state === 'SOLD_OUT' ? strings.SOLD_OUT : strings[link.state](link.merchant_name), 'warn');
    fill(body);
    return;
  }
  if (currencies.length === 0) {
    setStatus(strings.noMethods(link.merchant_name), 'warn');
    fill(body);
    return;
  }
  setStatus(busy ? strings.preparing : strings.linkChoose, 'info');
  fill(body, ...form(link, currencies));
  body.setAttribute('aria-busy', String(busy !== undefined));
  if (focused) body.querySelector<HTMLElement>(`[data-k="${focused}"]`)?.focus();
}

function input(id: string, label: string, props: Record<string, string | boolean>, key: 'amount' | 'email'): HTMLElement {
  const control = h('input', { id, name: id, 'data-k': id, class: 'value', required: true, ...props });
  control.value = typed[key];
  control.addEventListener('input', () => {
    typed[key] = control.value;
  });
  return h('div', { class: 'field' }, h('label', { class: 'label', for: id }, label), control);
}

function form(link: LinkView['link'], currencies: string[]): HTMLElement[] {
  const strings = t();
  const parts: HTMLElement[] = [];
  if (link.price_amount === null) parts.push(input('amount', strings.amountLabel(link.price_currency), { inputmode: 'decimal', autocomplete: 'off' }, 'amount'));
  if (link.ask_email) parts.push(input('email', strings.emailLabel, { type: 'email', autocomplete: 'email', inputmode: 'email' }, 'email'));
  if (problem) parts.push(h('p', { class: 'problem', role: 'alert' }, problem));
  parts.push(currencyPicker(currencies, { busy: busy !== undefined, pick: (code) => void pick(link, code) }));
  return parts;
}

const AMOUNT = /^\d+(\.\d+)?$/;

/** The buyer's own mistakes are said before anything is asked of the API. */
function checkInputs(link: LinkView['link']): string | undefined {
  const strings = t();
  if (link.price_amount === null) {
    const amount = typed.amount.trim().replace(',', '.');
    const [min, max] = [Number(link.min_amount), Number(link.max_amount)];
    if (!AMOUNT.test(amount) || Number(amount) < min || Number(amount) > max) {
      return strings.badAmount(formatAmount(min, link.price_currency), formatAmount(max, link.price_currency));
    }
  }
  if (link.ask_email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(typed.email.trim())) return strings.badEmail;
  return undefined;
}

async function pick(link: LinkView['link'], code: string): Promise<void> {
  if (busy) return;
  const strings = t();
  problem = checkInputs(link);
  if (problem) {
    draw();
    body.querySelector<HTMLElement>(link.price_amount === null && problem !== strings.badEmail ? '#amount' : '#email')?.focus();
    return;
  }
  if (polls.waitLeftMs() > 0) {
    problem = strings.API_LIMIT_EXCEEDED(Math.ceil(polls.waitLeftMs() / 1000));
    draw();
    return;
  }
  busy = `cur-${code}`;
  draw();
  const payload = {
    pay_currency: code,
    ...(link.price_amount === null ? { amount: typed.amount.trim().replace(',', '.') } : {}),
    ...(link.ask_email ? { email: typed.email.trim() } : {}),
  };
  const answer = await callApi<{ payment_url?: string }>(`/v1/pay/links/${encodeURIComponent(linkId)}/orders`, 201, payload);
  if (answer.ok && answer.body.payment_url) {
    busy = 'leaving';
    location.assign(answer.body.payment_url);
    return;
  }
  if (!answer.ok) {
    polls.holdOff(answer.retryAfterMs);
    problem = problemOf(answer, EXPLAINED());
  } else problem = strings.failed;
  busy = undefined;
  draw();
  void polls.now();
}
