import { orderActionHandler } from '#shared/http/order-action';
import { cancelOrder } from '#shared/services/order-actions';

/** POST /v1/orders/:order_id/cancel: NEW -> CANCELED. */
export const handler = orderActionHandler(cancelOrder);
