import { checkMailbox } from '#shared/domain/email-address';
import { IdempotencyKeyReusedError, InvalidParameterError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { countingPayments, type Found } from '#shared/domain/order';
import { type Plan, periodDue, periodOrderState, type Subscription, type SubscriptionPeriod, subscriptionNow } from '#shared/domain/subscription';
import { PlanArchivedError, PlanNotFoundError, SubscriptionCanceledError, SubscriptionNotFoundError } from '#shared/domain/subscription-errors';
import { payPlanView, planFields, type SubscriberPageView, type SubscriberPeriodView } from '#shared/schemas/subscriber';
import { paymentUrlFor } from '#shared/services/orders';
import { buyerPageMerchant } from '#shared/services/pay-page';
import { cancelSubscription, createSubscription, stepSubscription, subscriptionIdFor } from '#shared/services/subscriptions';
import { findOrderWithInvoice } from '#shared/store/orders';
import { ensureSubscriberLink, findSubscriberLink, findSubscriberLinkState, insertSubscriberLinkRequest, renewSubscriberLink, subscriberLinkHash } from '#shared/store/subscriber-links';
import { findPlan, findSubscription, listPeriods } from '#shared/store/subscriptions';

/**
 * The subscriber's side of recurring billing, with no account: the plan's public link page (a
 * plan as a subscriber sees it, and a subscription started from it with the subscriber's
 * email) and the subscriber's own page, opened by the secret of the link every subscriber email
 * carries (shared/store/subscriber-links.ts keeps only its hash): the subscription, the next due
 * date and amount, "Pay now", the past periods with their receipts, and a cancellation at the
 * period's end. Each calls the merchant's use cases (shared/services/subscriptions.ts) as the
 * plan's merchant: what a subscriber may do is a part of what the merchant may.
 */

/** A plan behind a public page, with its merchant; a missing plan, or a disabled merchant's, is not found alike. */
async function publicPlan(planId: unknown): Promise<{ plan: Plan; merchant: MerchantProfile }> {
  if (!isId(planId)) throw new PlanNotFoundError();
  const plan = await findPlan(planId);
  const merchant = plan && (await buyerPageMerchant(plan.user_id));
  if (!plan || !merchant || merchant.disabled) throw new PlanNotFoundError();
  return { plan, merchant };
}

/** What the plan's page shows: nothing is made by opening it. */
export async function planPage(planId: unknown) {
  const { plan, merchant } = await publicPlan(planId);
  return payPlanView(plan, merchant);
}

function checkedEmail(email: string): string {
  const checked = checkMailbox(email);
  if ('problem' in checked) throw new InvalidParameterError(`email ${checked.problem}`);
  return checked.address;
}

/**
 * A subscription started from the plan's public link with the subscriber's email, as the
 * merchant's Create Subscription makes one: its page link is made first (counted as the public
 * link's in the mail limits, shared/email/limits.ts), then the subscription, whose first email
 * (the invoice, or the trial started) carries the link. The answer never holds the link:
 * whoever typed the address gets it only by reading that mailbox.
 */
export async function subscribeFromPlan(planId: unknown, input: { email: string }, now: Date, requestKey?: string) {
  const { plan, merchant } = await publicPlan(planId);
  if (plan.archived) throw new PlanArchivedError();
  const email = checkedEmail(input.email);
  const subscriptionId = subscriptionIdFor(plan.plan_id, requestKey);
  const earlier = requestKey ? await findSubscription(subscriptionId) : undefined;
  let subscription: Subscription;
  if (earlier) {
    // The key's record is gone once a failed try gave it back: a retry under it with another address is another request.
    if (earlier.customer_email !== email) throw new IdempotencyKeyReusedError();
    subscription = (await stepSubscription(earlier.subscription_id, now)) ?? earlier;
  } else {
    await ensureSubscriberLink({ subscription_id: subscriptionId, user_id: merchant.user_id, plan_id: plan.plan_id, customer_email: email }, 'plan_link', now);
    ({ subscription } = await createSubscription(merchant, { plan_id: plan.plan_id, customer_email: email }, now, { subscriptionId }));
  }
  const found = subscription.period_order_id ? await findOrderWithInvoice(subscription.period_order_id) : undefined;
  return {
    status: 201 as const,
    started: found ? ('payment' as const) : ('trial' as const),
    payment_url: found ? paymentUrlFor(found.order, found.invoice) : null,
    trial_ends_at: found ? null : subscription.anchor_at,
  };
}

/**
 * Asks for the page links of the subscriptions to the plan started with `email`: one stored
 * request whatever the address (shared/store/subscriber-links.ts), answered the same either way,
 * so nobody learns from it whether an address subscribes. The email sender mails each link to
 * the address its subscription was started with, within the mail limits.
 */
export async function requestSubscriberLinks(planId: unknown, input: { email: string }, now: Date) {
  const { plan } = await publicPlan(planId);
  await insertSubscriberLinkRequest({ user_id: plan.user_id, plan_id: plan.plan_id, email: checkedEmail(input.email), created_at: now.toISOString() }, now);
  return { status: 200 as const };
}

/** What a page link's secret opens: the subscription, its plan and merchant, and the link's version. Anything else is not found, alike. */
async function openedBy(secret: string): Promise<{ subscription: Subscription; plan: Plan; merchant: MerchantProfile; version: number }> {
  const link = await findSubscriberLink(subscriberLinkHash(secret));
  const subscription = link && (await findSubscription(link.subscription_id));
  const [plan, merchant] = subscription ? await Promise.all([findPlan(subscription.plan_id), buyerPageMerchant(subscription.user_id)]) : [];
  if (!link || !subscription || !plan || !merchant || merchant.disabled) throw new SubscriptionNotFoundError();
  return { subscription, plan, merchant, version: link.version };
}

/** The periods the page lists, newest first. */
const PAGE_PERIODS = 24;

/** When an order was paid: its last change to PAID (an order without a history: its last change). */
function paidAt(order: Found['order']): string | null {
  if (periodOrderState(order.status) !== 'paid') return null;
  return order.history?.findLast((change) => change.to === 'PAID')?.at ?? order.updated_at;
}

function periodView(period: SubscriptionPeriod, found: Found | undefined): SubscriberPeriodView {
  const order = found?.order;
  const paid = order ? paidAt(order) : null;
  const txids = [...new Set(countingPayments(found?.invoice?.payments).map((payment) => payment.txid))];
  return {
    period: period.period + 1,
    attempt: period.attempt,
    order_id: period.order_id,
    due_at: period.due_at,
    amount: period.price_amount,
    currency: period.price_currency,
    status: order?.status ?? 'EXPIRED',
    paid_at: paid,
    pay_amount: paid && order ? order.pay_amount : null,
    pay_currency: paid && order ? order.pay_currency : null,
    // A sandbox payment's "transaction" is made up: none is shown as if it were on a chain.
    txids: paid && order && !order.sandbox ? txids : [],
    receipt_url: order ? paymentUrlFor(order, found?.invoice) : '',
  };
}

/** The subscriber's page of a subscription, as of `now`. */
async function pageOf(subscription: Subscription, plan: Plan, merchant: MerchantProfile, now: Date): Promise<SubscriberPageView> {
  const periods = await listPeriods(subscription.subscription_id, PAGE_PERIODS);
  const orders = new Map(
    (await Promise.all(periods.map(async (period) => [period.order_id, await findOrderWithInvoice(period.order_id)] as const))).filter(
      (entry): entry is readonly [string, Found] => entry[1] !== undefined,
    ),
  );
  const ended = subscription.status === 'canceled';
  const due = periodDue(plan, subscription.anchor_at, subscription.period).toISOString();
  const current = subscription.period_order_id ? periods.find((period) => period.order_id === subscription.period_order_id) : undefined;
  const currentOrder = current && orders.get(current.order_id);
  const ending = !ended && subscription.cancel_at_period_end === true;
  return {
    status: 200,
    subscription: {
      status: subscription.status,
      plan: planFields(plan),
      merchant_name: merchant.name,
      sandbox: subscription.sandbox,
      started_at: subscription.started_at,
      trial_ends_at: subscription.status === 'trialing' ? subscription.anchor_at : null,
      period: subscription.period + 1,
      periods_paid: subscription.periods_paid,
      next_due_at: ended || ending ? null : due,
      next_amount: ended || ending ? null : (current?.price_amount ?? plan.price_amount),
      next_currency: ended || ending ? null : (current?.price_currency ?? plan.price_currency),
      // An order of the period is open, or lapsed unpaid ("Pay now" makes the next one); none once
      // canceled at the period's end (an order already made is canceled with it at the due date).
      payable: !ended && !ending && currentOrder !== undefined && periodOrderState(currentOrder.order.status) !== 'paid',
      cancel_at_period_end: subscription.cancel_at_period_end ?? false,
      ends_at: ending ? due : null,
      canceled_at: subscription.canceled_at ?? null,
      cancel_reason: subscription.cancel_reason ?? null,
      clock: subscriptionNow(subscription, now).toISOString(),
    },
    periods: periods.map((period) => periodView(period, orders.get(period.order_id))),
  };
}

/** What the subscriber's page link opens. */
export async function openSubscriberPage(secret: string, now: Date): Promise<SubscriberPageView> {
  const { subscription, plan, merchant } = await openedBy(secret);
  return pageOf(subscription, plan, merchant, now);
}

/**
 * "Pay now": the steps the subscription owes are taken first (a lapsed order's next attempt is
 * made then), and the current period's order's payment page is answered; null when nothing is
 * owed now (paid, the next order not made yet, or canceled at the period's end).
 */
export async function subscriberPayment(secret: string, now: Date) {
  const opened = await openedBy(secret);
  if (opened.subscription.status === 'canceled') throw new SubscriptionCanceledError();
  const subscription = (await stepSubscription(opened.subscription.subscription_id, now)) ?? opened.subscription;
  const owes = subscription.status !== 'canceled' && !subscription.cancel_at_period_end && subscription.period_order_id;
  const found = owes ? await findOrderWithInvoice(subscription.period_order_id!) : undefined;
  if (!found || periodOrderState(found.order.status) !== 'open') return { status: 200 as const, order_id: null, payment_url: null };
  return { status: 200 as const, order_id: found.order.order_id, payment_url: paymentUrlFor(found.order, found.invoice) };
}

/**
 * The subscriber cancels: at the end of the period paid or the trial (nothing more is billed;
 * the page goes on showing the past periods). A subscription never paid has no period to wait
 * for and ends now, with its unpaid order. The reason recorded is the subscriber's.
 */
export async function cancelFromSubscriberPage(secret: string, now: Date): Promise<SubscriberPageView> {
  const { subscription, merchant } = await openedBy(secret);
  await cancelSubscription(merchant, subscription.subscription_id, { at_period_end: true }, now, 'subscriber');
  const after = await openedBy(secret);
  return pageOf(after.subscription, after.plan, after.merchant, now);
}

/**
 * A new page link in place of this one (the subscriber fears it was forwarded): this one stops
 * working at once and the new one is mailed to the subscription's address only (the state's
 * change on the table's stream is its email's event), never answered.
 */
export async function renewSubscriberPageLink(secret: string, now: Date) {
  const { subscription, version } = await openedBy(secret);
  const state = await findSubscriberLinkState(subscription.subscription_id);
  if (!state || state.version !== version || !(await renewSubscriberLink(state, now))) throw new SubscriptionNotFoundError();
  return { status: 200 as const };
}
