import { json, portalHandler } from '#shared/http/portal-handler';
import { describePasskeys } from '#shared/services/portal/auth';
import type { PortalPasskeys } from '#shared/schemas/portal-responses';

/** GET /v1/portal/passkeys: the signed-in user's passkeys. */
export const handler = portalHandler({}, async ({ context }) => json(200, { status: 200, passkeys: await describePasskeys(context) } satisfies PortalPasskeys));
