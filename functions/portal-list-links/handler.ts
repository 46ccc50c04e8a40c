import { json, portalHandler } from '#shared/http/portal-handler';
import { listLinksQuery as query } from '#shared/http/validators.generated';
import { portalListLinks } from '#shared/services/portal/links';

/** GET /v1/portal/links: the merchant's payment links, newest first, with their paid count and total. */
export const handler = portalHandler({ query }, async ({ query, context, now }) => json(200, { status: 200, ...(await portalListLinks(context, query, now)) }));
