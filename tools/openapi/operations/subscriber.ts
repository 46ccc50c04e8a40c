import { InvalidParameterError, ParametersMissingError } from '#shared/domain/errors';
import { PlanArchivedError, PlanNotFoundError, SubscriptionCanceledError, SubscriptionNotFoundError, SubscriptionPaymentPendingError } from '#shared/domain/subscription-errors';
import { payPlanResponseSchema, planSubscriptionResponseSchema, subscriberAcceptedResponseSchema, subscriberPageResponseSchema, subscriberPaymentResponseSchema } from '#shared/schemas/subscriber';
import { INVALID_JSON, PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE, errorCase } from '#tools/openapi/errors';
import type { OperationMeta } from '#tools/openapi/operation';

/**
 * The subscriber's routes (beyond the contract): a plan's public link page, and the subscriber's
 * own page, opened by the secret of the link every subscriber email carries. No token.
 */

const PLAN_ID = "The plan_id in the plan's link (`?plan=` on the payment site).";
const PUBLIC = "No token: the plan id is the page's only capability. Throttled per client address as the payment page's routes are (429 API_LIMIT_EXCEEDED with Retry-After).";
const BY_SECRET = [
  "No token and no account: the secret of the subscriber's page link (what follows `#subscription=` in the link each subscriber email carries,",
  'kept by the service only as its SHA-256) is the only capability, sent in the body so no log holds it. A wrong secret, and one a new link',
  "replaced, answer 404 SUBSCRIPTION_NOT_FOUND alike. Throttled per client address as the payment page's routes are.",
].join('\n');
const SECRET_EXAMPLE = { secret: 'q9Jd0c1QxV7m3Yw2Z8bK5fLr4sTn6HuA0pGe1iOyXvM' };
const PLAN_NOT_FOUND = errorCase('PLAN_NOT_FOUND', 'No such plan, or its merchant is disabled.', new PlanNotFoundError());
const LINK_NOT_FOUND = errorCase('SUBSCRIPTION_NOT_FOUND', 'The secret opens nothing: wrong, or replaced by a new link.', new SubscriptionNotFoundError());
const CANCELED = errorCase('SUBSCRIPTION_CANCELED', 'The subscription has ended.', new SubscriptionCanceledError());
const BAD_SECRET = errorCase('PARAMETERS_INVALID', 'The secret is not 43 base64url characters, or a field is unknown.', new InvalidParameterError('secret must match pattern "^[A-Za-z0-9_-]{43}$"'));
const MISSING_SECRET = errorCase('PARAMETERS_MISSING', 'The secret is missing.', new ParametersMissingError('secret'));
const BAD_EMAIL = errorCase(
  'PARAMETERS_INVALID',
  'The email is not one address (local@domain, nothing else), or a field is unknown.',
  new InvalidParameterError('email must be one address: local@domain'),
);
const MISSING_EMAIL = errorCase('PARAMETERS_MISSING', 'The email is missing.', new ParametersMissingError('email'));
const SECRET_ERRORS = [MISSING_SECRET, BAD_SECRET, INVALID_JSON, LINK_NOT_FOUND, PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE];

const PLAN = {
  plan_id: '3d5e7f90-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
  name: 'Hosting, small',
  description: 'One VPS',
  price_amount: '12.5',
  price_currency: 'USD',
  interval_unit: 'month',
  interval_count: 1,
};
const PAGE = {
  status: 200,
  subscription: {
    status: 'active',
    plan: { name: PLAN.name, description: PLAN.description, price_amount: PLAN.price_amount, price_currency: 'USD', interval_unit: 'month', interval_count: 1 },
    merchant_name: 'Hosting Co',
    sandbox: false,
    started_at: '2027-01-31T09:00:00.000Z',
    trial_ends_at: null,
    period: 2,
    periods_paid: 1,
    next_due_at: '2027-02-28T09:00:00.000Z',
    next_amount: '12.5',
    next_currency: 'USD',
    payable: true,
    cancel_at_period_end: false,
    ends_at: null,
    canceled_at: null,
    cancel_reason: null,
    clock: '2027-02-25T10:00:00.000Z',
  },
  periods: [
    {
      period: 2,
      attempt: 1,
      order_id: 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e',
      due_at: '2027-02-28T09:00:00.000Z',
      amount: '12.5',
      currency: 'USD',
      status: 'NEW',
      paid_at: null,
      pay_amount: null,
      pay_currency: null,
      txids: [],
      receipt_url: 'https://pay.example.com/pay/?id=b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e',
    },
    {
      period: 1,
      attempt: 1,
      order_id: '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d',
      due_at: '2027-01-31T09:00:00.000Z',
      amount: '12.5',
      currency: 'USD',
      status: 'PAID',
      paid_at: '2027-01-31T09:04:12.000Z',
      pay_amount: '12.5',
      pay_currency: 'USDT_TRC20',
      txids: ['9f2c6a0e5b1d4c3a8e7f6d5c4b3a29180716253443526170819a2b3c4d5e6f70'],
      receipt_url: 'https://pay.example.com/pay/?id=7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d',
    },
  ],
};

