import { invoiceView, orderView } from '#shared/domain/order';
import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { getOrder } from '#shared/services/orders';

/** GET /v1/orders/:order_id: the order and its current invoice (`{}` before checkout). */
export const handler = apiHandler({}, async ({ path, merchant }) => {
  const { order, invoice } = await getOrder(merchant, path.order_id);
  return json(200, { status: 200, order: orderView(order), invoice: invoice ? invoiceView(invoice) : {} });
});
