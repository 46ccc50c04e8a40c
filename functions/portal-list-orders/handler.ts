import { json, portalHandler } from '#shared/http/portal-handler';
import { portalOrdersQuery as query } from '#shared/http/validators.generated';
import { listPortalOrders } from '#shared/services/portal/orders';
import type { PortalOrders } from '#shared/schemas/portal-responses';

/** GET /v1/portal/orders: the merchant's orders newest first, filtered, by cursor; or what `q` finds. */
export const handler = portalHandler({ query }, async ({ query, context }) => json(200, { status: 200, ...(await listPortalOrders(context, query)) } satisfies PortalOrders));
