import type { OrderDelivery } from '#shared/domain/delivery';

/** A delivery as the merchant's callback log shows it (no payload secrets, no lease internals). */
export function deliveryView(delivery: OrderDelivery) {
  return {
    event_id: delivery.event_id,
    status: delivery.status,
    version: delivery.version,
    callback_url: delivery.callback_url,
    state: delivery.state,
    attempt_count: delivery.attempt_count,
    attempts: delivery.attempts,
    next_attempt_at: delivery.state === 'PENDING' ? delivery.next_attempt_at : null,
    created_at: delivery.created_at,
    delivered_at: delivery.delivered_at ?? null,
  };
}
