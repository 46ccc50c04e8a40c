import { publicHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { linkOrderBody as body } from '#shared/http/validators.generated';
import { createLinkOrder } from '#shared/services/link-orders';

/** POST /v1/pay/links/:link_id/orders (public): the buyer picked a currency; an ordinary order, checked out, for its payment page. */
export const handler = publicHandler({ body, exact: { amount: 'decimal' } }, async ({ body, path, now, clientIp, requestKey }) => {
  const { order, paymentUrl } = await createLinkOrder(path.link_id, body, now, clientIp, requestKey);
  return json(201, { status: 201, order_id: order.order_id, payment_url: paymentUrl });
});
