import { json, portalHandler } from '#shared/http/portal-handler';
import { portalRefundQuote } from '#shared/services/portal/refunds';

/** GET /v1/portal/orders/{order_id}/refund-quote: what is left to refund, the overpaid part, the price at today's rate. */
export const handler = portalHandler({}, async ({ path, context, now }) => json(200, { status: 200, quote: await portalRefundQuote(context, path.order_id, now) }));
