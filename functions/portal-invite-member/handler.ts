import { json, portalHandler } from '#shared/http/portal-handler';
import { portalInviteMemberBody as body } from '#shared/http/validators.generated';
import { inviteMember } from '#shared/services/portal/team';
import type { PortalInvite } from '#shared/schemas/portal-responses';

/** POST /v1/portal/team/invites: a one-time invite link with a role, shown in this answer only (owners). */
export const handler = portalHandler({ body }, async ({ body, context, clientIp, now }) => json(200, { status: 200, invite: await inviteMember(context, body, clientIp, now) } satisfies PortalInvite));
