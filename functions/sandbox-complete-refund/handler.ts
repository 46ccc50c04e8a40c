import { randomUUID } from 'node:crypto';
import { apiHandler } from '#shared/http/api-handler';
import { orderWithInvoice } from '#shared/http/order-action';
import { compileBody } from '#shared/http/validation';
import { sandboxRefundBodySchema } from '#shared/schemas/orders';
import { simulateRefundSent } from '#shared/services/sandbox';

const body = compileBody<{ txid?: string }>(sandboxRefundBodySchema);

/** POST /v1/sandbox/orders/:id/complete-refund: the sandbox's refund is sent (REFUND_PENDING -> REFUNDED). */
export const handler = apiHandler({ body }, async ({ body, path, merchant, now }) =>
  orderWithInvoice(await simulateRefundSent(merchant, path.order_id, body.txid ?? `sandbox-refund-${randomUUID()}`, now)),
);
