import { readApiHandler } from '#shared/http/read-handler';
import { json } from '#shared/http/responses';
import { getLink, merchantLinkView } from '#shared/services/payment-links';

/** GET /v1/links/:link_id: one of the merchant's payment links (another merchant's is answered as missing). */
export const handler = readApiHandler({}, async ({ path, merchant, now }) => json(200, { status: 200, link: merchantLinkView(await getLink(merchant, path.link_id), now) }));
