import { json, portalHandler } from '#shared/http/portal-handler';
import { removeMember } from '#shared/services/portal/team';
import type { PortalMemberChanged } from '#shared/schemas/portal-responses';

/** POST /v1/portal/team/{member_id}/remove: removes another member; their sessions end at once (owners). */
export const handler = portalHandler({}, async ({ path, context, clientIp, now }) =>
  json(200, { status: 200, member: await removeMember(context, path.member_id ?? '', clientIp, now) } satisfies PortalMemberChanged),
);
