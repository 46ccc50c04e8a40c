import { readApiHandler } from '#shared/http/read-handler';
import { json } from '#shared/http/responses';
import { listOrderRefunds } from '#shared/services/refunds/views';

/** GET /v1/orders/:order_id/refunds: the order's refunds, oldest first (another merchant's order is missing). */
export const handler = readApiHandler({}, async ({ path, merchant }) => json(200, { status: 200, refunds: await listOrderRefunds(merchant, path.order_id) }));
