import { publicHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { payPageView } from '#shared/schemas/pay';
import { simulatePayPagePayment } from '#shared/services/pay-page-actions';

/** POST /v1/pay/:order_id/sandbox-pay (public, sandbox orders only): pays the current invoice in full. */
export const handler = publicHandler({}, async ({ path, now }) => json(200, payPageView(await simulatePayPagePayment(path.order_id, now))));
