import { portalOrderActionHandler } from '#shared/http/portal-order-action';

/** POST /v1/portal/orders/{order_id}/callbacks/resend: the API's own action on the merchant's order; answers the order's page. */
export const handler = portalOrderActionHandler('resend_callback');
