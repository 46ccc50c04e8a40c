import type { FromSchema } from 'json-schema-to-ts';
import { PRICE_CURRENCIES } from '#shared/domain/currencies';
import { isLinkPriceCurrency } from '#shared/domain/payment-link';
import {
  CANCEL_REASONS,
  INTERVAL_UNITS,
  MAX_CLOCK_ADVANCE_DAYS,
  MAX_GRACE_DAYS,
  MAX_INVOICE_DAYS_BEFORE,
  MAX_TRIAL_DAYS,
  type Plan,
  periodDue,
  type Subscription,
  SUBSCRIPTION_STATUSES,
  subscriptionNow,
} from '#shared/domain/subscription';

/**
 * Recurring billing (beyond the MugglePay contract): plans, subscriptions and the sandbox's
 * test clock, their request schemas and the views that make their answers. Bodies are strict
 * (an unknown field is refused, naming it): no MugglePay client sends these.
 */

const decimal = { type: ['number', 'string'], maxLength: 40 } as const;
const url = { type: 'string', maxLength: 2048, format: 'http-url', description: 'Absolute http(s) URL.' } as const;
/** The currencies a plan may be priced in: those a payment link may (fiat and stable coins). */
const PLAN_PRICE_CURRENCIES = PRICE_CURRENCIES.filter(isLinkPriceCurrency);
const cursor = { type: 'string', maxLength: 200, pattern: '^[A-Za-z0-9_-]*$', description: "The previous page's next_cursor." } as const;

const planEditable = {
  name: { type: 'string', minLength: 1, maxLength: 200, description: "What the subscriber pays for: each period's order's title." },
  description: { type: 'string', maxLength: 800, description: "Shown under the name; each period's order's description." },
  price_amount: {
    ...decimal,
    description: "The price of a period, in price_currency. A new price applies from each subscription's next period whose order is not made yet, never to one already sent.",
  },
  trial_days: { type: 'integer', minimum: 0, maximum: MAX_TRIAL_DAYS, description: `Free days before the first period is due (new subscriptions), 0 to ${MAX_TRIAL_DAYS}. Default 0.` },
  grace_days: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_GRACE_DAYS,
    description: `How long an unpaid period is waited for after its due date (past_due) before the subscription is canceled, 0 to ${MAX_GRACE_DAYS} days. Default 7.`,
  },
  invoice_days_before: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_INVOICE_DAYS_BEFORE,
    description: `How many days before a due date the period's order is made and emailed, 0 to ${MAX_INVOICE_DAYS_BEFORE}; at most the interval's length. Default 3.`,
  },
  callback_url: { ...url, description: "Each period's order's callback_url: its usual order callbacks, unchanged." },
  success_url: { ...url, description: 'Where the subscriber goes once a period is paid.' },
  events_url: {
    ...url,
    description:
      "Where the subscription's own events go, signed as callbacks are: subscription.created, subscription.renewed (a period paid), subscription.past_due and subscription.canceled, each with the subscription as Get Subscription shows it. Apart from callback_url, whose MugglePay clients expect orders only.",
  },
} as const;

export const createPlanBodySchema = {
  $id: 'CreatePlanBody',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'price_amount', 'interval_unit'],
  properties: {
    ...planEditable,
    price_currency: { type: 'string', enum: PLAN_PRICE_CURRENCIES, default: 'USD', description: 'A fiat or stable currency. Default USD.' },
    interval_unit: { type: 'string', enum: INTERVAL_UNITS, description: "A period is interval_count of these: day, week, month (clamped to the month's last day) or year." },
    interval_count: { type: 'integer', minimum: 1, maximum: 365, default: 1, description: 'How many interval_units a period is (at most 365 days, 52 weeks, 12 months or 3 years). Default 1.' },
  },
} as const;
export type CreatePlanBody = FromSchema<typeof createPlanBodySchema>;

export const updatePlanBodySchema = {
  $id: 'UpdatePlanBody',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    ...planEditable,
    archived: { type: 'boolean', description: 'true: no new subscriber (existing subscriptions go on); false: takes them again.' },
  },
} as const;
export type UpdatePlanBody = FromSchema<typeof updatePlanBodySchema>;

