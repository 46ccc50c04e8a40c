import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { updateLinkBody as body } from '#shared/http/validators.generated';
import { changeLink, merchantLinkView } from '#shared/services/payment-links';

/** POST /v1/links/:link_id: changes a payment link; `{"enabled": false}` disables it, `true` enables it again. */
export const handler = apiHandler({ body }, async ({ body, path, merchant, now }) => json(200, { status: 200, link: merchantLinkView(await changeLink(merchant, path.link_id, body, now), now) }));
