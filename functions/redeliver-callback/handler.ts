import { deliveryView } from '#shared/callbacks/views';
import { apiHandler } from '#shared/http/api-handler';
import { assertSameOrder } from '#shared/http/order-action';
import { json } from '#shared/http/responses';
import { orderActionBody as body } from '#shared/http/validators.generated';
import { redeliverLatest } from '#shared/callbacks/delivery-job';

/** POST /v1/orders/:order_id/callbacks/redeliver: queues the latest event again (same event id). */
export const handler = apiHandler({ body }, async ({ body, path, merchant, now }) => {
  assertSameOrder(body.order_id, path.order_id);
  return json(200, { status: 200, callback: deliveryView(await redeliverLatest(merchant, path.order_id, now)) });
});
