import { publicHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { payPageView } from '#shared/schemas/pay';
import { cancelPayPage } from '#shared/services/pay-page-actions';

/** POST /v1/pay/:order_id/cancel (public): the buyer cancels a NEW order. */
export const handler = publicHandler({}, async ({ path, now }) => json(200, payPageView(await cancelPayPage(path.order_id, now))));
