import { json, portalHandler } from '#shared/http/portal-handler';
import { portalMemberRoleBody as body } from '#shared/http/validators.generated';
import { changeMemberRole } from '#shared/services/portal/team';
import type { PortalMemberChanged } from '#shared/schemas/portal-responses';

/** POST /v1/portal/team/{member_id}/role: another member's new role (owners). */
export const handler = portalHandler({ body }, async ({ body, path, context, clientIp, now }) =>
  json(200, { status: 200, member: await changeMemberRole(context, path.member_id ?? '', body.role, clientIp, now) } satisfies PortalMemberChanged),
);
