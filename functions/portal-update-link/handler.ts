import { json, portalHandler } from '#shared/http/portal-handler';
import { updateLinkBody as body } from '#shared/http/validators.generated';
import { portalUpdateLink } from '#shared/services/portal/links';

/** POST /v1/portal/links/:link_id: changes, disables (`enabled: false`) or enables a payment link (owners and developers). */
export const handler = portalHandler({ body }, async ({ body, path, context, now }) => json(200, { status: 200, link: await portalUpdateLink(context, path.link_id, body, now) }));
