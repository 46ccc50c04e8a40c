import { publicHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { subscriberLinkRequestBody as body } from '#shared/http/validators.generated';
import { requestSubscriberLinks } from '#shared/services/subscriber';

/** POST /v1/pay/plans/:plan_id/subscriber-link (public): "email me my link"; answered alike whether the address subscribes or not. */
export const handler = publicHandler({ body }, async ({ body, path, now }) => json(200, await requestSubscriberLinks(path.plan_id, body, now)));
