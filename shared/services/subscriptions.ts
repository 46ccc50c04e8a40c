import { apiConfig, callbackUrlConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { CancelFailedError, IdempotencyKeyReusedError, InvalidParameterError, MerchantOrderIdExistsError, SandboxOnlyError } from '#shared/domain/errors';
import { isId, newId, requestIdFor } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { formatDecimal } from '#shared/domain/money';
import { parsePrice } from '#shared/domain/price';
import {
  anchorOf,
  MAX_INTERVAL_COUNT,
  PLAN_CHANGE_ATTEMPTS,
  nextStep,
  type Plan,
  periodDue,
  periodOrderState,
  periodReference,
  realTimeOf,
  type Subscription,
  type SubscriptionPeriod,
  type SubscriptionStep,
  startingStatus,
  subscriptionNow,
} from '#shared/domain/subscription';
import { PlanArchivedError, PlanConflictError, PlanNotFoundError, SubscriptionCanceledError, SubscriptionNotFoundError, SubscriptionPaymentPendingError } from '#shared/domain/subscription-errors';
import type { CancelSubscriptionBody, CreatePlanBody, CreateSubscriptionBody, ListPlansQuery, ListSubscriptionsQuery, UpdatePlanBody } from '#shared/schemas/subscriptions';
import { cancelOrder } from '#shared/services/order-actions';
import { createOrder } from '#shared/services/orders';
import { checkCallbackUrl } from '#shared/callbacks/ssrf';
import { subscriptionDeliveryFor } from '#shared/services/subscription-events';
import { checkUrls, decodeCursor, encodeCursor } from '#shared/services/payment-links';
import { findMerchant } from '#shared/store/merchants';
import { findOrderWithInvoice } from '#shared/store/orders';
import {
  findPlan,
  findPlans,
  findSubscription,
  insertPlan,
  insertSubscription,
  listPlans,
  listSubscriptions,
  recordPeriod,
  recordReminder,
  replacePlan,
  writeSubscription,
} from '#shared/store/subscriptions';
import type { Order } from '#shared/domain/order';
import { profileOf } from '#shared/domain/merchant';
import { checkMailbox } from '#shared/domain/email-address';

/**
 * Recurring billing (beyond the MugglePay contract): the merchant's plans and subscriptions
 * (the API's token routes run these), and the step that moves a subscription along its
 * periods. A step reads the subscription, its plan and its period's order, decides in the
 * domain (nextStep) and applies the decision with one conditional write on the subscription's
 * version: a second sweep, a retried message or a merchant's request at the same moment finds
 * the version moved, reads again and decides again, so no period is billed twice or skipped and
 * a paid one is never canceled. The order of a period is an ordinary order whose
 * merchant_order_id names the subscription and the period: making it twice finds the first.
 */

const DAY_MS = 86_400_000;

/** Refuses a period's lead time longer than the period itself (the order would be made before the period before it is due). */
function checkLead(plan: Pick<Plan, 'interval_unit' | 'interval_count' | 'invoice_days_before'>): void {
  const start = '2001-01-01T00:00:00.000Z';
  const shortest = Math.min(...[0, 1, 2, 3].map((k) => periodDue(plan, start, k + 1).getTime() - periodDue(plan, start, k).getTime()));
  if (plan.invoice_days_before * DAY_MS > shortest) throw new InvalidParameterError('invoice_days_before is longer than a period');
}

const checkedPrice = (amount: unknown, currency: string): string => formatDecimal(parsePrice(amount, currency));

/** A new plan of the merchant's. */
export async function createPlan(merchant: MerchantProfile, input: CreatePlanBody, now: Date): Promise<Plan> {
  const priceCurrency = input.price_currency ?? 'USD';
  checkPlanUrls(input);
  const plan: Plan = {
    plan_id: newId(),
    user_id: merchant.user_id,
    name: input.name,
    description: input.description ?? '',
    price_amount: checkedPrice(input.price_amount, priceCurrency),
    price_currency: priceCurrency,
    interval_unit: input.interval_unit,
    interval_count: input.interval_count ?? 1,
    trial_days: input.trial_days ?? 0,
    grace_days: input.grace_days ?? 7,
    invoice_days_before: input.invoice_days_before ?? 3,
    ...(input.callback_url ? { callback_url: input.callback_url } : {}),
    ...(input.success_url ? { success_url: input.success_url } : {}),
    ...(input.events_url ? { events_url: input.events_url } : {}),
    archived: false,
    sandbox: merchant.sandbox,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  checkIntervalCount(plan);
  checkLead(plan);
  await insertPlan(plan);
  return plan;
}

function checkIntervalCount(plan: Pick<Plan, 'interval_unit' | 'interval_count'>): void {
  const most = MAX_INTERVAL_COUNT[plan.interval_unit];
  if (plan.interval_count > most) throw new InvalidParameterError(`interval_count: a period is at most ${most} ${plan.interval_unit}s`);
}

/** The merchant's plan, or PlanNotFoundError (another merchant's, or a malformed id, alike). */
export async function getPlan(merchant: Pick<MerchantProfile, 'user_id'>, planId: unknown): Promise<Plan> {
  if (!isId(planId)) throw new PlanNotFoundError();
  const plan = await findPlan(planId);
  if (!plan || plan.user_id !== merchant.user_id) throw new PlanNotFoundError();
  return plan;
}

export async function listMerchantPlans(merchant: Pick<MerchantProfile, 'user_id'>, query: ListPlansQuery) {
  const page = await listPlans(merchant.user_id, query.limit ?? 20, decodeCursor(query.cursor));
  return { plans: page.items, nextCursor: encodeCursor(page.last) };
}

/** The plan's callback URLs are refused when they aim at a private network, as an order's are: before anything is stored. */
function checkPlanUrls(input: { callback_url?: string; success_url?: string; events_url?: string }): void {
  checkUrls(input);
  if (!input.events_url) return;
  try {
    checkCallbackUrl(input.events_url, { allowLoopback: callbackUrlConfig().allowLoopback });
  } catch (error) {
    // The check names callback_url; the field refused here is events_url.
    if (error instanceof InvalidParameterError) throw new InvalidParameterError(error.message.replace(/^callback_url/, 'events_url'));
    throw error;
  }
}

/**
 * Changes the merchant's plan. A new price applies to the periods whose orders are made from now
 * on. The change is written on the version it was made from: when another change came first, it
 * is made again on the new version (each request changes only the fields it sends), so two
 * changes at once both land; past {@link PLAN_CHANGE_ATTEMPTS}, 409 PLAN_CONFLICT.
 */
export async function changePlan(merchant: MerchantProfile, planId: unknown, input: UpdatePlanBody, now: Date): Promise<Plan> {
  checkPlanUrls(input);
  let plan = await getPlan(merchant, planId);
  for (let attempt = 1; attempt <= PLAN_CHANGE_ATTEMPTS; attempt += 1) {
    const next = changedPlan(plan, input, now);
    const outcome = await replacePlan(next, plan.updated_at);
    if (outcome.kind === 'written') return next;
    if (outcome.kind === 'missing') throw new PlanNotFoundError();
    plan = outcome.current;
  }
  throw new PlanConflictError();
}

function changedPlan(plan: Plan, input: UpdatePlanBody, now: Date): Plan {
  const next: Plan = {
    ...plan,
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.price_amount !== undefined ? { price_amount: checkedPrice(input.price_amount, plan.price_currency) } : {}),
    ...(input.trial_days !== undefined ? { trial_days: input.trial_days } : {}),
    ...(input.grace_days !== undefined ? { grace_days: input.grace_days } : {}),
    ...(input.invoice_days_before !== undefined ? { invoice_days_before: input.invoice_days_before } : {}),
    ...(input.callback_url !== undefined ? { callback_url: input.callback_url } : {}),
    ...(input.success_url !== undefined ? { success_url: input.success_url } : {}),
    ...(input.events_url !== undefined ? { events_url: input.events_url } : {}),
    ...(input.archived !== undefined ? { archived: input.archived } : {}),
    // Later than the version it replaces, even within one millisecond: the next change's condition tells them apart.
    updated_at: new Date(Math.max(now.getTime(), Date.parse(plan.updated_at) + 1)).toISOString(),
  };
  checkLead(next);
  return next;
}

function subscriberEmail(email: string | undefined): string | undefined {
  if (email === undefined) return undefined;
  const checked = checkMailbox(email);
  if ('problem' in checked) throw new InvalidParameterError(`customer_email ${checked.problem}`);
  return checked.address;
}

/**
 * The subscription a request with this Idempotency-Key makes: the same id on every try of the
 * request, so a retry whose first try made the subscription and then failed goes on with it
 * (the key's answer is kept only once the request is answered). Without a key, a new id.
 */
export const subscriptionIdFor = (planId: string, requestKey: string | undefined): string => (requestKey ? requestIdFor('subscription', planId, requestKey) : newId());

/**
 * A new subscription to the merchant's plan, started now: trialing when the plan has trial
 * days, else incomplete with its first period's order made at once (the answer names it).
 * `subscriptionId`: its id when the caller chose it beforehand (the plan's public link makes
 * the subscriber's page link first, shared/services/subscriber.ts). Else the id follows the
 * request's Idempotency-Key (`requestKey`), so a retry whose first try wrote the subscription
 * and then failed (its first step, an AWS call's lost answer) goes on with that one instead of
 * starting a second; without a key, a new one.
 */
export async function createSubscription(
  merchant: MerchantProfile,
  input: CreateSubscriptionBody,
  now: Date,
  chosen: { subscriptionId?: string; requestKey?: string } = {},
): Promise<{ subscription: Subscription; plan: Plan }> {
  const plan = await getPlan(merchant, input.plan_id);
  if (plan.archived) throw new PlanArchivedError();
  const subscriptionId = chosen.subscriptionId ?? subscriptionIdFor(plan.plan_id, chosen.requestKey);
  if (!chosen.subscriptionId && chosen.requestKey) {
    const earlier = await findSubscription(subscriptionId);
    if (earlier?.user_id === merchant.user_id) {
      // The key's record is gone once a failed try gave it back: a retry under it for another customer is another request.
      if (earlier.customer_email !== subscriberEmail(input.customer_email) || (earlier.customer_id || undefined) !== (input.customer_id || undefined)) throw new IdempotencyKeyReusedError();
      return { subscription: (await stepSubscription(earlier.subscription_id, now)) ?? earlier, plan };
    }
  }
  const email = subscriberEmail(input.customer_email);
  const subscription: Subscription = {
    subscription_id: subscriptionId,
    user_id: merchant.user_id,
    plan_id: plan.plan_id,
    sandbox: merchant.sandbox,
    ...(email ? { customer_email: email } : {}),
    ...(input.customer_id ? { customer_id: input.customer_id } : {}),
    status: startingStatus(plan.trial_days),
    started_at: now.toISOString(),
    anchor_at: anchorOf(now, plan.trial_days),
    period: 0,
    periods_paid: 0,
    clock_offset_ms: 0,
    next_step_at: now.toISOString(),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    version: 1,
  };
  await insertSubscription(subscription, subscriptionDeliveryFor(undefined, subscription, plan, now));
  return { subscription: (await stepSubscription(subscription.subscription_id, now)) ?? subscription, plan };
}

/** The merchant's subscription and its plan, or SubscriptionNotFoundError. */
export async function getSubscription(merchant: Pick<MerchantProfile, 'user_id'>, subscriptionId: unknown): Promise<{ subscription: Subscription; plan: Plan }> {
  if (!isId(subscriptionId)) throw new SubscriptionNotFoundError();
  const subscription = await findSubscription(subscriptionId);
  if (!subscription || subscription.user_id !== merchant.user_id) throw new SubscriptionNotFoundError();
  const plan = await findPlan(subscription.plan_id);
  if (!plan) throw new Error(`plan ${subscription.plan_id} of subscription ${subscriptionId} is missing`);
  return { subscription, plan };
}

/** A page of the merchant's subscriptions (in one status, or all), newest first, each with its plan's interval. */
export async function listMerchantSubscriptions(merchant: Pick<MerchantProfile, 'user_id'>, query: ListSubscriptionsQuery) {
  const page = await listSubscriptions(merchant.user_id, query.status, query.limit ?? 20, decodeCursor(query.cursor));
  return { subscriptions: await withPlans(page.items), nextCursor: encodeCursor(page.last) };
}

/** Each subscription with its plan (one batch of plan reads; one whose plan is missing is left out). */
export async function withPlans(subscriptions: readonly Subscription[]): Promise<{ subscription: Subscription; plan: Plan }[]> {
  const plans = new Map((await findPlans(subscriptions.map((subscription) => subscription.plan_id))).map((plan) => [plan.plan_id, plan]));
  return subscriptions.flatMap((subscription) => {
    const plan = plans.get(subscription.plan_id);
    return plan ? [{ subscription, plan }] : [];
  });
}

/**
 * Cancels the merchant's subscription: now (with its period's unpaid order), or at the end of
 * the period paid or the trial (no further order is made; one already made is canceled then,
 * unless paid). One not yet paid at all is canceled now either way. `by`: who asked, the
 * cancellation's reason (the subscriber, from their own page, or the merchant).
 */
export async function cancelSubscription(merchant: MerchantProfile, subscriptionId: unknown, input: CancelSubscriptionBody, now: Date, by: 'merchant' | 'subscriber' = 'merchant') {
  const { subscription } = await getSubscription(merchant, subscriptionId);
  if (subscription.status === 'canceled') throw new SubscriptionCanceledError();
  const atPeriodEnd = (input.at_period_end ?? false) && (subscription.periods_paid > 0 || subscription.status === 'trialing');
  if (!atPeriodEnd) return stepSubscription(subscription.subscription_id, now, by);
  await changeSubscription(subscription.subscription_id, now, (current) => {
    if (current.status === 'canceled') throw new SubscriptionCanceledError();
    return { ...current, cancel_at_period_end: true, cancel_reason: by, next_step_at: subscriptionNow(current, now).toISOString() };
  });
  return stepSubscription(subscription.subscription_id, now);
}

/**
 * The sandbox's test clock: moves the subscription's own time `days` forward and takes every
 * step that time owes at once (its orders made, past_due, canceled), as a month would. A live
 * merchant's clock never moves.
 */
export async function advanceClock(merchant: MerchantProfile, subscriptionId: unknown, days: number, now: Date) {
  if (!merchant.sandbox) throw new SandboxOnlyError();
  const { subscription } = await getSubscription(merchant, subscriptionId);
  if (subscription.status === 'canceled') throw new SubscriptionCanceledError();
  await changeSubscription(subscription.subscription_id, now, (current) => ({ ...current, clock_offset_ms: current.clock_offset_ms + Math.round(days * DAY_MS) }));
  return stepSubscription(subscription.subscription_id, now);
}

/** One change of the stored subscription, made on its version (read again and remade when another step moved it first). */
async function changeSubscription(subscriptionId: string, now: Date, change: (current: Subscription) => Subscription): Promise<void> {
  for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt += 1) {
    const current = await findSubscription(subscriptionId);
    if (!current) throw new SubscriptionNotFoundError();
    if (await writeSubscription({ ...change(current), updated_at: now.toISOString(), version: current.version + 1 })) return;
  }
  throw new Error(`subscription ${subscriptionId} kept changing under its change`);
}

