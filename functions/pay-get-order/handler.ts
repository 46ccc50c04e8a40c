import { publicReadHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { payPageView } from '#shared/schemas/pay';
import { getPayPage } from '#shared/services/pay-page';

/** GET /v1/pay/:order_id (public): the order as the payment page shows it, polled by the page. */
export const handler = publicReadHandler({}, async ({ path }) => json(200, payPageView(await getPayPage(path.order_id))));
