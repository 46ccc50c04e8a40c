import { json, portalHandler } from '#shared/http/portal-handler';
import { portalGetLink } from '#shared/services/portal/links';

/** GET /v1/portal/links/:link_id: a payment link, its figures and its newest orders. */
export const handler = portalHandler({}, async ({ path, context, now }) => json(200, { status: 200, ...(await portalGetLink(context, path.link_id, now)) }));