export const listPlansQuerySchema = {
  $id: 'ListPlansQuery',
  type: 'object',
  additionalProperties: true,
  maxProperties: 20,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 20, description: 'Plans per page, 1..50. Default 20.' },
    cursor,
  },
} as const;
export type ListPlansQuery = FromSchema<typeof listPlansQuerySchema>;

export const createSubscriptionBodySchema = {
  $id: 'CreateSubscriptionBody',
  type: 'object',
  additionalProperties: false,
  required: ['plan_id'],
  properties: {
    plan_id: { type: 'string', maxLength: 64, description: "A plan of the merchant's, not archived." },
    customer_email: {
      type: 'string',
      maxLength: 254,
      format: 'email-address',
      description: "The subscriber's email address: each period's order is its email (receipts, the service's invoice emails).",
    },
    customer_id: { type: 'string', minLength: 1, maxLength: 128, description: "The merchant's own id for the customer." },
  },
} as const;
export type CreateSubscriptionBody = FromSchema<typeof createSubscriptionBodySchema>;

export const cancelSubscriptionBodySchema = {
  $id: 'CancelSubscriptionBody',
  type: 'object',
  additionalProperties: false,
  properties: {
    at_period_end: {
      type: 'boolean',
      default: false,
      description: "true: no further period is billed and the subscription ends when the period paid ends; false (default): canceled now, with the period's unpaid order.",
    },
  },
} as const;
export type CancelSubscriptionBody = FromSchema<typeof cancelSubscriptionBodySchema>;

export const listSubscriptionsQuerySchema = {
  $id: 'ListSubscriptionsQuery',
  type: 'object',
  additionalProperties: true,
  maxProperties: 20,
  properties: {
    status: { type: 'string', enum: SUBSCRIPTION_STATUSES, description: 'Only subscriptions in this status.' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 20, description: 'Subscriptions per page, 1..50. Default 20.' },
    cursor,
  },
} as const;
export type ListSubscriptionsQuery = FromSchema<typeof listSubscriptionsQuerySchema>;

export const advanceClockBodySchema = {
  $id: 'AdvanceClockBody',
  type: 'object',
  additionalProperties: false,
  required: ['days'],
  properties: {
    days: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: MAX_CLOCK_ADVANCE_DAYS,
      description: `How far to move the subscription's test clock forward, in days (fractions allowed), up to ${MAX_CLOCK_ADVANCE_DAYS}.`,
    },
  },
} as const;
export type AdvanceClockBody = FromSchema<typeof advanceClockBodySchema>;

// --- Views -----------------------------------------------------------------------------------

const nullable = <const T extends object>(schema: T) => ({ oneOf: [schema, { type: 'null' }] }) as const;
const time = { type: 'string', description: 'ISO 8601 time.' } as const;
const strict = <const P extends Record<string, object>>(id: string, description: string, properties: P) =>
  ({ $id: id, type: 'object', description, additionalProperties: false, required: Object.keys(properties) as (keyof P & string)[], properties }) as const;

export const planSchema = strict('Plan', 'A subscription plan.', {
  plan_id: { type: 'string', format: 'uuid' },
  name: planEditable.name,
  description: planEditable.description,
  price_amount: { type: 'string', description: 'An exact decimal.' },
  price_currency: { type: 'string', enum: PLAN_PRICE_CURRENCIES },
  interval_unit: { type: 'string', enum: INTERVAL_UNITS },
  interval_count: { type: 'integer', minimum: 1 },
  trial_days: { type: 'integer', minimum: 0 },
  grace_days: { type: 'integer', minimum: 0 },
  invoice_days_before: { type: 'integer', minimum: 0 },
  callback_url: { type: 'string', description: "Each period's order's callback_url ('' for none)." },
  success_url: { type: 'string', description: "Where the subscriber goes once paid ('' for none)." },
  events_url: { type: 'string', description: "Where the subscription events go ('' for none)." },
  archived: { type: 'boolean' },
  created_at: time,
  updated_at: time,
});

