import { CallbackInProgressError, NoCallbackError } from '#shared/domain/errors';
import { listCallbacksResponseSchema, redeliverCallbackResponseSchema } from '#shared/schemas/callback-responses';
import { AUTHENTICATION_FAILED, INVALID_JSON, ORDER_ID_MISMATCH, PAYLOAD_TOO_LARGE, SERVICE_UNAVAILABLE, UNKNOWN_ORDER, errorCase } from '#tools/openapi/errors';
import { DELIVERED_CALLBACK, ORDER_ACTION_REQUEST_EXAMPLES } from '#tools/openapi/examples';
import { ORDER_ID_PARAMETER, type OperationMeta } from '#tools/openapi/operation';

/** The merchant's callback log and its redelivery. */

export const CALLBACK_OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  'list-callbacks': {
    operationId: 'listCallbacks',
    tag: 'Callbacks',
    summary: 'List the callbacks of an order',
    description: ['Every status-change callback of the order, newest first, with its delivery attempts (time, HTTP status,', 'latency, error) and state. Beyond the contract.'].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    success: {
      description: "The order's callbacks.",
      schema: listCallbacksResponseSchema,
      examples: { delivered: { summary: 'A PAID callback delivered on the second attempt', value: { status: 200, callbacks: [DELIVERED_CALLBACK] } } },
    },
    errors: [AUTHENTICATION_FAILED, UNKNOWN_ORDER, SERVICE_UNAVAILABLE],
  },
  'redeliver-callback': {
    operationId: 'redeliverCallback',
    tag: 'Callbacks',
    summary: 'Send the latest callback again',
    description: [
      "Queues the order's latest status-change callback again, with the same event id (webhook-id) and body,",
      'from a first attempt and with the full retry schedule. The body may repeat `order_id`. Beyond the contract.',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestExamples: ORDER_ACTION_REQUEST_EXAMPLES,
    success: {
      description: 'The callback, PENDING again.',
      schema: redeliverCallbackResponseSchema,
      examples: {
        queued: {
          summary: 'Queued again',
          value: { status: 200, callback: { ...DELIVERED_CALLBACK, state: 'PENDING', attempt_count: 0, next_attempt_at: '2019-04-25T09:00:00.000Z', delivered_at: '2019-04-24T16:41:03.120Z' } },
        },
      },
    },
    errors: [
      errorCase('NO_CALLBACK', 'The order has no callback yet (no status change, or no callback_url).', new NoCallbackError()),
      errorCase('CALLBACK_IN_PROGRESS', 'An attempt of this callback is running right now; nothing was changed, ask again in a minute.', new CallbackInProgressError()),
      ORDER_ID_MISMATCH,
      INVALID_JSON,
      AUTHENTICATION_FAILED,
      UNKNOWN_ORDER,
      PAYLOAD_TOO_LARGE,
      SERVICE_UNAVAILABLE,
    ],
  },
};
