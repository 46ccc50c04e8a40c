import { portalOrderActionHandler } from '#shared/http/portal-order-action';

/** POST /v1/portal/orders/{order_id}/resolve: the API's own action on the merchant's order; answers the order's page. */
export const handler = portalOrderActionHandler('resolve');
