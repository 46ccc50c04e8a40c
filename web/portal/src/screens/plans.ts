import { planStateOf } from '#shared/domain/state-labels';
import { INTERVAL_UNITS, MAX_GRACE_DAYS, MAX_INVOICE_DAYS_BEFORE, MAX_TRIAL_DAYS } from '#shared/domain/subscription';
import type { PortalPlan } from '#shared/schemas/portal-responses';
import type { CreatePlanBody } from '#shared/schemas/subscriptions';
import { h } from '../../../common/dom';
import { plansApi } from '../api';
import { formatAmount, formatTime } from '../format';
import { t } from '../i18n';
import { navigate } from '../router';
import { signedInUser } from '../session';
import { field, pagedRows, say, sayFailure, showScreen, type Screen, type Column, columnRow, dataTable, section } from './screen';

/** Price currencies a plan may use: fiat and stable coins, as a payment link's (the API refuses others, naming the field). */
export const PLAN_CURRENCIES = ['USD', 'EUR', 'GBP', 'CNY', 'JPY', 'HKD', 'SGD', 'USDT', 'USDC'];

/** What a plan costs each period: "30.00 USD every month", "每 3 个月 90.00 USD". */
export const planPrice = (plan: Pick<PortalPlan, 'price_amount' | 'price_currency' | 'interval_unit' | 'interval_count'>): string =>
  t().pricePer(formatAmount(plan.price_amount, plan.price_currency), t().billedEvery(plan.interval_count, plan.interval_unit));

export const planStateLabel = (plan: PortalPlan) => {
  const state = planStateOf(plan);
  return h('span', { class: `pill p-${state}` }, t().planStates[state] ?? state);
};

/** May the signed-in user create and change plans, cancel subscriptions and move a test clock (owners and developers; the API checks too)? */
export const mayChangeBilling = (): boolean => ['owner', 'developer'].includes(signedInUser()?.role ?? '');

/** The merchant's plans: each with its price, interval, trial and state; a form to create one (owners and developers). */
export const plansScreen: Screen = (main) => {
  const strings = t();
  const columns: Column<PortalPlan>[] = [
    [strings.colPlan, (plan) => h('a', { href: `#/plans/${plan.plan_id}` }, plan.name)],
    [strings.colPrice, planPrice],
    [strings.colTrial, (plan) => (plan.trial_days > 0 ? strings.daysOf(plan.trial_days) : strings.noTrial)],
    [strings.colState, planStateLabel],
    [strings.colCreated, (plan) => formatTime(plan.created_at)],
  ];
  const read = async (cursor?: string) => {
    const result = await plansApi.list(cursor);
    return result.ok ? { ...result, data: { rows: result.data.plans, next_cursor: result.data.next_cursor } } : result;
  };
  const { body, outcome, more, load } = pagedRows(read, columnRow(columns), strings.noPlans);
  showScreen(
    main,
    strings.plans,
    h('p', null, strings.plansLead),
    mayChangeBilling() ? createForm(outcome) : null,
    outcome,
    dataTable({ class: 'plans', caption: strings.plansCaption }, columns, body),
    more,
  );
  void load();
};

const numberInput = (id: string, min: number, max: number, value: string) =>
  h('input', { id, name: id, type: 'number', min: String(min), max: String(max), step: '1', inputmode: 'numeric', value, required: true });