export const planResponseSchema = strict('PlanResponse', 'One plan.', { status: { type: 'integer', enum: [200, 201] }, plan: { $ref: 'Plan' } });
export const listPlansResponseSchema = strict('ListPlansResponse', "A page of the merchant's plans, newest first.", {
  status: { type: 'integer', const: 200 },
  plans: { type: 'array', items: { $ref: 'Plan' } },
  next_cursor: { ...nullable({ type: 'string' }), description: 'Pass as cursor for the next page; null on the last.' },
});

export const subscriptionSchema = strict('Subscription', 'A subscription: an ordinary order each period, which the subscriber pays.', {
  subscription_id: { type: 'string', format: 'uuid' },
  plan_id: { type: 'string', format: 'uuid' },
  status: { type: 'string', enum: SUBSCRIPTION_STATUSES, description: 'incomplete (first period unpaid), trialing, active, past_due (a period unpaid at its due date) or canceled.' },
  customer_email: nullable({ type: 'string' }),
  customer_id: nullable({ type: 'string' }),
  started_at: time,
  period: { type: 'integer', minimum: 1, description: 'The period billed next or now (1: the first).' },
  period_due_at: { ...time, description: 'When that period is due.' },
  period_order_id: { ...nullable({ type: 'string', format: 'uuid' }), description: "That period's order, once made (an ordinary order: Get Order reads it)." },
  periods_paid: { type: 'integer', minimum: 0 },
  cancel_at_period_end: { type: 'boolean' },
  canceled_at: nullable(time),
  cancel_reason: nullable({ type: 'string', enum: CANCEL_REASONS }),
  clock: { ...time, description: "The subscription's own time: now, or later once a sandbox test clock moved it." },
  created_at: time,
  updated_at: time,
});

export const subscriptionResponseSchema = strict('SubscriptionResponse', 'One subscription.', {
  status: { type: 'integer', enum: [200, 201] },
  subscription: { $ref: 'Subscription' },
});
export const listSubscriptionsResponseSchema = strict('ListSubscriptionsResponse', "A page of the merchant's subscriptions, newest first.", {
  status: { type: 'integer', const: 200 },
  subscriptions: { type: 'array', items: { $ref: 'Subscription' } },
  next_cursor: { ...nullable({ type: 'string' }), description: 'Pass as cursor for the next page; null on the last.' },
});

export function planView(plan: Plan) {
  return {
    plan_id: plan.plan_id,
    name: plan.name,
    description: plan.description,
    price_amount: plan.price_amount,
    price_currency: plan.price_currency,
    interval_unit: plan.interval_unit,
    interval_count: plan.interval_count,
    trial_days: plan.trial_days,
    grace_days: plan.grace_days,
    invoice_days_before: plan.invoice_days_before,
    callback_url: plan.callback_url ?? '',
    success_url: plan.success_url ?? '',
    events_url: plan.events_url ?? '',
    archived: plan.archived,
    created_at: plan.created_at,
    updated_at: plan.updated_at,
  };
}

export function subscriptionView(subscription: Subscription, plan: Pick<Plan, 'interval_unit' | 'interval_count'>, now: Date) {
  return {
    subscription_id: subscription.subscription_id,
    plan_id: subscription.plan_id,
    status: subscription.status,
    customer_email: subscription.customer_email ?? null,
    customer_id: subscription.customer_id ?? null,
    started_at: subscription.started_at,
    period: subscription.period + 1,
    period_due_at: periodDue(plan, subscription.anchor_at, subscription.period).toISOString(),
    period_order_id: subscription.period_order_id ?? null,
    periods_paid: subscription.periods_paid,
    cancel_at_period_end: subscription.cancel_at_period_end ?? false,
    canceled_at: subscription.canceled_at ?? null,
    cancel_reason: subscription.cancel_reason ?? null,
    clock: subscriptionNow(subscription, now).toISOString(),
    created_at: subscription.created_at,
    updated_at: subscription.updated_at,
  };
}