const CHANGE_ATTEMPTS = 5;

/** Steps at most this many changes at once (a test clock moved far: orders made, past due, canceled); the due index brings the rest. */
const STEP_LIMIT = 12;

/** What a step needs beyond the subscription, read once per step run. */
interface StepContext {
  plan: Plan;
  merchant: MerchantProfile;
}

/**
 * Takes every step the subscription owes now, each one conditional write, and leaves its next
 * step's time in the due index. `cancelBy`: a cancellation asked now (the merchant or the
 * subscriber). Undefined when there is no such subscription.
 */
export async function stepSubscription(subscriptionId: string, now: Date, cancelBy?: 'merchant' | 'subscriber'): Promise<Subscription | undefined> {
  let context: StepContext | undefined;
  for (let steps = 0; steps < STEP_LIMIT; steps += 1) {
    const subscription = await findSubscription(subscriptionId);
    if (!subscription) return undefined;
    context ??= await stepContext(subscription);
    const order = subscription.period_order_id ? await findOrderWithInvoice(subscription.period_order_id) : undefined;
    const orderState = order ? periodOrderState(order.order.status) : undefined;
    const at = subscriptionNow(subscription, now);
    const step: SubscriptionStep =
      cancelBy && subscription.status !== 'canceled' && orderState !== 'paid'
        ? { kind: 'cancel', reason: cancelBy, ...(orderState === 'open' ? { cancelOrder: subscription.period_order_id } : {}) }
        : nextStep(subscription, context.plan, orderState, at);
    const applied = await applyStep(subscription, step, context, now, at);
    if (applied === 'again') continue;
    const next = { ...applied.next, version: subscription.version + 1 };
    const written = await writeSubscription(next, subscriptionDeliveryFor(subscription, next, context.plan, now));
    if (!written) continue;
    if (applied.settled) return applied.next;
    if (step.kind === 'cancel') cancelBy = undefined;
  }
  // Still owing steps: due again at once (the next sweep goes on).
  logger.warn('a subscription still owes steps', { subscription_id: subscriptionId });
  return findSubscription(subscriptionId);
}

