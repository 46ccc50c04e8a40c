import { apiHandler } from '#shared/http/api-handler';
import { orderWithInvoice } from '#shared/http/order-action';
import { sandboxPayBody as body } from '#shared/http/validators.generated';
import { simulatePayment } from '#shared/services/sandbox';

/** POST /v1/sandbox/orders/:id/pay: a sandbox merchant's simulated payment of the current invoice. */
export const handler = apiHandler({ body, exact: { amount: 'decimal' } }, async ({ body, path, merchant, now }) => orderWithInvoice(await simulatePayment(merchant, path.order_id, body, now)));
