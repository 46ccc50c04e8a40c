import { readApiHandler } from '#shared/http/read-handler';
import { json } from '#shared/http/responses';
import { queryValidator } from '#shared/http/validation';
import { listLinksQuery } from '#shared/http/validators.generated';
import { listLinksQuerySchema } from '#shared/schemas/payment-links';
import { listMerchantLinks, merchantLinkView } from '#shared/services/payment-links';

const query = queryValidator(listLinksQuery, listLinksQuerySchema);

/** GET /v1/links: the merchant's payment links, newest first, by cursor. */
export const handler = readApiHandler({ query }, async ({ query, merchant, now }) => {
  const page = await listMerchantLinks(merchant, query);
  return json(200, { status: 200, links: page.links.map((link) => merchantLinkView(link, now)), next_cursor: page.nextCursor });
});
