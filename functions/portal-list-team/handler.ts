import { json, portalHandler } from '#shared/http/portal-handler';
import { listTeam } from '#shared/services/portal/team';
import type { PortalTeam } from '#shared/schemas/portal-responses';

/** GET /v1/portal/team: the merchant's members and their roles (owners). */
export const handler = portalHandler({}, async ({ context }) => json(200, { status: 200, members: await listTeam(context) } satisfies PortalTeam));
