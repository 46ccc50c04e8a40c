import { readApiHandler } from '#shared/http/read-handler';
import { orderWithInvoice } from '#shared/http/order-action';
import { getOrder } from '#shared/services/order-queries';
import { orderRefunds } from '#shared/services/refunds/views';

/** GET /v1/orders/:order_id: the order and its current invoice (`{}` before checkout), and its refunds once it has any. */
export const handler = readApiHandler({}, async ({ path, merchant }) => {
  const found = await getOrder(merchant, path.order_id);
  return orderWithInvoice(found, found.order.refunds ? { refunds: await orderRefunds(found) } : {});
});