export const SUBSCRIBER_OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  'pay-get-plan': {
    operationId: 'payGetPlan',
    tag: 'Payment page',
    summary: 'A subscription plan, for its link page',
    description: [
      "What the plan's link page shows: its name, price and interval, the free trial's days, the merchant, and whether it is archived (it then takes no new subscriber). Opening it makes nothing.",
      PUBLIC,
    ].join('\n'),
    pathParameters: { plan_id: PLAN_ID },
    success: {
      description: 'The plan as its page shows it.',
      schema: payPlanResponseSchema,
      examples: { plan: { summary: 'A monthly plan', value: { status: 200, plan: { ...PLAN, trial_days: 0, archived: false, merchant_name: 'Hosting Co', sandbox: false } } } },
    },
    errors: [PLAN_NOT_FOUND, SERVICE_UNAVAILABLE],
  },
  'pay-create-plan-subscription': {
    operationId: 'payCreatePlanSubscription',
    tag: 'Payment page',
    summary: "A subscriber's subscription from a plan's link",
    description: [
      "Starts a subscription to the plan with the subscriber's email, as Create Subscription does: without a trial its first period's",
      "order is made at once and the page continues on its `payment_url`; with one, the trial starts. The link to the subscriber's page",
      'is emailed to that address with its first email (the invoice, or the trial started), never answered: whoever typed the address',
      'gets it only by reading that mailbox. The emails of a subscription started here count against the mail limits, its first ones in',
      "the plan's hourly window as a payment link's receipts do. A retry with the same Idempotency-Key answers the first answer, and one",
      'whose first try failed goes on with the same subscription. HTTP 201.',
      PUBLIC,
    ].join('\n'),
    pathParameters: { plan_id: PLAN_ID },
    requestExamples: { email: { summary: "The subscriber's email", value: { email: 'member@example.com' } } },
    success: {
      status: 201,
      description: 'Started: the first period to pay now, or the trial.',
      schema: planSubscriptionResponseSchema,
      examples: {
        payment: {
          summary: 'No trial: pay the first period',
          value: { status: 201, started: 'payment', payment_url: 'https://pay.example.com/pay/?id=7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d', trial_ends_at: null },
        },
        trial: { summary: 'A trial started', value: { status: 201, started: 'trial', payment_url: null, trial_ends_at: '2027-02-14T09:00:00.000Z' } },
      },
    },
    errors: [
      MISSING_EMAIL,
      BAD_EMAIL,
      INVALID_JSON,
      PLAN_NOT_FOUND,
      errorCase('PLAN_ARCHIVED', 'The plan is archived: it takes no new subscriber.', new PlanArchivedError()),
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
  'pay-plan-subscriber-link': {
    operationId: 'payRequestSubscriberLink',
    tag: 'Payment page',
    summary: "Email me my link: a subscriber's page link, by email",
    description: [
      'Mails the page link of each subscription to the plan started with this address, to that address only, within the mail limits.',
      'Answered alike whether the address subscribes or not (the same one write either way), so nobody learns from it who subscribes.',
      PUBLIC,
    ].join('\n'),
    pathParameters: { plan_id: PLAN_ID },
    requestExamples: { email: { summary: 'The address subscribed with', value: { email: 'member@example.com' } } },
    success: { description: 'Taken.', schema: subscriberAcceptedResponseSchema, examples: { taken: { summary: 'Taken', value: { status: 200 } } } },
    errors: [MISSING_EMAIL, BAD_EMAIL, INVALID_JSON, PLAN_NOT_FOUND, PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE],
  },
  'pay-open-subscription': {
    operationId: 'payOpenSubscription',
    tag: 'Payment page',
    summary: "The subscriber's page",
    description: [
      "What the subscriber's page shows: the subscription's status, its plan, the next due date and amount, whether something is owed now",
      "(`payable`), a cancellation at the period's end, and its periods newest first (each period order with its status, when it was paid,",
      "what was paid and its transactions, its payment page as the receipt). Dates are on the subscription's clock (`clock`: a sandbox test clock may run ahead).",
      BY_SECRET,
    ].join('\n'),
    requestExamples: { secret: { summary: "The link's secret", value: SECRET_EXAMPLE } },
    success: { description: 'The subscription as its subscriber sees it.', schema: subscriberPageResponseSchema, examples: { active: { summary: 'The second period invoiced', value: PAGE } } },
    errors: SECRET_ERRORS,
  },
  'pay-subscription-payment': {
    operationId: 'paySubscriptionPayment',
    tag: 'Payment page',
    summary: "Pay now: the current period's payment page",
    description: [
      'Takes the steps the subscription owes first (a period whose order lapsed unpaid gets its next order), then answers the current',
      "period's order and its payment page; both null when nothing is owed now (paid, the next order not made yet, or canceled at the period's end).",
      BY_SECRET,
    ].join('\n'),
    requestExamples: { secret: { summary: "The link's secret", value: SECRET_EXAMPLE } },
    success: {
      description: 'What to pay now, if anything.',
      schema: subscriberPaymentResponseSchema,
      examples: {
        owed: { summary: 'The second period', value: { status: 200, order_id: PAGE.periods[0]!.order_id, payment_url: PAGE.periods[0]!.receipt_url } },
        nothing: { summary: 'Nothing owed now', value: { status: 200, order_id: null, payment_url: null } },
      },
    },
    errors: [...SECRET_ERRORS, CANCELED],
  },
  'pay-cancel-subscription': {
    operationId: 'payCancelSubscription',
    tag: 'Payment page',
    summary: "The subscriber cancels at the period's end",
    description: [
      'Cancels the subscription at the end of the period paid or of the trial: nothing more is billed, and an order already made for the',
      'next period is canceled with it at the due date. A subscription with nothing paid yet ends now, with its unpaid order. The reason',
      'recorded is `subscriber`. Answers the page as it is now.',
      BY_SECRET,
    ].join('\n'),
    requestExamples: { secret: { summary: "The link's secret", value: SECRET_EXAMPLE } },
    success: {
      description: "The page, canceled at the period's end.",
      schema: subscriberPageResponseSchema,
      examples: {
        ending: {
          summary: "Ends at the period's end",
          value: {
            ...PAGE,
            subscription: {
              ...PAGE.subscription,
              payable: false,
              cancel_at_period_end: true,
              next_due_at: null,
              next_amount: null,
              next_currency: null,
              ends_at: '2027-02-28T09:00:00.000Z',
              cancel_reason: 'subscriber',
            },
          },
        },
      },
    },
    errors: [
      ...SECRET_ERRORS,
      CANCELED,
      errorCase('SUBSCRIPTION_PAYMENT_PENDING', 'Nothing paid yet, and a payment of the first period is on its way: cancel once it is final.', new SubscriptionPaymentPendingError()),
    ],
  },
  'pay-renew-subscription-link': {
    operationId: 'payRenewSubscriberLink',
    tag: 'Payment page',
    summary: "A new subscriber's page link in place of this one",
    description: ["This link stops working at once; the new one is emailed to the subscription's address, never answered.", BY_SECRET].join('\n'),
    requestExamples: { secret: { summary: "The link's secret", value: SECRET_EXAMPLE } },
    success: { description: 'Replaced: the new link is on its way by email.', schema: subscriberAcceptedResponseSchema, examples: { taken: { summary: 'Replaced', value: { status: 200 } } } },
    errors: SECRET_ERRORS,
  },
};
