import type { EmailEvent } from '#shared/domain/email';
import { type Plan, periodDue, periodOrderState, type Subscription } from '#shared/domain/subscription';
import { type EmailMessage, type MessageContext, type SubscriberNoticeContent, subscriberLinkMessage, subscriberMessage } from '#shared/email/messages';
import { findOrderWithInvoice } from '#shared/store/orders';
import { ensureSubscriberLink, findPeriod, type SubscriberLinkState, subscriberUrl, subscriptionsOfAddress } from '#shared/store/subscriber-links';
import { findPlan, findSubscription } from '#shared/store/subscriptions';

/**
 * The subscriber's emails (the sender sends each once, within the mail limits): what each
 * event says, read from the table as it is when the email goes out, so a stale one is not sent
 * (an invoice or a reminder whose order was paid meanwhile, a past-due notice after the payment
 * came, a link replaced since). Every one carries the subscriber's page link, made here with the
 * server's key (the stream's record and the queue never hold it), and goes only to the address
 * the subscription was started with. A subscriber has no language setting: English, then
 * Chinese, as the buyer's receipts.
 */

/** One subscriber email owed: who it counts as, the message, and the plan link whose window it counts in (those a stranger's request makes). */
export interface SubscriberEmail {
  recipient: string;
  message: EmailMessage;
  planLinkId?: string;
}

const DAY_MS = 86_400_000;

/** The subscription's page link (its first made now when it has none yet: one the merchant's API started). */
async function pageLink(subscription: Subscription & { customer_email: string }, now: Date): Promise<{ state: SubscriberLinkState; url: string }> {
  const state = await ensureSubscriberLink(subscription, 'api', now);
  return { state, url: await subscriberUrl(subscription.subscription_id, state.version) };
}

/** The subscription an event names, with its plan, when it is the merchant's and has an address. */
async function subscriptionOf(subscriptionId: string, merchantId: number): Promise<{ subscription: Subscription & { customer_email: string }; plan: Plan } | undefined> {
  const subscription = await findSubscription(subscriptionId);
  if (!subscription?.customer_email || subscription.user_id !== merchantId) return undefined;
  const plan = await findPlan(subscription.plan_id);
  return plan ? { subscription: subscription as Subscription & { customer_email: string }, plan } : undefined;
}

/** The open order of a period, as an email asks it to be paid; undefined when it is no longer open (paid, or lapsed). */
async function openOrder(subscriptionId: string, period: number, attempt: number, context: MessageContext): Promise<SubscriberNoticeContent['order']> {
  const item = await findPeriod(subscriptionId, period, attempt);
  const found = item && (await findOrderWithInvoice(item.order_id));
  if (!item || !found || periodOrderState(found.order.status) !== 'open') return undefined;
  return { amount: item.price_amount, currency: item.price_currency, period, due_at: item.due_at, pay_url: `${context.paymentPageUrl}?id=${encodeURIComponent(item.order_id)}` };
}

/** What a subscriber event's email says now, or undefined when it no longer holds. */
async function noticeContent(
  event: Extract<EmailEvent, { kind: 'subscriber' }>,
  subscription: Subscription & { customer_email: string },
  plan: Plan,
  link: { state: SubscriberLinkState; url: string },
  context: MessageContext,
): Promise<SubscriberNoticeContent | undefined> {
  const base = {
    to: subscription.customer_email,
    notice: event.notice,
    plan,
    pageUrl: link.url,
  };
  const ended = subscription.status === 'canceled';
  switch (event.notice) {
    case 'trial_started':
      return subscription.status === 'trialing' ? { ...base, trialEndsAt: subscription.anchor_at } : undefined;
    case 'invoice':
    case 'before_due':
    case 'on_due': {
      const order = ended ? undefined : await openOrder(subscription.subscription_id, event.period ?? 0, event.attempt ?? 1, context);
      return order && { ...base, order };
    }
    case 'past_due': {
      if (subscription.status !== 'past_due' || subscription.period !== event.period) return undefined;
      const order = await openOrder(subscription.subscription_id, subscription.period, subscription.period_attempt ?? 1, context);
      const graceEndsAt = new Date(periodDue(plan, subscription.anchor_at, subscription.period).getTime() + plan.grace_days * DAY_MS).toISOString();
      return order && { ...base, order, graceEndsAt };
    }
    case 'canceled':
      return ended ? { ...base, ...(subscription.cancel_reason ? { cancelReason: subscription.cancel_reason } : {}) } : undefined;
    case 'new_link':
      // A newer link replaced this one before its email went: that one's email carries it.
      return link.state.version === event.link_version ? base : undefined;
  }
}

/** Whether an event's email is one a stranger's request makes at once, counted in the plan link's hourly window as a payment link's receipts are. */
function madeByRequest(event: Extract<EmailEvent, { kind: 'subscriber' }>): boolean {
  return event.notice === 'trial_started' || event.notice === 'new_link' || (event.notice === 'invoice' && event.period === 0 && event.attempt === 1);
}

/** The subscriber emails an event owes, as of now. */
export async function subscriberEmails(event: EmailEvent, context: MessageContext, now: Date): Promise<SubscriberEmail[]> {
  if (event.kind === 'subscriber') {
    const found = await subscriptionOf(event.subscription_id, event.merchant_id);
    if (!found) return [];
    const link = await pageLink(found.subscription, now);
    const content = await noticeContent(event, found.subscription, found.plan, link, context);
    if (!content) return [];
    const planLinkId = link.state.via === 'plan_link' && madeByRequest(event) ? found.plan.plan_id : undefined;
    return [{ recipient: 'subscriber', message: subscriberMessage(content, context), ...(planLinkId ? { planLinkId } : {}) }];
  }
  if (event.kind === 'subscriber_links') {
    const emails: SubscriberEmail[] = [];
    for (const subscriptionId of await subscriptionsOfAddress(event.plan_id, event.email)) {
      const found = await subscriptionOf(subscriptionId, event.merchant_id);
      // Only the address the subscription was started with (the index is by its hash; this is the check).
      if (!found || found.subscription.plan_id !== event.plan_id || found.subscription.customer_email.toLowerCase() !== event.email.toLowerCase()) continue;
      const { url } = await pageLink(found.subscription, now);
      emails.push({ recipient: `subscriber:${subscriptionId}`, message: subscriberLinkMessage(found.subscription.customer_email, found.plan, url, context), planLinkId: event.plan_id });
    }
    return emails;
  }
  return [];
}

/** A period order's receipt links to its subscriber's page too: that page's link, when the subscription is the order's merchant's and has an address. */
export async function receiptPageUrl(subscriptionId: string, merchantId: number, now: Date): Promise<string | undefined> {
  const found = await subscriptionOf(subscriptionId, merchantId);
  return found ? (await pageLink(found.subscription, now)).url : undefined;
}
