import { json, portalHandler } from '#shared/http/portal-handler';
import { portalRollSecretBody as body } from '#shared/http/validators.generated';
import { portalRollSecret } from '#shared/services/portal/account';
import { portalActor } from '#shared/services/portal/team';
import type { PortalRolledSecret } from '#shared/schemas/portal-responses';

/** POST /v1/portal/callback-secret/roll: a new secret; the old one also signs callbacks for the overlap. */
export const handler = portalHandler({ body }, async ({ body, context, clientIp, now }) =>
  json(200, { status: 200, ...(await portalRollSecret(context, body.overlap_hours, portalActor(context, clientIp), now)) } satisfies PortalRolledSecret),
);
