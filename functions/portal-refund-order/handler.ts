import { json, portalHandler } from '#shared/http/portal-handler';
import { refundOrderBody as body } from '#shared/http/validators.generated';
import { portalAskRefund } from '#shared/services/portal/refunds';

/** POST /v1/portal/orders/{order_id}/refund: the API's Refund Order (with its amount choices) on the merchant's order; answers the order's page and the refund. */
export const handler = portalHandler({ body }, async ({ body, path, context, clientIp, now }) =>
  json(200, { status: 200, ...(await portalAskRefund(context, path.order_id, { basis: body.basis, amount: body.amount as string | undefined, reason: body.reason }, clientIp, now)) }),
);
