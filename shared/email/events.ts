import type { DynamoDBRecord } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { filterPredicate, type FilterPattern } from '#shared/aws/lambda-event-filter';
import { emailConfig } from '#shared/core/config';
import type { AuditAction } from '#shared/domain/audit';
import type { Delivery, OrderDelivery } from '#shared/domain/delivery';
import { AUDIT_EMAIL_TOPICS, type EmailEvent, type OrderSummary } from '#shared/domain/email';
import { REMINDERS } from '#shared/domain/subscription';
import type { Order } from '#shared/domain/order';
import { enqueueEmailJob } from '#shared/email/queue';
import { deliveryFromItem } from '#shared/store/deliveries';
import { ENTITY } from '#shared/store/keys';
import { orderFromItem } from '#shared/store/orders';
import { refundFromItem } from '#shared/store/refunds';

/**
 * Emails come from what the table already holds durably, read from its stream by the same
 * consumer as callbacks (functions/order-events; one reader of the stream more would be one
 * too many per shard): an order becoming PAID or UNRESOLVED, an audit entry of a sign-in with a
 * new passkey or a team change, a callback delivery failing for an hour or dead-lettered, a
 * refund's new link (asked, or issued again). Each
 * becomes one job on the email queue, and nothing else happens here: no table read, so a
 * payment's or a callback's records are never held back by email's work.
 */

/** An order's status write (the handler keeps only changes to PAID or UNRESOLVED). */
export const ORDER_EMAIL_PATTERN = {
  eventName: ['MODIFY'],
  dynamodb: { NewImage: { type: { S: [ENTITY.order] }, status: { S: ['PAID', 'UNRESOLVED'] } } },
} as const satisfies FilterPattern;

/** An audit entry merchants are emailed about. */
export const AUDIT_EMAIL_PATTERN = {
  eventName: ['INSERT'],
  dynamodb: { NewImage: { type: { S: [ENTITY.audit] }, action: { S: Object.keys(AUDIT_EMAIL_TOPICS) } } },
} as const satisfies FilterPattern;

/** A callback delivery's attempt recorded or its dead-lettering noted (the handler decides which count). */
export const DELIVERY_EMAIL_PATTERN = {
  eventName: ['MODIFY'],
  dynamodb: { NewImage: { type: { S: [ENTITY.delivery] } } },
} as const satisfies FilterPattern;

/** A refund whose link the buyer may use: asked (INSERT) or its link issued again (the handler keeps new link versions). */
export const REFUND_LINK_EMAIL_PATTERN = {
  eventName: ['INSERT', 'MODIFY'],
  dynamodb: { NewImage: { type: { S: [ENTITY.refund] }, status: { S: ['AWAITING_ADDRESS'] } } },
} as const satisfies FilterPattern;

/**
 * What a subscriber is emailed about, in one pattern (an event source mapping takes few): a
 * subscription started or changed (the handler keeps a trial's start and the changes to past_due
 * and canceled), a period's order made (its item's insert) or a reminder of it recorded, a new
 * page link, a page link asked for by email.
 */
export const SUBSCRIBER_EMAIL_PATTERN = {
  eventName: ['INSERT', 'MODIFY'],
  dynamodb: { NewImage: { type: { S: [ENTITY.subscription, ENTITY.subscriptionPeriod, ENTITY.subscriberLinkState, ENTITY.subscriberLinkRequest] } } },
} as const satisfies FilterPattern;

/** The records emails are made from (CDK's event source filters and the local poller's). */
export const EMAIL_EVENT_PATTERNS: readonly FilterPattern[] = [ORDER_EMAIL_PATTERN, AUDIT_EMAIL_PATTERN, DELIVERY_EMAIL_PATTERN, REFUND_LINK_EMAIL_PATTERN, SUBSCRIBER_EMAIL_PATTERN];

const predicates = EMAIL_EVENT_PATTERNS.map(filterPredicate);
/** Whether a stream record may owe emails (see {@link EMAIL_EVENT_PATTERNS}). */
export const isEmailRecord = (record: DynamoDBRecord): boolean => predicates.some((matches) => matches(record));

type Image = Record<string, unknown>;
const imageOf = (image: Record<string, unknown> | undefined): Image | undefined => (image ? unmarshall(image as Record<string, AttributeValue>) : undefined);

