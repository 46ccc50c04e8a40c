import { json, portalHandler } from '#shared/http/portal-handler';
import { refundLinkBody as body } from '#shared/http/validators.generated';
import { portalRenewRefundLink } from '#shared/services/portal/refunds';

/** POST /v1/portal/orders/{order_id}/refund-link: a new one-time link for the buyer; answers the order's page. */
export const handler = portalHandler({ body }, async ({ body, path, context, clientIp, now }) =>
  json(200, { status: 200, ...(await portalRenewRefundLink(context, path.order_id, body.refund_id, clientIp, now)) }),
);
