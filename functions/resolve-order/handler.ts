import { orderActionHandler } from '#shared/http/order-action';
import { resolveOrder } from '#shared/services/order-actions';

/** POST /v1/orders/:order_id/resolve: UNRESOLVED -> RESOLVED. */
export const handler = orderActionHandler(resolveOrder);
