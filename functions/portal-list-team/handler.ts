import { json, portalHandler } from '#shared/http/portal-handler';
import { listTeam } from '#shared/services/portal/team';

/** GET /v1/portal/team: the merchant's members and their roles (owners). */
export const handler = portalHandler({}, async ({ context }) => json(200, { status: 200, members: await listTeam(context) }));