async function stepContext(subscription: Subscription): Promise<StepContext> {
  const [plan, merchant] = await Promise.all([findPlan(subscription.plan_id), findMerchant(subscription.user_id)]);
  if (!plan || !merchant) throw new Error(`subscription ${subscription.subscription_id}: its plan or merchant is missing`);
  return { plan, merchant: profileOf(merchant) };
}

/** How long a step waits for a period order's payment that is on its way (PENDING) before it looks again. */
const PENDING_RECHECK_MS = 3_600_000;

/**
 * The subscription after `step`, to be written on its version (`settled`: nothing more is owed
 * now), or 'again': read it again and decide again (its order moved meanwhile).
 */
async function applyStep(subscription: Subscription, step: SubscriptionStep, { plan, merchant }: StepContext, now: Date, at: Date): Promise<{ next: Subscription; settled?: true } | 'again'> {
  const changed = { ...subscription, updated_at: now.toISOString() };
  switch (step.kind) {
    case 'wait': {
      const { next_step_at: _next, ...rest } = subscription;
      return { next: step.until ? { ...rest, next_step_at: step.until } : rest, settled: true };
    }
    case 'make-order': {
      const orderId = await makePeriodOrder(subscription, plan, merchant, step.attempt, now);
      const { reminders: _reminders, ...rest } = changed;
      return { next: { ...rest, period_order_id: orderId, period_attempt: step.attempt } };
    }
    case 'paid': {
      const { period_order_id: _order, period_attempt: _attempt, reminders: _reminders, ...rest } = changed;
      return { next: { ...rest, status: 'active', period: subscription.period + 1, periods_paid: subscription.periods_paid + 1 } };
    }
    case 'past-due':
      return { next: { ...changed, status: 'past_due' } };
    case 'remind': {
      await recordReminder(subscription.subscription_id, subscription.period, subscription.period_attempt ?? 1, step.reminder, at.toISOString());
      return { next: { ...changed, reminders: [...(subscription.reminders ?? []), step.reminder] } };
    }
    case 'cancel': {
      const order = step.cancelOrder ? await cancelPeriodOrder(merchant, step.cancelOrder, now) : 'canceled';
      if (order === 'paid') return 'again';
      if (order === 'pending') {
        // A payment for the period is on its way: the merchant is told to wait; the grace period's end looks again later.
        if (step.reason !== 'grace_ended') throw new SubscriptionPaymentPendingError();
        return { next: { ...subscription, next_step_at: new Date(at.getTime() + PENDING_RECHECK_MS).toISOString() }, settled: true };
      }
      const { next_step_at: _next, ...rest } = changed;
      return { next: { ...rest, status: 'canceled', canceled_at: now.toISOString(), cancel_reason: step.reason } };
    }
  }
}

