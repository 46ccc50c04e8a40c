import { createdOrderView } from '#shared/schemas/order-views';
import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { createOrderBody as body } from '#shared/http/validators.generated';
import { createOrder } from '#shared/services/orders';

/** POST /v1/orders: HTTP 200 with body status 201 (the contract's quirk), the order and its page. */
export const handler = apiHandler({ body, exact: { price_amount: 'decimal', merchant_order_id: 'integer' } }, async ({ body, merchant, now, clientIp, requestKey }) => {
  const { order, paymentUrl } = await createOrder(merchant, body, now, clientIp, requestKey);
  return json(200, { status: 201, order: createdOrderView(order), payment_url: paymentUrl });
});
