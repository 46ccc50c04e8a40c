import type { FromSchema } from 'json-schema-to-ts';
import { ORDER_STATUSES } from '#shared/domain/statuses';
import { CANCEL_REASONS, INTERVAL_UNITS, type Plan, SUBSCRIPTION_STATUSES } from '#shared/domain/subscription';

/**
 * The subscriber's side of recurring billing (beyond the MugglePay contract): the plan's public
 * link page (`?plan=<plan_id>`, no token: the plan id is its capability, as a payment link's is)
 * and the subscriber's own page (`#subscription=<secret>`: the secret, sent in a POST body so no
 * log holds it, is the subscriber's only capability; no account). Their request schemas and the
 * views that make their answers. Bodies are strict: an unknown field is refused, naming it.
 */

const email = { type: 'string', maxLength: 254, format: 'email-address', description: "The subscriber's email address (one address, local@domain, nothing else)." } as const;

/** The subscriber page link's secret (43 base64url characters). */
const secret = {
  type: 'string',
  pattern: '^[A-Za-z0-9_-]{43}$',
  maxLength: 43,
  description: "The page link's secret: what follows `#subscription=` in the link each subscriber email carries.",
} as const;

/** A strict body of one email address, in the words of `description`. */
const emailOnly = <const Text extends string>(description: Text) => ({ type: 'object', additionalProperties: false, required: ['email'], properties: { email: { ...email, description } } }) as const;

export const planSubscriptionBodySchema = {
  $id: 'PlanSubscriptionBody',
  ...emailOnly("The subscriber's email address: each period's invoice, reminders and receipt go there, with the link to the subscriber's page."),
} as const;
export type PlanSubscriptionBody = FromSchema<typeof planSubscriptionBodySchema>;

export const subscriberLinkRequestBodySchema = {
  $id: 'SubscriberLinkRequestBody',
  ...emailOnly('The address a subscription to this plan was started with: its page link is mailed there, and only there.'),
} as const;
export type SubscriberLinkRequestBody = FromSchema<typeof subscriberLinkRequestBodySchema>;

export const subscriberBodySchema = {
  $id: 'SubscriberBody',
  type: 'object',
  additionalProperties: false,
  required: ['secret'],
  properties: { secret },
} as const;
export type SubscriberBody = FromSchema<typeof subscriberBodySchema>;

// --- Views -----------------------------------------------------------------------------------

const nullable = <const T extends object>(schema: T) => ({ oneOf: [schema, { type: 'null' }] }) as const;
const time = { type: 'string', description: 'ISO 8601 time.' } as const;
const amountText = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'An exact decimal.' } as const;
const strict = <P extends Record<string, object>>(id: string, description: string, properties: P) =>
  ({ $id: id, type: 'object', description, additionalProperties: false, required: Object.keys(properties) as (keyof P & string)[], properties }) as const;

/** What a plan's page and the subscriber's page both show of the plan. */
const planProperties = {
  name: { type: 'string', description: 'What the subscriber pays for.' },
  description: { type: 'string' },
  price_amount: { ...amountText, description: "A period's price, in price_currency (the plan's now: a period's order keeps the price it was made with)." },
  price_currency: { type: 'string' },
  interval_unit: { type: 'string', enum: INTERVAL_UNITS },
  interval_count: { type: 'integer', minimum: 1, description: 'A period is interval_count interval_units.' },
} as const;

export const payPlanSchema = strict('PayPlan', 'A plan as its public page shows it: only what a subscriber needs.', {
  plan_id: { type: 'string', format: 'uuid' },
  ...planProperties,
  trial_days: { type: 'integer', minimum: 0, description: 'Free days before the first period is due.' },
  archived: { type: 'boolean', description: 'true: the plan takes no new subscriber (the page says so).' },
  merchant_name: { type: 'string', description: "The merchant's display name." },
  sandbox: { type: 'boolean', description: 'A sandbox merchant: test payments only.' },
});

export const payPlanResponseSchema = strict('PayPlanResponse', "The plan's page.", {
  status: { type: 'integer', const: 200 },
  plan: { $ref: 'PayPlan' },
});

export const planSubscriptionResponseSchema = strict('PlanSubscriptionResponse', 'The new subscription: its first period to pay now, or its trial started. Its page link is emailed, never answered.', {
  status: { type: 'integer', const: 201 },
  started: { type: 'string', enum: ['payment', 'trial'], description: "payment: the first period's order is made (pay it at payment_url); trial: the free trial started." },
  payment_url: { ...nullable({ type: 'string' }), description: "The first period's order's payment page (no trial), else null." },
  trial_ends_at: { ...nullable(time), description: 'When the trial ends and the first period is due (a trial), else null.' },
});

export const subscriberAcceptedResponseSchema = strict('SubscriberAcceptedResponse', 'Taken: an email follows when there is one to send (the answer is the same either way).', {
  status: { type: 'integer', const: 200 },
});

