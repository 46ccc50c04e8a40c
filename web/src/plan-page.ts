import type { PayPlanView } from '#shared/schemas/subscriber';
import { fill, h } from '../common/dom';
import { htmlLang } from '../common/i18n';
import { type Answer, callApi } from './api';
import { problemOf } from './problems';
import { pageBar, priceText, statusLine } from './billing';
import { state, t } from './state';

/**
 * A subscription plan's link page (`?plan=<plan_id>`): the plan's name, price, interval and
 * trial, and the subscriber's email. Opening it makes nothing. Subscribing makes the
 * subscription: without a trial the page continues on its first period's payment page (the
 * one payment page, as a payment link does); with one it says the trial started. Either way the
 * link to the subscriber's own page is emailed, never shown: whoever typed the address gets it
 * only by reading that mailbox. "Email me my link" asks for it again, answered alike whether the
 * address subscribes or not.
 */

const planId = new URLSearchParams(location.search).get('plan') ?? '';
const PLAN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const isPlanPage = (): boolean => new URLSearchParams(location.search).has('plan');

let view: PayPlanView | undefined;
let failure: 'notFound' | 'load' | undefined;
/** Which form is asking the API ('subscribe', 'link', or 'leaving' for the payment page). */
let busy: string | undefined;
/** What each form last said (a problem, or the answer), kept across redraws. */
const said: { subscribe?: { text: string; ok: boolean }; link?: { text: string; ok: boolean } } = {};
const typed = { email: '', linkEmail: '' };
let trialFor: string | undefined;
let root: HTMLElement = document.body;

