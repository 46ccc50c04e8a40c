import { apiHandler } from '#shared/http/api-handler';
import { orderWithInvoice } from '#shared/http/order-action';
import { getOrder } from '#shared/services/order-queries';

/** GET /v1/orders/:order_id: the order and its current invoice (`{}` before checkout). */
export const handler = apiHandler({}, async ({ path, merchant }) => orderWithInvoice(await getOrder(merchant, path.order_id)));
