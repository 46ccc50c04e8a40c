import { json, portalHandler } from '#shared/http/portal-handler';
import { portalTokenNameBody as body } from '#shared/http/validators.generated';
import { portalCreateToken } from '#shared/services/portal/account';
import { portalActor } from '#shared/services/portal/team';
import type { PortalCreatedToken } from '#shared/schemas/portal-responses';

/** POST /v1/portal/tokens: a new named API token, shown in this answer only. */
export const handler = portalHandler({ body }, async ({ body, context, clientIp, now }) =>
  json(200, { status: 200, token: await portalCreateToken(context, body.name, portalActor(context, clientIp), now) } satisfies PortalCreatedToken),
);
