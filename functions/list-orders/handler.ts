import { orderView } from '#shared/schemas/order-views';
import { readApiHandler } from '#shared/http/read-handler';
import { json } from '#shared/http/responses';
import { queryValidator } from '#shared/http/validation';
import { getOrdersQuery as listOrdersQuery } from '#shared/http/validators.generated';
import { listOrdersQuerySchema } from '#shared/schemas/orders';
import { listOrders } from '#shared/services/order-queries';

const query = queryValidator(listOrdersQuery, listOrdersQuerySchema);

/** GET /v1/orders/ (and /v1/orders): the merchant's orders, newest first, paged. */
export const handler = readApiHandler({ query }, async ({ query, merchant }) => {
  const orders = await listOrders(merchant, query);
  return json(200, { status: 200, orders: orders.map(orderView) });
});
