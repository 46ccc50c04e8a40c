import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { refundLinkBody as body } from '#shared/http/validators.generated';
import { apiActor } from '#shared/services/refunds/audit';
import { refundView } from '#shared/services/refunds/views';
import { newRefundLink } from '#shared/services/refunds/buyer-link';

/** POST /v1/orders/:order_id/refund-link: a new one-time link for a refund (the old one, and any address set through it, stop counting). */
export const handler = apiHandler({ body }, async ({ body, path, merchant, now, clientIp }) =>
  json(200, { status: 200, refund: await refundView(await newRefundLink(merchant, path.order_id, body.refund_id, apiActor(clientIp), now)) }),
);