export function orderSummary(order: Order): OrderSummary {
  return {
    order_id: order.order_id,
    user_id: order.user_id,
    merchant_order_id: order.merchant_order_id,
    title: order.title,
    price_amount: order.price_amount,
    price_currency: order.price_currency,
    pay_amount: order.pay_amount,
    pay_currency: order.pay_currency,
    status: order.status,
    ...(order.email ? { email: order.email } : {}),
    ...(order.unresolved_reason ? { unresolved_reason: order.unresolved_reason } : {}),
    at: order.updated_at,
    ...(order.subscription_id ? { subscription_id: order.subscription_id } : {}),
  };
}

/**
 * The subscriber's email a subscription's record stands for, if any: the trial's start, a
 * period's order made (the invoice) or reminded, the subscription past due (once a period) or
 * ended, a new page link, a page link asked for by email. Which address it goes to, and whether
 * it is still true when sent, the sender reads (shared/email/subscriber-emails.ts).
 */
function subscriberEvent(record: DynamoDBRecord, after: Image, before: Image | undefined): EmailEvent | undefined {
  const common = { kind: 'subscriber' as const, merchant_id: Number(after.user_id), subscription_id: String(after.subscription_id) };
  if (after.type === ENTITY.subscription) {
    if (!after.customer_email) return undefined;
    const id = common.subscription_id;
    if (record.eventName === 'INSERT') return after.status === 'trialing' ? { ...common, event_id: `subscriber.trial_started.${id}`, notice: 'trial_started' } : undefined;
    if (before?.status === after.status) return undefined;
    if (after.status === 'past_due') return { ...common, event_id: `subscriber.past_due.${id}.${Number(after.period)}`, notice: 'past_due', period: Number(after.period) };
    if (after.status === 'canceled') return { ...common, event_id: `subscriber.canceled.${id}`, notice: 'canceled' };
    return undefined;
  }
  if (after.type === ENTITY.subscriptionPeriod) {
    const at = { period: Number(after.period), attempt: Number(after.attempt) };
    const which = `${common.subscription_id}.${at.period}.${at.attempt}`;
    if (record.eventName === 'INSERT') return { ...common, event_id: `subscriber.invoice.${which}`, notice: 'invoice', ...at };
    const reminded = (after.reminded ?? {}) as Record<string, unknown>;
    const earlier = (before?.reminded ?? {}) as Record<string, unknown>;
    const reminder = REMINDERS.find((name) => reminded[name] !== undefined && earlier[name] === undefined);
    return reminder ? { ...common, event_id: `subscriber.${reminder}.${which}`, notice: reminder, ...at } : undefined;
  }
  if (after.type === ENTITY.subscriberLinkState) {
    // The first link goes out with the subscriber's first email; a new one is mailed on its own.
    const version = Number(after.version);
    if (record.eventName !== 'MODIFY' || Number(before?.version) === version) return undefined;
    return { ...common, event_id: `subscriber.new_link.${common.subscription_id}.${version}`, notice: 'new_link', link_version: version };
  }
  if (after.type === ENTITY.subscriberLinkRequest && record.eventName === 'INSERT') {
    return { kind: 'subscriber_links', event_id: `subscriber_links.${String(after.request_id)}`, merchant_id: Number(after.user_id), plan_id: String(after.plan_id), email: String(after.email) };
  }
  return undefined;
}

/** The last attempt's outcome as the merchant's email names it. */
const lastError = (delivery: Delivery): string => {
  const last = delivery.attempts.at(-1);
  return last?.http_status !== undefined ? `HTTP ${last.http_status}` : (last?.error?.split(':')[0] ?? 'no answer');
};

/** Seconds from a delivery's creation to its last attempt (undefined before the first). */
const failingFor = (delivery: Delivery | undefined): number | undefined => {
  const last = delivery?.attempts?.at(-1);
  return delivery && last ? (Date.parse(last.at) - Date.parse(delivery.created_at)) / 1000 : undefined;
};

function deliveryEvent(delivery: Delivery, before: Delivery | undefined, alertSeconds: number): EmailEvent | undefined {
  // A subscription's events are not in these emails yet: their failures reach the operator's dead-letter alarm.
  if (delivery.order_id === undefined) return undefined;
  const common = {
    merchant_id: delivery.user_id,
    order_id: delivery.order_id,
    merchant_order_id: merchantOrderIdOf(delivery),
    since: delivery.created_at,
    last_attempt_at: delivery.attempts.at(-1)?.at ?? delivery.created_at,
    attempts: delivery.attempt_count,
    last_error: lastError(delivery),
  };
  if (delivery.dead_lettered_at && !before?.dead_lettered_at) {
    return { kind: 'callback_dead_lettered', event_id: `callback_dead_lettered.${delivery.event_id}`, ...common };
  }
  // The attempt that takes an undelivered callback past the hour: once per order.
  const now = failingFor(delivery);
  const then = failingFor(before) ?? 0;
  const justFailed = delivery.attempt_count > (before?.attempt_count ?? 0) && (delivery.state === 'PENDING' || delivery.state === 'FAILED');
  if (justFailed && now !== undefined && now >= alertSeconds && then < alertSeconds) {
    return { kind: 'callbacks_failing', event_id: `callbacks_failing.${delivery.order_id}`, ...common };
  }
  return undefined;
}

