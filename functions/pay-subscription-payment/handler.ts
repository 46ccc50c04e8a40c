import { publicHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { subscriberBody as body } from '#shared/http/validators.generated';
import { subscriberPayment } from '#shared/services/subscriber';

/** POST /v1/pay/subscriptions/payment (public): "Pay now": the current period's order's payment page (the next attempt made when the last lapsed). */
export const handler = publicHandler({ body }, async ({ body, now }) => json(200, await subscriberPayment(body.secret, now)));
