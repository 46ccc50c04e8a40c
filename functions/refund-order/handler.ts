import { orderActionHandler } from '#shared/http/order-action';
import { requestRefund } from '#shared/services/gateway-payments';

/**
 * POST /v1/orders/:order_id/refund: PAID -> REFUND_PENDING; a live gateway order is refunded
 * at its gateway too (REFUNDED once it confirms). Other currencies wait for the merchant.
 */
export const handler = orderActionHandler(requestRefund);
