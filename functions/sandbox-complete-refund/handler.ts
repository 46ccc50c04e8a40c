import { randomUUID } from 'node:crypto';
import { apiHandler } from '#shared/http/api-handler';
import { orderWithInvoice } from '#shared/http/order-action';
import { sandboxCompleteRefundBody as body } from '#shared/http/validators.generated';
import { simulateRefundSent } from '#shared/services/sandbox';

/** POST /v1/sandbox/orders/:id/complete-refund: the sandbox's refund is sent (REFUND_PENDING -> REFUNDED). */
export const handler = apiHandler({ body }, async ({ body, path, merchant, now }) =>
  orderWithInvoice(await simulateRefundSent(merchant, path.order_id, body.txid ?? `sandbox-refund-${randomUUID()}`, now)),
);
