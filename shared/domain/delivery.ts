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

/**
 * The outbox item of one status change: durable from the moment the change is seen until the
 * callback is delivered, stopped (410) or dead-lettered, whatever happens to queue messages.
 */
export interface Delivery {
  event_id: string;
  order_id: string;
  user_id: number;
  /** The order version whose status change this reports. */
  version: number;
  status: OrderStatus;
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

/** The delivery log keeps the latest attempts; older ones are summarized by attempt_count. */
export const MAX_LOGGED_ATTEMPTS = 25;
