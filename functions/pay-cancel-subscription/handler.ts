import { publicHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { subscriberBody as body } from '#shared/http/validators.generated';
import { cancelFromSubscriberPage } from '#shared/services/subscriber';

/** POST /v1/pay/subscriptions/cancellation (public): the subscriber cancels at the period's end; answers the page as it is now. */
export const handler = publicHandler({ body }, async ({ body, now }) => json(200, await cancelFromSubscriberPage(body.secret, now)));