/** The plan's fields both forms share (create and change), with their current values. */
export function planFields(prefix: string, plan?: PortalPlan) {
  const strings = t();
  const input = (id: string, props: Record<string, string | boolean> = {}) => h('input', { id: `${prefix}-${id}`, name: id, autocomplete: 'off', ...props });
  const controls = {
    name: input('name', { required: true, maxlength: '200', value: plan?.name ?? '' }),
    description: input('description', { maxlength: '800', value: plan?.description ?? '' }),
    price: input('price', { required: true, inputmode: 'decimal', value: plan?.price_amount ?? '' }),
    trial: numberInput(`${prefix}-trial`, 0, MAX_TRIAL_DAYS, String(plan?.trial_days ?? 0)),
    grace: numberInput(`${prefix}-grace`, 0, MAX_GRACE_DAYS, String(plan?.grace_days ?? 7)),
    invoice: numberInput(`${prefix}-invoice`, 0, MAX_INVOICE_DAYS_BEFORE, String(plan?.invoice_days_before ?? 3)),
    callback: input('callback', { type: 'url', maxlength: '2048', value: plan?.callback_url ?? '' }),
    events: input('events', { type: 'url', maxlength: '2048', value: plan?.events_url ?? '' }),
    success: input('success', { type: 'url', maxlength: '2048', value: plan?.success_url ?? '' }),
  };
  controls.grace.setAttribute('aria-describedby', `${prefix}-grace-hint`);
  controls.invoice.setAttribute('aria-describedby', `${prefix}-invoice-hint`);
  const fields = {
    name: field(`${prefix}-name`, strings.planName, controls.name),
    description: field(`${prefix}-description`, strings.linkDescription, controls.description),
    price: field(`${prefix}-price`, strings.priceAmount, controls.price),
    trial: field(`${prefix}-trial`, strings.trialDays, controls.trial),
    grace: field(`${prefix}-grace`, strings.graceDays, controls.grace, strings.graceHint),
    invoice: field(`${prefix}-invoice`, strings.invoiceDaysBefore, controls.invoice, strings.invoiceHint),
    callback: field(`${prefix}-callback`, strings.callbackUrl, controls.callback),
    events: field(`${prefix}-events`, strings.eventsUrl, controls.events, strings.eventsUrlHint),
    success: field(`${prefix}-success`, strings.successUrl, controls.success),
  };
  /** What the fields say, as the API's body takes it (empty optional texts left out). */
  const values = () => ({
    name: controls.name.value.trim(),
    description: controls.description.value.trim(),
    price_amount: controls.price.value.trim(),
    trial_days: Number(controls.trial.value),
    grace_days: Number(controls.grace.value),
    invoice_days_before: Number(controls.invoice.value),
    ...(controls.callback.value.trim() ? { callback_url: controls.callback.value.trim() } : {}),
    ...(controls.events.value.trim() ? { events_url: controls.events.value.trim() } : {}),
    ...(controls.success.value.trim() ? { success_url: controls.success.value.trim() } : {}),
  });
  return { fields, values };
}

function createForm(outcome: HTMLElement): HTMLElement {
  const strings = t();
  const { fields, values } = planFields('plan');
  const currency = h(
    'select',
    { id: 'plan-currency', name: 'price_currency' },
    PLAN_CURRENCIES.map((code) => h('option', { value: code }, code)),
  );
  const count = numberInput('plan-count', 1, 365, '1');
  const unit = h(
    'select',
    { id: 'plan-unit', name: 'interval_unit' },
    INTERVAL_UNITS.map((name) => h('option', { value: name, selected: name === 'month' }, strings.intervalUnits[name] ?? name)),
  );
  return section(
    'new-plan-title',
    strings.newPlan,
    h(
      'form',
      {
        class: 'inline-form',
        onsubmit: async (event: Event) => {
          event.preventDefault();
          const { description, ...rest } = values();
          const body: CreatePlanBody = {
            ...rest,
            ...(description ? { description } : {}),
            price_currency: currency.value as CreatePlanBody['price_currency'],
            interval_unit: unit.value as CreatePlanBody['interval_unit'],
            interval_count: Number(count.value),
          };
          const result = await plansApi.create(body);
          if (!result.ok) return sayFailure(outcome, result);
          say(outcome, strings.planCreated);
          navigate(`#/plans/${result.data.plan.plan_id}`);
        },
      },
      fields.name,
      fields.description,
      fields.price,
      field('plan-currency', strings.priceCurrency, currency),
      field('plan-count', strings.billedEveryCount, count),
      field('plan-unit', strings.intervalUnit, unit),
      fields.trial,
      fields.grace,
      fields.invoice,
      fields.callback,
      fields.events,
      fields.success,
      h('div', { class: 'buttons' }, h('button', { type: 'submit', class: 'primary' }, strings.createPlan)),
    ),
  );
}
