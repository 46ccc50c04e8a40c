import { json, portalHandler } from '#shared/http/portal-handler';
import { getPortalOrder } from '#shared/services/portal/orders';
import type { PortalOrderPage } from '#shared/schemas/portal-responses';

/** GET /v1/portal/orders/:order_id: the order, its invoices and payments, its history and callbacks. */
export const handler = portalHandler({}, async ({ path, context }) => json(200, { status: 200, ...(await getPortalOrder(context, path.order_id)) } satisfies PortalOrderPage));
