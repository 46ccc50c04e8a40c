import { apiHandler } from '#shared/http/api-handler';
import { assertSameOrder, orderWithInvoice } from '#shared/http/order-action';
import { refundOrderBody as body } from '#shared/http/validators.generated';
import { apiActor } from '#shared/services/refunds/audit';
import { askRefund } from '#shared/services/refunds/ask';
import { refundView } from '#shared/services/refunds/views';

/**
 * POST /v1/orders/:order_id/refund: a refund of the paid currency (MugglePay's body `[]`, `{}`
 * or `{order_id}`: all that is left; `basis`, `amount`, `reason` optional), PAID or UNRESOLVED
 * -> REFUND_PENDING; the answer is MugglePay's with the new refund beside it. A live gateway
 * order is refunded in full at its gateway, as before.
 */
export const handler = apiHandler({ body, exact: { amount: 'decimal' } }, async ({ body, path, merchant, now, clientIp }) => {
  assertSameOrder(body.order_id, path.order_id);
  const { order_id: _id, ...choices } = body;
  const asked = await askRefund(merchant, path.order_id, { basis: choices.basis, amount: choices.amount as string | undefined, reason: choices.reason }, apiActor(clientIp), now);
  return orderWithInvoice(asked.found, asked.refund ? { refund: await refundView(asked.refund) } : {});
});