/** The merchant's reference of the order a delivery reports (in its frozen body). */
function merchantOrderIdOf(delivery: OrderDelivery): string {
  try {
    const body = JSON.parse(delivery.payload) as { merchant_order_id?: unknown };
    return typeof body.merchant_order_id === 'string' ? body.merchant_order_id : delivery.order_id;
  } catch {
    return delivery.order_id;
  }
}

/** The email event a stream record stands for, if any (pure over the record). */
export function emailEventOf(record: DynamoDBRecord, alertSeconds: number): EmailEvent | undefined {
  const after = imageOf(record.dynamodb?.NewImage);
  const before = imageOf(record.dynamodb?.OldImage);
  if (!after) return undefined;
  if (after.type === ENTITY.order && record.eventName === 'MODIFY') {
    // As stored: the order id is in the key, defaults are left out.
    const order = orderFromItem(after);
    if (before?.status === order.status || (order.status !== 'PAID' && order.status !== 'UNRESOLVED')) return undefined;
    const kind = order.status === 'PAID' ? 'order_paid' : 'order_unresolved';
    return { kind, event_id: `${kind}.${order.order_id}.${order.version}`, order: orderSummary(order) };
  }
  if (after.type === ENTITY.audit && record.eventName === 'INSERT') {
    const action = after.action as AuditAction;
    if (!AUDIT_EMAIL_TOPICS[action]) return undefined;
    const details = (after.details ?? {}) as Record<string, unknown>;
    const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
    return {
      kind: 'account_change',
      event_id: `account_change.${String(after.PK)}.${String(after.SK)}`,
      merchant_id: Number(after.user_id),
      action,
      at: String(after.at),
      actor: actorName(String(after.who)),
      ...(text(details.name) ? { member: text(details.name) } : {}),
      ...(text(details.role) ? { role: text(details.role) } : {}),
      ...(action === 'refund.address_set' && text(details.order_id) && text(details.address)
        ? { refund: { order_id: text(details.order_id)!, amount: String(details.amount ?? ''), currency: String(details.currency ?? ''), address: text(details.address)! } }
        : {}),
    };
  }
  if (after.type === ENTITY.refund && after.status === 'AWAITING_ADDRESS') {
    // The record holds the link's hash only: the sender makes the link itself (shared/core/server-key.ts).
    const refund = refundFromItem(after);
    if (before?.link_version === refund.link_version) return undefined;
    return {
      kind: 'refund_link',
      event_id: `refund_link.${refund.refund_id}.${refund.link_version}`,
      merchant_id: refund.user_id,
      order_id: refund.order_id,
      refund_id: refund.refund_id,
      link_version: refund.link_version,
      amount: refund.amount,
      currency: refund.currency,
      ...(refund.reason ? { reason: refund.reason } : {}),
    };
  }
  if (after.type === ENTITY.delivery && record.eventName === 'MODIFY') {
    return deliveryEvent(deliveryFromItem(after), before ? deliveryFromItem(before) : undefined, alertSeconds);
  }
  return subscriberEvent(record, after, before);
}

/**
 * Who made an audited change, as an email may name them: a portal user's name (the entry's
 * `who` is `<user id> (<name>)`), or "the operator" for the CLI; never the user's id.
 */
function actorName(who: string): string {
  if (who.startsWith('operator:')) return 'operator';
  if (who === 'buyer') return 'buyer';
  const match = /^[^ ]+ \((.*)\)$/.exec(who);
  return match ? match[1]! : who;
}

/**
 * One stream record: the email event it stands for, if any, on the email queue (as it is: the
 * sender reads preferences and sends). Email not configured (no EMAIL_QUEUE_URL): nothing.
 * A replayed record queues the event again; its emails are still sent once (per event id).
 */
export async function queueEmailEvent(record: DynamoDBRecord): Promise<void> {
  const config = emailConfig();
  if (!config.queueUrl || !isEmailRecord(record)) return;
  const event = emailEventOf(record, config.callbackAlertSeconds);
  if (event) await enqueueEmailJob({ event, attempt: 0 });
}
