import { type Delivery, type SubscriptionEvent, subscriptionEventIdFor } from '#shared/domain/delivery';
import type { Plan, Subscription } from '#shared/domain/subscription';
import { subscriptionView } from '#shared/schemas/subscriptions';

/**
 * A subscription's own callbacks (beyond the MugglePay contract): created, renewed (a period
 * paid), past_due and canceled, to the plan's `events_url`, signed and delivered as order
 * callbacks are (the same outbox item, queue, retries and dead-letter queue). Each period's
 * order keeps its usual callbacks to the plan's `callback_url`, so a MugglePay client there sees
 * nothing new; the events go elsewhere because their body is no order's.
 */

/** The event a subscription's write reports, if any (pure over the two versions). */
export function subscriptionEventOf(before: Subscription | undefined, after: Subscription): SubscriptionEvent | undefined {
  if (!before) return 'subscription.created';
  if (after.periods_paid > before.periods_paid) return 'subscription.renewed';
  if (after.status === 'past_due' && before.status !== 'past_due') return 'subscription.past_due';
  if (after.status === 'canceled' && before.status !== 'canceled') return 'subscription.canceled';
  return undefined;
}

/**
 * The delivery a subscription's write owes (written in the same transaction as the write), or
 * undefined: no event, or a plan without events_url. The body: the event's `type` and `event_id`,
 * when it happened, the subscription as Get Subscription shows it after the change, and for
 * renewed the period paid and its order.
 */
export function subscriptionDeliveryFor(before: Subscription | undefined, after: Subscription, plan: Plan, now: Date): Delivery | undefined {
  const type = subscriptionEventOf(before, after);
  if (!type || !plan.events_url) return undefined;
  const eventId = subscriptionEventIdFor(after.subscription_id, after.version);
  const paid = type === 'subscription.renewed' && before ? { period: before.period + 1, order_id: before.period_order_id ?? null } : {};
  const body = { type, event_id: eventId, created_at: now.toISOString(), ...paid, subscription: subscriptionView(after, plan, now) };
  return {
    event_id: eventId,
    subscription_id: after.subscription_id,
    user_id: after.user_id,
    version: after.version,
    status: type,
    callback_url: plan.events_url,
    payload: JSON.stringify(body),
    state: 'PENDING',
    attempt_count: 0,
    attempts: [],
    next_attempt_at: now.toISOString(),
    created_at: now.toISOString(),
  };
}
