import { InvalidParameterError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Found } from '#shared/domain/order';
import { invoiceView, orderView } from '#shared/schemas/order-views';
import { apiHandler, type LambdaHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { orderActionBody as body } from '#shared/http/validators.generated';

/** A body `order_id`, when given, must name the order of the path. */
export function assertSameOrder(bodyId: string | undefined, pathId: string | undefined): void {
  if (bodyId !== undefined && bodyId !== pathId) {
    throw new InvalidParameterError('order_id does not match the order in the path');
  }
}

/**
 * The answer of every order endpoint beyond Create: `{status: 200, order, invoice}`, and beyond
 * MugglePay's fields what the endpoint adds (Get Order the order's `refunds`, Refund Order its `refund`).
 */
export function orderWithInvoice(found: Found, extra: Record<string, unknown> = {}) {
  return json(200, {
    status: 200,
    order: orderView(found.order),
    invoice: found.invoice ? invoiceView(found.invoice) : {},
    ...extra,
  });
}

/** POST /v1/orders/:order_id/<action> with an optional `{order_id}` body. */
export function orderActionHandler(action: (merchant: MerchantProfile, orderId: string | undefined, now: Date) => Promise<Found>): LambdaHandler {
  return apiHandler({ body }, async ({ body, path, merchant, now }) => {
    assertSameOrder(body.order_id, path.order_id);
    return orderWithInvoice(await action(merchant, path.order_id, now));
  });
}
