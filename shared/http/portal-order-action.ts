import type { LambdaHandler } from '#shared/http/api-handler';
import { json, portalHandler } from '#shared/http/portal-handler';
import type { PortalOrderPage } from '#shared/schemas/portal-responses';
import { actOnOrder, type PortalAction } from '#shared/services/portal/actions';

/**
 * An order button's route (developers and owners): the API's own use case on the merchant's
 * order, then the order's page as it is now. Apart from portal-handler.ts so the read routes'
 * bundles carry none of the payment code the actions need.
 */
export function portalOrderActionHandler(action: PortalAction): LambdaHandler {
  return portalHandler({}, async ({ path, context, now }) => json(200, { status: 200, ...(await actOnOrder(context, action, path.order_id, now)) } satisfies PortalOrderPage));
}
