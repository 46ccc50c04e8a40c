import { publicHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { payCheckoutBody as body } from '#shared/http/validators.generated';
import { payPageView } from '#shared/schemas/pay';
import { checkoutPayPage } from '#shared/services/pay-page-checkout';

/** POST /v1/pay/:order_id/checkout (public): the buyer picks or switches the pay currency. */
export const handler = publicHandler({ body }, async ({ body, path, now, clientIp }) => json(200, payPageView(await checkoutPayPage(path.order_id, body.pay_currency, now, clientIp))));
