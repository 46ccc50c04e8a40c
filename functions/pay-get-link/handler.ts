import { publicReadHandler } from '#shared/http/public-handler';
import { json } from '#shared/http/responses';
import { getLinkPage } from '#shared/services/payment-links';

/** GET /v1/pay/links/:link_id (public): the link as its page shows it. Opening a link makes nothing. */
export const handler = publicReadHandler({}, async ({ path, now }) => json(200, await getLinkPage(path.link_id, now)));
