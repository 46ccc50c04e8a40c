import { InvalidParameterError, InvalidPriceError, ParametersMissingError } from '#shared/domain/errors';
import { PlanArchivedError, PlanConflictError, PlanNotFoundError, SubscriptionCanceledError, SubscriptionNotFoundError, SubscriptionPaymentPendingError } from '#shared/domain/subscription-errors';
import { PLAN_CHANGE_ATTEMPTS } from '#shared/domain/subscription';
import { priceNotValidErrorSchema } from '#shared/schemas/error-responses';
import { listPlansResponseSchema, listSubscriptionsResponseSchema, planResponseSchema, subscriptionResponseSchema } from '#shared/schemas/subscriptions';
import { AUTHENTICATION_FAILED, INVALID_JSON, PAYLOAD_TOO_LARGE, SANDBOX_ONLY, SERVICE_UNAVAILABLE, badPage, errorCase } from '#tools/openapi/errors';
import type { OperationMeta } from '#tools/openapi/operation';

/**
 * Recurring billing (beyond the contract): plans, subscriptions and the sandbox's test clock.
 * Each period is billed with an ordinary order, so everything said here about an order (its
 * statuses, callbacks, Get Order) is the Orders tag's.
 */

const PLAN_ID_PARAMETER = "The plan_id Create Plan answered. Another merchant's plan, or any other value, is answered as a missing plan.";
const SUBSCRIPTION_ID_PARAMETER = "The subscription_id Create Subscription answered. Another merchant's subscription, or any other value, is answered as a missing subscription.";

const PLAN_ID = '3f2b8c1d-6a4e-4f0b-9c7d-2e1f0a9b8c7d';
const SUBSCRIPTION_ID = '8d4e2f1a-7b3c-4a5d-9e6f-0a1b2c3d4e5f';
/** The first period's order and the second's (ordinary orders: Get Order reads them). */
const FIRST_ORDER_ID = '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d';
const SECOND_ORDER_ID = '6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e';

const PLAN = {
  plan_id: PLAN_ID,
  name: 'Hosting, small',
  description: 'One VPS, billed monthly',
  price_amount: '12.5',
  price_currency: 'USD',
  interval_unit: 'month',
  interval_count: 1,
  trial_days: 0,
  grace_days: 7,
  invoice_days_before: 3,
  callback_url: 'https://hosting.example/callbacks',
  success_url: 'https://hosting.example/thanks',
  events_url: 'https://hosting.example/subscription-events',
  archived: false,
  created_at: '2026-12-01T10:00:00.000Z',
  updated_at: '2026-12-01T10:00:00.000Z',
};

const STARTED_AT = '2026-12-01T10:05:00.000Z';

/** Just made on a plan without a trial: incomplete, its first period's order made at once and due now. */
const INCOMPLETE = {
  subscription_id: SUBSCRIPTION_ID,
  plan_id: PLAN_ID,
  status: 'incomplete',
  customer_email: 'member@example.com',
  customer_id: 'cus_42',
  started_at: STARTED_AT,
  period: 1,
  period_due_at: STARTED_AT,
  period_order_id: FIRST_ORDER_ID,
  periods_paid: 0,
  cancel_at_period_end: false,
  canceled_at: null,
  cancel_reason: null,
  clock: STARTED_AT,
  created_at: STARTED_AT,
  updated_at: STARTED_AT,
};

/** The first period paid: the second is billed next, due a month after the start. */
const ACTIVE = {
  ...INCOMPLETE,
  status: 'active',
  period: 2,
  period_due_at: '2027-01-01T10:05:00.000Z',
  period_order_id: null,
  periods_paid: 1,
  clock: '2026-12-01T10:20:00.000Z',
  updated_at: '2026-12-01T10:20:00.000Z',
};

/** On a plan with 14 trial days: nothing to pay before the trial ends, its first period due then. */
const TRIALING = { ...INCOMPLETE, status: 'trialing', period_due_at: '2026-12-15T10:05:00.000Z', period_order_id: null };

const BAD_PRICE = errorCase(
  'PRICE_NOT_VALID',
  "price_amount is not a number above 0 and below 10^12 with at most the currency's decimals. The contract's body, as Create Order answers it (no `error_code`).",
  new InvalidPriceError(),
  priceNotValidErrorSchema,
);
const PLAN_NOT_FOUND = errorCase('PLAN_NOT_FOUND', "No such plan of this merchant (another merchant's reads the same).", new PlanNotFoundError());
const SUBSCRIPTION_NOT_FOUND = errorCase('SUBSCRIPTION_NOT_FOUND', "No such subscription of this merchant (another merchant's reads the same).", new SubscriptionNotFoundError());
const SUBSCRIPTION_CANCELED = errorCase('SUBSCRIPTION_CANCELED', 'The subscription is canceled already: it is final.', new SubscriptionCanceledError());

