import { deliveryView } from '#shared/callbacks/views';
import { readApiHandler } from '#shared/http/read-handler';
import { json } from '#shared/http/responses';
import { listCallbacks } from '#shared/callbacks/callback-log';

/** GET /v1/orders/:order_id/callbacks: every status-change callback of the order and its attempts. */
export const handler = readApiHandler({}, async ({ path, merchant }) => json(200, { status: 200, callbacks: (await listCallbacks(merchant, path.order_id)).map(deliveryView) }));
