import type { PayLinkView } from '#shared/schemas/payment-links';
import { apiBase, retryAfterMs } from './api';
import { switchLang } from './actions';
import { fill, h } from '../common/dom';
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
const EXPLAINED = ['LINK_SOLD_OUT', 'LINK_DISABLED', 'LINK_EXPIRED', 'PAYMENT_NOT_AVAILABLE'] as const;

export const isLinkPage = (): boolean => new URLSearchParams(location.search).has('link');

let view: LinkView | undefined;
let failure: 'notFound' | 'load' | undefined;
let busy: string | undefined;
let problem: string | undefined;
let failures = 0;
let quietUntil = 0;
let timer: ReturnType<typeof setTimeout> | undefined;
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
  void load();
  document.addEventListener('visibilitychange', () => (document.hidden ? schedule() : void load()));
}

async function load(): Promise<void> {
  clearTimeout(timer);
  if (busy || Date.now() < quietUntil) return schedule();
  try {
    const response = await fetch(`${apiBase()}/v1/pay/links/${encodeURIComponent(linkId)}`, { cache: 'no-store' });
    const answer = (await response.json().catch(() => ({}))) as LinkView;
    if (response.ok && answer.status === 200) {
      failures = 0;
      failure = undefined;
      const changed = JSON.stringify(answer) !== JSON.stringify(view);
      view = answer;
      if (changed) draw();
    } else if (response.status === 404) {
      failure = 'notFound';
      draw();
      return;
    } else {
      failures += 1;
      quietUntil = Date.now() + retryAfterMs(response.headers.get('retry-after'));
      if (!view && failure !== 'load') {
        failure = 'load';
        draw();
      }
    }
  } catch {
    failures += 1;
  }
  schedule();
}

function schedule(): void {
  clearTimeout(timer);
  if (failure === 'notFound' || busy === 'leaving') return;
  let delay = document.hidden ? HIDDEN_POLL_MS : POLL_MS;
  if (failures) delay = Math.max(delay, Math.min(MAX_BACKOFF_MS, POLL_MS * 2 ** failures));
  delay = Math.max(delay, quietUntil - Date.now());
  timer = setTimeout(() => void load(), delay);
}

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
  if (Date.now() < quietUntil) {
    problem = strings.API_LIMIT_EXCEEDED(Math.ceil((quietUntil - Date.now()) / 1000));
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
  try {
    const response = await fetch(`${apiBase()}/v1/pay/links/${encodeURIComponent(linkId)}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      cache: 'no-store',
    });
    const answer = (await response.json().catch(() => ({}))) as { status?: number; payment_url?: string; error_code?: string };
    if (response.status === 201 && answer.payment_url) {
      busy = 'leaving';
      location.assign(answer.payment_url);
      return;
    }
    const wait = retryAfterMs(response.headers.get('retry-after'));
    quietUntil = Math.max(quietUntil, Date.now() + wait);
    const known = (EXPLAINED as readonly string[]).includes(answer.error_code ?? '');
    problem = response.status === 429 && wait > 0 ? strings.API_LIMIT_EXCEEDED(Math.ceil(wait / 1000)) : known ? strings[answer.error_code as (typeof EXPLAINED)[number]] : strings.failed;
  } catch {
    problem = strings.failed;
  }
  busy = undefined;
  draw();
  void load();
}
