/** A merchant's callback log: an order's status-change callbacks and their delivery attempts. */
import { status, strictObject, timestamp } from '#shared/schemas/order-responses';

const attemptSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['at', 'latency_ms'],
  properties: {
    at: timestamp,
    http_status: { type: 'integer', minimum: 100, maximum: 599, description: 'What the merchant answered, when it answered.' },
    latency_ms: { type: 'integer', minimum: 0 },
    error: { type: 'string', description: 'Why the attempt failed without an answer (timeout, connection, DNS, refused address).' },
    response: { type: 'string', maxLength: 200, description: "The start of the merchant's answer (its first 200 characters), when it sent a body." },
  },
} as const;

/** One status-change callback of an order and its attempts (`deliveryView`). */
export const callbackDeliverySchema = strictObject('CallbackDelivery', 'One status-change callback and its delivery attempts.', {
  event_id: { type: 'string', description: 'The webhook-id header of every attempt of this callback.' },
  status: { ...status, description: 'The status the order changed to.' },
  version: { type: 'integer', minimum: 1, description: 'The order version the change produced.' },
  callback_url: { type: 'string', description: "Where it is delivered (the order's callback_url at the time)." },
  state: { type: 'string', enum: ['PENDING', 'DELIVERED', 'FAILED', 'STOPPED'], description: 'PENDING until a 2xx (DELIVERED), a 410 (STOPPED), or the last attempt (FAILED, dead-lettered).' },
  attempt_count: { type: 'integer', minimum: 0 },
  attempts: { type: 'array', items: attemptSchema, description: 'The latest attempts, oldest first (at most 25).' },
  next_attempt_at: { oneOf: [timestamp, { type: 'null' }], description: 'When the next attempt is due (PENDING only).' },
  created_at: timestamp,
  delivered_at: { oneOf: [timestamp, { type: 'null' }] },
});

export const listCallbacksResponseSchema = strictObject('ListCallbacksResponse', "An order's callbacks, newest first.", {
  status: { type: 'integer', const: 200 },
  callbacks: { type: 'array', items: { $ref: 'CallbackDelivery' } },
});

export const redeliverCallbackResponseSchema = strictObject('RedeliverCallbackResponse', 'The callback queued again.', {
  status: { type: 'integer', const: 200 },
  callback: { $ref: 'CallbackDelivery' },
});
