import type { OrderStatus } from '#shared/domain/statuses';

/** Where a callback delivery stands. */
export type DeliveryState = 'PENDING' | 'DELIVERED' | 'FAILED' | 'STOPPED';

/** One try to deliver a callback, as the merchant's delivery log shows it. */
export interface DeliveryAttempt {
  at: string;
  /** HTTP status the merchant answered, if it answered. */
  http_status?: number;
  latency_ms: number;
  error?: string;
  /** The start of the merchant's answer (at most {@link LOGGED_RESPONSE_CHARS} characters), for the portal's log. */
  response?: string;
}

/** How much of a merchant's answer each logged attempt keeps. */
export const LOGGED_RESPONSE_CHARS = 200;

/** What a subscription's own callback reports (its period orders keep their usual callbacks). */
export const SUBSCRIPTION_EVENTS = ['subscription.created', 'subscription.renewed', 'subscription.past_due', 'subscription.canceled'] as const;
export type SubscriptionEvent = (typeof SUBSCRIPTION_EVENTS)[number];

/**
 * What a delivery reports on, and so the partition it lives in: an order's status change (the
 * order's callback log) or a subscription's event (beside the subscription).
 */
export type DeliverySubject = { order_id: string; subscription_id?: undefined } | { subscription_id: string; order_id?: undefined };

/**
 * The outbox item of one status change: durable from the moment the change is seen until the
 * callback is delivered, stopped (410) or dead-lettered, whatever happens to queue messages.
 */
export type Delivery = DeliveryCommon & ({ order_id: string; subscription_id?: undefined; status: OrderStatus } | { subscription_id: string; order_id?: undefined; status: SubscriptionEvent });

/** A delivery of an order's status change (the MugglePay callback). */
export type OrderDelivery = Extract<Delivery, { order_id: string }>;

interface DeliveryCommon {
  event_id: string;
  user_id: number;
  /** The order's (or subscription's) version whose change this reports. */
  version: number;
  callback_url: string;
  /** The exact JSON body sent, frozen when the change happened. */
  payload: string;
  state: DeliveryState;
  attempt_count: number;
  attempts: DeliveryAttempt[];
  next_attempt_at: string;
  created_at: string;
  delivered_at?: string;
  /** Set while one worker is delivering (others leave the delivery alone until then). */
  lease_until?: string;
  /** When the sweeper last re-queued it (a lost queue message). */
  requeued_at?: string;
  /** FAILED: when its job was sent to the dead-letter queue (so a failed send is retried). */
  dead_lettered_at?: string;
}

/** The event id (Standard Webhooks `webhook-id`): one per order version, stable across retries. */
export function eventIdFor(orderId: string, version: number): string {
  return `evt_${orderId.replaceAll('-', '')}_${version}`;
}

/** A subscription event's id: one per subscription version (`evt_sub_…`, never an order's). */
export function subscriptionEventIdFor(subscriptionId: string, version: number): string {
  return `evt_sub_${subscriptionId.replaceAll('-', '')}_${version}`;
}

/** The delivery's subject, as its key and its queue job name it. */
export const subjectOf = (delivery: Delivery): DeliverySubject => (delivery.subscription_id !== undefined ? { subscription_id: delivery.subscription_id } : { order_id: delivery.order_id });

/** The subject's event id for `version`. */
export const eventIdOf = (subject: DeliverySubject, version: number): string =>
  subject.subscription_id !== undefined ? subscriptionEventIdFor(subject.subscription_id, version) : eventIdFor(subject.order_id, version);

/** The delivery log keeps the latest attempts; older ones are summarized by attempt_count. */
export const MAX_LOGGED_ATTEMPTS = 25;