/** How an ordinary order bills each period, said once for the operations that make them. */
const PERIOD_ORDERS = [
  "Each period is billed with an ordinary order of the merchant's (`merchant_order_id` `sub_<subscription_id>_<period>`, the first",
  "period 1, with `_<attempt>` after it when an earlier order of that period expired or was canceled unpaid): the plan's name,",
  "description, price of the moment and URLs, the subscriber's `customer_email` as its email. It is made `invoice_days_before`",
  'days before the period is due and is not checked out (the subscriber picks a currency on its payment page); never checked',
  "out, it expires only at the end of the period's grace period, and one that lapses before then (expired or canceled unpaid)",
  'is replaced at once by the next attempt. Get Order, checkout, the payment page and callbacks treat it like any other order.',
].join('\n');

export const SUBSCRIPTION_OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  'create-plan': {
    operationId: 'createPlan',
    tag: 'Subscriptions',
    summary: 'Create a subscription plan',
    description: [
      'What a subscriber pays each period: `price_amount` in `price_currency` (a fiat or stable currency, default USD) every',
      '`interval_count` (default 1) `interval_unit`s: days, weeks, months or years, at most 365 days, 52 weeks, 12 months or',
      '3 years. Periods are computed in UTC from the first due date, each from it rather than from the period before, and a',
      "month ends on the target month's last day when it is shorter (31 January, 28 or 29 February, 31 March). `trial_days`",
      '(default 0) are free before the first period is due; `grace_days` (default 7) is how long an unpaid period is waited',
      'for after its due date; `invoice_days_before` (default 3, at most a period) is how long before the due date each',
      "period's order is made. HTTP 201. Beyond the contract.",
    ].join('\n'),
    requestExamples: {
      monthly: {
        summary: 'Monthly, 7 days of grace, billed 3 days ahead',
        value: {
          name: PLAN.name,
          description: PLAN.description,
          price_amount: '12.5',
          price_currency: 'USD',
          interval_unit: 'month',
          grace_days: 7,
          invoice_days_before: 3,
          callback_url: PLAN.callback_url,
          success_url: PLAN.success_url,
          events_url: PLAN.events_url,
        },
      },
      trial: { summary: 'Every two weeks after a 14-day trial', value: { name: 'Coffee beans', price_amount: 18, interval_unit: 'week', interval_count: 2, trial_days: 14 } },
    },
    success: { status: 201, description: 'The new plan.', schema: planResponseSchema, examples: { created: { summary: 'Created', value: { status: 201, plan: PLAN } } } },
    errors: [
      BAD_PRICE,
      errorCase('PARAMETERS_MISSING', 'name, price_amount or interval_unit is missing.', new ParametersMissingError('interval_unit')),
      errorCase(
        'PARAMETERS_INVALID',
        'A field is unknown, malformed or out of its bounds, interval_count is more than its unit allows, invoice_days_before is longer than a period, or callback_url or events_url points at a private network (the message names the field).',
        new InvalidParameterError('invoice_days_before is longer than a period'),
      ),
      INVALID_JSON,
      AUTHENTICATION_FAILED,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
  'list-plans': {
    operationId: 'listPlans',
    tag: 'Subscriptions',
    summary: 'List subscription plans',
    description: "The merchant's plans (archived ones included), newest first, a page by cursor. Beyond the contract.",
    success: { description: 'A page of plans.', schema: listPlansResponseSchema, examples: { page: { summary: 'One plan', value: { status: 200, plans: [PLAN], next_cursor: null } } } },
    errors: [badPage('limit or cursor'), AUTHENTICATION_FAILED, SERVICE_UNAVAILABLE],
  },
  'get-plan': {
    operationId: 'getPlan',
    tag: 'Subscriptions',
    summary: 'Get a subscription plan',
    description: "One of the merchant's plans. Beyond the contract.",
    pathParameters: { plan_id: PLAN_ID_PARAMETER },
    success: { description: 'The plan.', schema: planResponseSchema, examples: { plan: { summary: 'A plan', value: { status: 200, plan: PLAN } } } },
    errors: [PLAN_NOT_FOUND, AUTHENTICATION_FAILED, SERVICE_UNAVAILABLE],
  },
  'update-plan': {
    operationId: 'updatePlan',
    tag: 'Subscriptions',
    summary: 'Change or archive a subscription plan',
    description: [
      "Changes the fields sent (at least one). A new `price_amount` (in the plan's currency) applies from each subscription's",
      'next period whose order is not made yet, never to an order already made; so do the name, description and URLs. The',
      "grace period and the invoice lead apply to the subscriptions' next steps; `trial_days` to subscriptions started from",
      'now. `{"archived": true}` takes no new subscriber (existing subscriptions go on); `false` takes them again. The',
      'currency and the interval cannot change (subscriptions are billed by them): make a new plan. Beyond the contract.',
    ].join('\n'),
    pathParameters: { plan_id: PLAN_ID_PARAMETER },
    requestExamples: {
      price: { summary: 'A new price from the next period billed', value: { price_amount: '15' } },
      archive: { summary: 'No new subscriber', value: { archived: true } },
    },
    success: {
      description: 'The plan as it is now.',
      schema: planResponseSchema,
      examples: {
        priced: { summary: 'A new price', value: { status: 200, plan: { ...PLAN, price_amount: '15', updated_at: '2026-12-10T09:00:00.000Z' } } },
        archived: { summary: 'Archived', value: { status: 200, plan: { ...PLAN, archived: true, updated_at: '2026-12-10T09:00:00.000Z' } } },
      },
    },
    errors: [
      BAD_PRICE,
      errorCase(
        'PARAMETERS_INVALID',
        'The body is empty, a field is unknown (price_currency and the interval among them), malformed or out of its bounds, invoice_days_before is longer than a period, or callback_url or events_url points at a private network.',
        new InvalidParameterError('invoice_days_before is longer than a period'),
      ),
      INVALID_JSON,
      PLAN_NOT_FOUND,
      errorCase(
        'PLAN_CONFLICT',
        `Changes sent at once are each made on the version another wrote first, so all of them land; only after ${PLAN_CHANGE_ATTEMPTS} tries in a row is one refused: retry it.`,
        new PlanConflictError(),
      ),
      AUTHENTICATION_FAILED,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
  'create-subscription': {
    operationId: 'createSubscription',
    tag: 'Subscriptions',
    summary: 'Subscribe a customer to a plan',
    description: [
      "Starts a subscription to one of the merchant's plans now. On a plan with `trial_days` it is `trialing` and its first",
      'period is due when the trial ends; otherwise it is `incomplete`, its first period due now and its order made at once',
      "(the answer's `period_order_id`: send the subscriber its `payment_url`, or check it out yourself).",
      PERIOD_ORDERS,
      'A paid period makes the subscription `active` and the next one current; a period unpaid at its due date makes it',
      '`past_due` (a first period never paid stays `incomplete`); paid within the grace period it is `active` again, still',
      "unpaid at the end of it the subscription is canceled with the period's order. HTTP 201. Beyond the contract.",
    ].join('\n'),
    requestExamples: {
      customer: { summary: "With the customer's email and your id for them", value: { plan_id: PLAN_ID, customer_email: 'member@example.com', customer_id: 'cus_42' } },
      bare: { summary: 'The plan alone', value: { plan_id: PLAN_ID } },
    },
    success: {
      status: 201,
      description: 'The new subscription.',
      schema: subscriptionResponseSchema,
      examples: {
        incomplete: { summary: "No trial: the first period's order is made", value: { status: 201, subscription: INCOMPLETE } },
        trialing: { summary: 'A 14-day trial', value: { status: 201, subscription: TRIALING } },
      },
    },
    errors: [
      errorCase('PARAMETERS_MISSING', 'plan_id is missing.', new ParametersMissingError('plan_id')),
      errorCase(
        'PARAMETERS_INVALID',
        'A field is unknown or malformed, or customer_email is not one mailbox (the message names it).',
        new InvalidParameterError('customer_email must be one email address, local@domain (no name, list, group, quotes or encoded word)'),
      ),
      INVALID_JSON,
      errorCase('PLAN_NOT_FOUND', "No such plan of this merchant (another merchant's reads the same).", new PlanNotFoundError()),
      errorCase('PLAN_ARCHIVED', 'The plan is archived: it takes no new subscriber.', new PlanArchivedError()),
      AUTHENTICATION_FAILED,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
  'list-subscriptions': {
    operationId: 'listSubscriptions',
    tag: 'Subscriptions',
    summary: 'List subscriptions',
    description: "The merchant's subscriptions, in one `status` or all of them, newest first, a page by cursor. Beyond the contract.",
    success: {
      description: 'A page of subscriptions.',
      schema: listSubscriptionsResponseSchema,
      examples: { page: { summary: 'One subscription', value: { status: 200, subscriptions: [ACTIVE], next_cursor: null } } },
    },
    errors: [badPage('status, limit or cursor'), AUTHENTICATION_FAILED, SERVICE_UNAVAILABLE],
  },
  'get-subscription': {
    operationId: 'getSubscription',
    tag: 'Subscriptions',
    summary: 'Get a subscription',
    description: [
      "One of the merchant's subscriptions: its status, the period billed now or next (`period`, 1 the first), when it is due",
      "and its order once made, the periods paid, and its `clock` (the time now, or later once the sandbox's test clock moved",
      'it). Beyond the contract.',
    ].join('\n'),
    pathParameters: { subscription_id: SUBSCRIPTION_ID_PARAMETER },
    success: { description: 'The subscription.', schema: subscriptionResponseSchema, examples: { active: { summary: 'The first period paid', value: { status: 200, subscription: ACTIVE } } } },
    errors: [SUBSCRIPTION_NOT_FOUND, AUTHENTICATION_FAILED, SERVICE_UNAVAILABLE],
  },
  'cancel-subscription': {
    operationId: 'cancelSubscription',
    tag: 'Subscriptions',
    summary: 'Cancel a subscription',
    description: [
      "By default canceled now (`cancel_reason` `merchant`), with the current period's unpaid order (it becomes CANCELED); a",
      'period paid meanwhile is counted first. With `{"at_period_end": true}` no further order is made and the subscription',
      'ends at the next due date, when the period paid or the trial runs out; an order made before for that next period is',
      'canceled then unless it is paid. One with no period paid and no trial (incomplete, or past_due on its first period) is',
      'canceled now either way. Beyond the contract.',
    ].join('\n'),
    pathParameters: { subscription_id: SUBSCRIPTION_ID_PARAMETER },
    requestExamples: {
      now: { summary: 'Now', value: {} },
      end: { summary: 'At the end of the period paid', value: { at_period_end: true } },
    },
    success: {
      description: 'The subscription as it is now.',
      schema: subscriptionResponseSchema,
      examples: {
        now: {
          summary: 'Canceled now with its unpaid order',
          value: {
            status: 200,
            subscription: {
              ...INCOMPLETE,
              status: 'canceled',
              canceled_at: '2026-12-02T08:00:00.000Z',
              cancel_reason: 'merchant',
              clock: '2026-12-02T08:00:00.000Z',
              updated_at: '2026-12-02T08:00:00.000Z',
            },
          },
        },
        end: {
          summary: 'Ends at the next due date',
          value: { status: 200, subscription: { ...ACTIVE, cancel_at_period_end: true, cancel_reason: 'merchant', clock: '2026-12-02T08:00:00.000Z', updated_at: '2026-12-02T08:00:00.000Z' } },
        },
      },
    },
    errors: [
      errorCase('PARAMETERS_INVALID', 'A field is unknown or at_period_end is not a boolean.', new InvalidParameterError('at_period_end must be boolean')),
      INVALID_JSON,
      SUBSCRIPTION_NOT_FOUND,
      SUBSCRIPTION_CANCELED,
      errorCase('SUBSCRIPTION_PAYMENT_PENDING', "A payment of the period's order is on its way (PENDING): cancel once it is final, or at the period's end.", new SubscriptionPaymentPendingError()),
      AUTHENTICATION_FAILED,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
  'sandbox-advance-clock': {
    operationId: 'sandboxAdvanceClock',
    tag: 'Subscriptions',
    summary: "Move a subscription's test clock forward (sandbox)",
    description: [
      "Sandbox merchants only: moves the subscription's own clock `days` forward (fractions allowed, up to 366) and takes at",
      "once every step that time owes, as the renewal sweep would over those days: the period's order made, past_due,",
      "canceled at the end of the grace period, the next period after a payment. The answer's `clock` is the time it now",
      "reads. The clock never goes back, and a live merchant's never moves. Beyond the contract.",
    ].join('\n'),
    pathParameters: { subscription_id: SUBSCRIPTION_ID_PARAMETER },
    requestExamples: {
      invoice: { summary: "To the second period's invoice", value: { days: 28 } },
      step: { summary: 'A moment, to take the steps owed now (after a payment)', value: { days: 0.001 } },
    },
    success: {
      description: 'The subscription at its new time.',
      schema: subscriptionResponseSchema,
      examples: {
        invoiced: {
          summary: "28 days on: the second period's order is made",
          value: { status: 200, subscription: { ...ACTIVE, period_order_id: SECOND_ORDER_ID, clock: '2026-12-29T10:21:00.000Z', updated_at: '2026-12-01T10:21:00.000Z' } },
        },
      },
    },
    errors: [
      errorCase('PARAMETERS_MISSING', 'days is missing.', new ParametersMissingError('days')),
      errorCase('PARAMETERS_INVALID', 'days is not a number above 0 and at most 366, or a field is unknown.', new InvalidParameterError('days must be <= 366')),
      INVALID_JSON,
      SANDBOX_ONLY,
      SUBSCRIPTION_NOT_FOUND,
      SUBSCRIPTION_CANCELED,
      AUTHENTICATION_FAILED,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
};
