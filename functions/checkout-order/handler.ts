import { apiHandler } from '#shared/http/api-handler';
import { assertSameOrder, orderWithInvoice } from '#shared/http/order-action';
import { checkoutOrderBody as body } from '#shared/http/validators.generated';
import { checkoutOrder } from '#shared/services/orders';

/** POST /v1/orders/:order_id/checkout: prices the order in `pay_currency` and gives its address. */
export const handler = apiHandler({ body }, async ({ body, path, merchant, now, clientIp }) => {
  assertSameOrder(body.order_id, path.order_id);
  return orderWithInvoice(await checkoutOrder(merchant, path.order_id, body.pay_currency, now, clientIp));
});
