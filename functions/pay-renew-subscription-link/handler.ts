import { publicHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { subscriberBody as body } from '#shared/http/validators.generated';
import { renewSubscriberPageLink } from '#shared/services/subscriber';

/** POST /v1/pay/subscriptions/link (public): a new page link, mailed to the subscriber; this one stops working. */
export const handler = publicHandler({ body }, async ({ body, now }) => json(200, await renewSubscriberPageLink(body.secret, now)));