export async function startPlanPage(element: HTMLElement): Promise<void> {
  root = element;
  draw();
  if (!PLAN_ID.test(planId)) {
    failure = 'notFound';
    draw();
    return;
  }
  const answer = await callApi<PayPlanView>(`/v1/pay/plans/${encodeURIComponent(planId)}`, 200);
  if (answer.ok) view = answer.body;
  else failure = answer.status === 404 ? 'notFound' : 'load';
  draw();
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Sends one form's email to `path` (its field `field`, its button `button`), after checking it
 * looks like an address, and hands the answer to `then`, which says what the form says next.
 */
async function sendEmail<T>(
  which: 'subscribe' | 'link',
  key: keyof typeof typed,
  field: string,
  button: string,
  path: string,
  expected: number,
  then: (answer: Answer<T>, email: string) => void,
): Promise<void> {
  if (busy) return;
  const email = typed[key].trim();
  if (!EMAIL.test(email)) {
    said[which] = { text: t().badEmail, ok: false };
    draw(field);
    return;
  }
  busy = which;
  said[which] = undefined;
  draw();
  const answer = await callApi<T>(`/v1/pay/plans/${encodeURIComponent(planId)}/${path}`, expected, { email });
  busy = undefined;
  then(answer, email);
  if (busy !== 'leaving') draw(button);
}

const subscribe = () =>
  sendEmail<{ started: 'payment' | 'trial'; payment_url: string | null }>('subscribe', 'email', 'email', 'subscribe', 'subscriptions', 201, (answer, email) => {
    if (answer.ok && answer.body.started === 'payment' && answer.body.payment_url) {
      busy = 'leaving';
      draw();
      location.assign(answer.body.payment_url);
    } else if (answer.ok) trialFor = email;
    else said.subscribe = { text: problemOf(answer, { PLAN_ARCHIVED: t().plan.PLAN_ARCHIVED }), ok: false };
  });

const sendLink = () =>
  sendEmail('link', 'linkEmail', 'link-email', 'send-link', 'subscriber-link', 200, (answer) => {
    said.link = answer.ok ? { text: t().plan.linkSent, ok: true } : { text: problemOf(answer, {}), ok: false };
  });

/** A labelled email field whose value survives redraws; `problem` describes it when set. */
function emailField(id: string, label: string, key: keyof typeof typed, problem?: string): HTMLElement {
  const control = h('input', {
    id,
    name: id,
    'data-k': id,
    class: 'value',
    type: 'email',
    autocomplete: 'email',
    inputmode: 'email',
    required: true,
    ...(problem ? { 'aria-invalid': 'true', 'aria-describedby': `${id}-problem` } : {}),
  });
  control.value = typed[key];
  control.addEventListener('input', () => {
    typed[key] = control.value;
  });
  return h('div', { class: 'field' }, h('label', { class: 'label', for: id }, label), control);
}

/** A form's last word: a problem (an alert, describing its field) or its answer. */
const note = (which: 'subscribe' | 'link', field: string) => {
  const entry = said[which];
  if (!entry) return null;
  return entry.ok ? h('p', { class: 'hint', role: 'status' }, entry.text) : h('p', { class: 'problem', id: `${field}-problem`, role: 'alert' }, entry.text);
};

function form(onSubmit: () => void, ...children: (HTMLElement | null)[]): HTMLFormElement {
  const element = h('form', { novalidate: true }, ...children);
  element.addEventListener('submit', (event: Event) => {
    event.preventDefault();
    onSubmit();
  });
  return element;
}

function draw(focus?: string): void {
  const strings = t();
  const words = strings.plan;
  document.documentElement.lang = htmlLang(state.lang);
  const bar = pageBar(() => draw());
  const status = statusLine;
  if (!view) {
    document.title = failure === 'notFound' ? words.notFound : strings.loading;
    fill(
      root,
      bar,
      h('header', { class: 'head' }, failure === 'notFound' ? h('h1', null, words.notFound) : null),
      status(failure === 'notFound' ? words.notFoundMore : failure === 'load' ? words.loadFailed : strings.loading, failure ? 'error' : 'info'),
    );
    return;
  }
  const { plan } = view;
  document.title = `${plan.name} · ${plan.merchant_name}`;
  const head = h(
    'header',
    { class: 'head' },
    h('p', { class: 'merchant' }, strings.billing.from(plan.merchant_name)),
    plan.sandbox ? h('p', { class: 'badge' }, strings.sandboxBadge) : null,
    h('h1', null, plan.name),
    plan.description ? h('p', { class: 'description' }, plan.description) : null,
    h('p', { class: 'price' }, h('strong', { 'data-field': 'price' }, priceText(plan))),
    plan.trial_days > 0 ? h('p', { class: 'hint', 'data-field': 'trial' }, strings.billing.freeDays(plan.trial_days)) : null,
  );
  const again = h(
    'section',
    { class: 'again', 'aria-labelledby': 'again-title' },
    h('h2', { id: 'again-title' }, words.haveOne),
    h('p', { class: 'hint' }, words.haveOneMore),
    form(
      () => void sendLink(),
      emailField('link-email', words.linkEmailLabel, 'linkEmail', said.link?.ok === false ? said.link.text : undefined),
      note('link', 'link-email'),
      h('button', { type: 'submit', class: 'button secondary', 'data-k': 'send-link', 'aria-disabled': busy === 'link' ? 'true' : undefined }, busy === 'link' ? words.sending : words.sendLink),
    ),
  );
  if (trialFor) {
    fill(root, bar, head, status(words.trialStarted(trialFor), 'ok'), h('div', { class: 'body' }, h('p', null, words.trialMore)));
  } else if (plan.archived) {
    fill(root, bar, head, status(words.closed, 'warn'), h('div', { class: 'body' }, again));
  } else {
    const subscribing = busy === 'subscribe' || busy === 'leaving';
    fill(
      root,
      bar,
      head,
      status(subscribing ? words.starting : words.ask, 'info'),
      h(
        'div',
        { class: 'body' },
        form(
          () => void subscribe(),
          emailField('email', words.emailLabel, 'email', said.subscribe ? said.subscribe.text : undefined),
          note('subscribe', 'email'),
          h('button', { type: 'submit', class: 'button', 'data-k': 'subscribe', 'aria-disabled': subscribing ? 'true' : undefined }, plan.trial_days > 0 ? words.startTrial : words.subscribe),
        ),
        again,
      ),
    );
  }
  if (focus) root.querySelector<HTMLElement>(`[data-k="${focus}"]`)?.focus();
}