/** Cancels the period's unpaid order: 'canceled' (or lapsed already), 'paid' (decided again as paid), or 'pending' (a payment is on its way). */
async function cancelPeriodOrder(merchant: MerchantProfile, orderId: string, now: Date): Promise<'canceled' | 'paid' | 'pending'> {
  try {
    await cancelOrder(merchant, orderId, now);
    return 'canceled';
  } catch (error) {
    if (!(error instanceof CancelFailedError)) throw error;
    const found = await findOrderWithInvoice(orderId);
    if (!found || periodOrderState(found.order.status) === 'lapsed') return 'canceled';
    return found.order.status === 'PENDING' ? 'pending' : 'paid';
  }
}

/**
 * Makes the period's order (attempt `attempt`), or finds the one an earlier try of this step
 * made: its merchant_order_id is the same. It waits, never checked out, until the end of the
 * period's grace period; its price is the plan's now.
 */
async function makePeriodOrder(subscription: Subscription, plan: Plan, merchant: MerchantProfile, attempt: number, now: Date): Promise<string> {
  const reference = periodReference(subscription.subscription_id, subscription.period, attempt);
  const due = periodDue(plan, subscription.anchor_at, subscription.period);
  const graceEnd = realTimeOf(subscription, new Date(due.getTime() + plan.grace_days * DAY_MS).toISOString());
  const ttlSeconds = Math.max(apiConfig().orderTtlSeconds, Math.ceil((graceEnd.getTime() - now.getTime()) / 1000));
  try {
    const { order } = await createOrder(
      merchant,
      {
        merchant_order_id: reference,
        price_amount: plan.price_amount,
        price_currency: plan.price_currency,
        title: plan.name,
        description: plan.description,
        ...(plan.callback_url ? { callback_url: plan.callback_url } : {}),
        ...(plan.success_url ? { success_url: plan.success_url } : {}),
        ...(subscription.customer_email ? { email: subscription.customer_email } : {}),
      },
      now,
      undefined,
      undefined,
      { ttlSeconds, subscriptionId: subscription.subscription_id },
    );
    await recordPeriod(periodOf(subscription, attempt, order, due, now));
    return order.order_id;
  } catch (error) {
    const held = error instanceof MerchantOrderIdExistsError ? (error.existing?.order as { order_id?: string } | undefined)?.order_id : undefined;
    if (!held) throw error;
    const found = await findOrderWithInvoice(held);
    if (!found || found.order.subscription_id !== subscription.subscription_id) throw new Error(`the reference ${reference} is held by an order that is not the subscription's`);
    await recordPeriod(periodOf(subscription, attempt, found.order, due, new Date(found.order.created_at)));
    return held;
  }
}

function periodOf(subscription: Subscription, attempt: number, order: Pick<Order, 'order_id' | 'price_amount' | 'price_currency'>, due: Date, madeAt: Date): SubscriptionPeriod {
  return {
    subscription_id: subscription.subscription_id,
    user_id: subscription.user_id,
    period: subscription.period,
    attempt,
    order_id: order.order_id,
    due_at: due.toISOString(),
    price_amount: order.price_amount,
    price_currency: order.price_currency,
    created_at: madeAt.toISOString(),
  };
}
