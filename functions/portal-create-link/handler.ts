import { json, portalHandler } from '#shared/http/portal-handler';
import { createLinkBody as body } from '#shared/http/validators.generated';
import { portalCreateLink } from '#shared/services/portal/links';

/** POST /v1/portal/links: a new payment link (owners and developers). */
export const handler = portalHandler({ body }, async ({ body, context, now }) => json(201, { status: 201, link: await portalCreateLink(context, body, now) }));
