import { apiHandler } from '#shared/http/api-handler';
import { json } from '#shared/http/responses';
import { createLinkBody as body } from '#shared/http/validators.generated';
import { createLink, merchantLinkView } from '#shared/services/payment-links';

/** POST /v1/links: a new payment link (beyond the contract), enabled; its `url` opens the link page. */
export const handler = apiHandler({ body, exact: { price_amount: 'decimal', min_amount: 'decimal', max_amount: 'decimal' } }, async ({ body, merchant, now }) =>
  json(201, { status: 201, link: merchantLinkView(await createLink(merchant, body, now), now) }),
);
