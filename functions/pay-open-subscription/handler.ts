import { publicReadHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { subscriberBody as body } from '#shared/http/validators.generated';
import { openSubscriberPage } from '#shared/services/subscriber';

/** POST /v1/pay/subscriptions/open (public): what the subscriber's page link shows (its secret in the body, never in a URL a log keeps). */
export const handler = publicReadHandler({ body }, async ({ body, now }) => json(200, await openSubscriberPage(body.secret, now)));
