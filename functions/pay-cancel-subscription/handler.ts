import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { subscriberBody as body } from '#shared/http/validators.generated';
import { cancelFromSubscriberPage } from '#shared/services/subscriber';

/** POST /v1/pay/subscriptions/cancellation (public): the subscriber cancels at the period's end; answers the page as it is now. */
export const handler = apiHandler({ body, auth: 'public' }, async ({ body, now }) => json(200, await cancelFromSubscriberPage(body.secret, now)));