export const subscriberPeriodSchema = strict('SubscriberPeriod', "One period's order (an attempt) as its subscriber sees it: its receipt once paid.", {
  period: { type: 'integer', minimum: 1, description: '1: the first.' },
  attempt: { type: 'integer', minimum: 1, description: 'A period whose order lapsed unpaid gets another (2, 3, ...).' },
  order_id: { type: 'string', format: 'uuid' },
  due_at: time,
  amount: { ...amountText, description: 'The price the order was made with, in currency.' },
  currency: { type: 'string' },
  status: { type: 'string', enum: ORDER_STATUSES, description: "The order's status." },
  paid_at: { ...nullable(time), description: 'When it was paid, or null.' },
  pay_amount: { ...nullable(amountText), description: 'What was paid, in pay_currency (once paid).' },
  pay_currency: nullable({ type: 'string' }),
  txids: { type: 'array', items: { type: 'string' }, description: 'The payment transactions (none for the sandbox and gateways).' },
  receipt_url: { type: 'string', description: "The order's payment page (a receipt once paid)." },
});

export const subscriberPageSchema = strict('SubscriberPage', 'A subscription as its subscriber sees it.', {
  status: { type: 'string', enum: SUBSCRIPTION_STATUSES },
  plan: strict('SubscriberPlan', 'The plan subscribed to.', planProperties),
  merchant_name: { type: 'string' },
  sandbox: { type: 'boolean' },
  started_at: time,
  trial_ends_at: { ...nullable(time), description: 'While trialing: when the trial ends.' },
  period: { type: 'integer', minimum: 1, description: 'The period billed next or now (1: the first).' },
  periods_paid: { type: 'integer', minimum: 0 },
  next_due_at: { ...nullable(time), description: "When that period is due; null once ended (or ending at the period's end: ends_at)." },
  next_amount: { ...nullable(amountText), description: "That period's price: its order's, once made, else the plan's now." },
  next_currency: nullable({ type: 'string' }),
  payable: { type: 'boolean', description: 'Something is owed now: "Pay now" answers its payment page (making the next order when the last one lapsed).' },
  cancel_at_period_end: { type: 'boolean' },
  ends_at: { ...nullable(time), description: "Canceled at the period's end: when it ends." },
  canceled_at: nullable(time),
  cancel_reason: nullable({ type: 'string', enum: CANCEL_REASONS }),
  clock: { ...time, description: "The subscription's own time (a sandbox test clock may run ahead): the dates above are on it." },
});

export const subscriberPageResponseSchema = strict('SubscriberPageResponse', "The subscriber's page: the subscription and its periods, newest first.", {
  status: { type: 'integer', const: 200 },
  subscription: { $ref: 'SubscriberPage' },
  periods: { type: 'array', items: { $ref: 'SubscriberPeriod' } },
});

export const subscriberPaymentResponseSchema = strict('SubscriberPaymentResponse', "What the subscriber owes now: the current period's order and its payment page.", {
  status: { type: 'integer', const: 200 },
  order_id: { ...nullable({ type: 'string', format: 'uuid' }), description: "The current period's order, or null: nothing is owed now." },
  payment_url: { ...nullable({ type: 'string' }), description: 'Its payment page, or null.' },
});

/** A plan as its public page answers it. */
export function payPlanView(plan: Plan, merchant: { name: string; sandbox: boolean }) {
  return {
    status: 200 as const,
    plan: {
      plan_id: plan.plan_id,
      ...planFields(plan),
      trial_days: plan.trial_days,
      archived: plan.archived,
      merchant_name: merchant.name,
      sandbox: merchant.sandbox,
    },
  };
}
export type PayPlanView = ReturnType<typeof payPlanView>;

/** The plan's fields both pages show. */
export const planFields = (plan: Plan) => ({
  name: plan.name,
  description: plan.description,
  price_amount: plan.price_amount,
  price_currency: plan.price_currency,
  interval_unit: plan.interval_unit,
  interval_count: plan.interval_count,
});

/** The subscriber's page as answered (made by shared/services/subscriber.ts from the subscription, its plan and its periods' orders). */
export interface SubscriberPageView {
  status: 200;
  subscription: {
    status: (typeof SUBSCRIPTION_STATUSES)[number];
    plan: ReturnType<typeof planFields>;
    merchant_name: string;
    sandbox: boolean;
    started_at: string;
    trial_ends_at: string | null;
    period: number;
    periods_paid: number;
    next_due_at: string | null;
    next_amount: string | null;
    next_currency: string | null;
    payable: boolean;
    cancel_at_period_end: boolean;
    ends_at: string | null;
    canceled_at: string | null;
    cancel_reason: (typeof CANCEL_REASONS)[number] | null;
    clock: string;
  };
  periods: SubscriberPeriodView[];
}

export interface SubscriberPeriodView {
  period: number;
  attempt: number;
  order_id: string;
  due_at: string;
  amount: string;
  currency: string;
  status: (typeof ORDER_STATUSES)[number];
  paid_at: string | null;
  pay_amount: string | null;
  pay_currency: string | null;
  txids: string[];
  receipt_url: string;
}
