import { CancelFailedError, ResolveFailedError } from '#shared/domain/errors';
import { errorCase } from '#tools/openapi/errors';
import { BTC_INVOICE, BTC_ORDER, NEW_ORDER, moved } from '#tools/openapi/examples';
import { type OperationMeta, orderAction } from '#tools/openapi/operation';

/** The merchant's actions on one order: cancel, resolve (refund: operations/refunds.ts). */

export const ORDER_ACTION_OPERATIONS: Readonly<Record<string, OperationMeta>> = {
  'cancel-order': orderAction({
    operationId: 'cancelOrder',
    summary: 'Cancel Order',
    description: [
      'Cancels a NEW order (NEW -> CANCELED); it can no longer be paid. Beyond the contract (MugglePay has it).',
      'The body may repeat `order_id` (MugglePay sends it); the path is what counts.',
    ],
    success: 'The canceled order and its invoice ({} if it was never checked out).',
    examples: { canceled: { summary: 'Canceled before checkout', value: moved(NEW_ORDER, undefined, 'CANCELED', '2019-04-24T17:00:00.000Z') } },
    refused: errorCase('ORDER_CANCELED_FAIILED', "The order is not NEW (MugglePay's code, misspelling included).", new CancelFailedError()),
  }),
  'resolve-order': orderAction({
    operationId: 'resolveOrder',
    summary: 'Resolve Order',
    description: ['Marks an UNRESOLVED order (underpaid, overpaid or paid late; see `unresolved_reason`) as RESOLVED once the', 'merchant has dealt with it. The body may repeat `order_id`.'],
    success: 'The order, now RESOLVED, and its invoice.',
    examples: {
      resolved: {
        summary: 'Resolved after an underpayment',
        value: moved({ ...BTC_ORDER, unresolved_reason: 'UNDERPAID' }, BTC_INVOICE, 'RESOLVED', '2019-04-25T09:30:00.000Z'),
      },
    },
    refused: errorCase('ORDER_RESOLVE_FAILED', 'The order is not UNRESOLVED.', new ResolveFailedError()),
  }),
};
