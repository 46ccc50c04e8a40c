import { getOrderResponseSchema } from '#shared/schemas/order-responses';
import { SANDBOX_COMPLETE_REFUND_ERRORS, SANDBOX_PAY_ERRORS } from '#tools/openapi/errors';
import { BTC_INVOICE, PAID_ORDER, moved } from '#tools/openapi/examples';
import { ORDER_ID_PARAMETER, type OperationMeta } from '#tools/openapi/operation';

/** The sandbox merchant's simulations: a payment, a refund sent. */

export const SANDBOX_OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  'sandbox-pay': {
    operationId: 'sandboxPay',
    tag: 'Sandbox',
    summary: 'Simulate a payment (sandbox)',
    description: [
      "Sandbox merchants only: reports a payment of the order's current invoice exactly as a chain watcher would,",
      'and the order moves as a real payment would move it (PAID, PENDING while confirmations are missing, or',
      'UNRESOLVED when the amount or timing is off). Reporting the same `txid` again is idempotent; more',
      'confirmations for it can complete the payment.',
    ].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestExamples: {
      full: { summary: 'The full amount, enough confirmations', value: {} },
      partial: { summary: 'An underpayment with one confirmation', value: { amount: 0.0001, confirmations: 1, txid: 'sandbox-tx-1' } },
    },
    success: {
      description: 'The order and its invoice after the payment.',
      schema: getOrderResponseSchema,
      examples: { paid: { summary: 'Paid in full', value: moved(PAID_ORDER, BTC_INVOICE, 'PAID', '2019-04-24T17:10:00.000Z') } },
    },
    errors: SANDBOX_PAY_ERRORS,
  },
  'sandbox-complete-refund': {
    operationId: 'sandboxCompleteRefund',
    tag: 'Sandbox',
    summary: 'Simulate a sent refund (sandbox)',
    description: ['Sandbox merchants only: reports that the refund of a REFUND_PENDING order was sent (-> REFUNDED).', 'Reporting the same `txid` again is idempotent.'].join('\n'),
    pathParameters: { order_id: ORDER_ID_PARAMETER },
    requestExamples: {
      txid: { summary: 'With the refund transaction', value: { txid: 'sandbox-refund-1' } },
      empty: { summary: 'A generated txid', value: {} },
    },
    success: {
      description: 'The order, now REFUNDED, and its invoice.',
      schema: getOrderResponseSchema,
      examples: { refunded: { summary: 'Refund sent', value: moved(PAID_ORDER, BTC_INVOICE, 'REFUNDED', '2019-04-25T10:00:00.000Z') } },
    },
    errors: SANDBOX_COMPLETE_REFUND_ERRORS,
  },
};
