import { json, portalHandler } from '#shared/http/portal-handler';
import { portalRevokeToken } from '#shared/services/portal/account';
import { portalActor } from '#shared/services/portal/team';
import type { PortalRevokedToken } from '#shared/schemas/portal-responses';

/** POST /v1/portal/tokens/{token_id}/revoke: the token is refused from now on (within the auth cache's seconds). */
export const handler = portalHandler({}, async ({ path, context, clientIp, now }) => {
  await portalRevokeToken(context, path.token_id ?? '', portalActor(context, clientIp), now);
  return json(200, { status: 200, revoked: path.token_id ?? '' } satisfies PortalRevokedToken);
});
