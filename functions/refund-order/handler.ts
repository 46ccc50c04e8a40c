import { orderActionHandler } from '#shared/http/order-action';
import { refundOrder } from '#shared/services/lifecycle';

/** POST /v1/orders/:order_id/refund: PAID -> REFUND_PENDING (REFUNDED once the refund is sent). */
export const handler = orderActionHandler(refundOrder);
