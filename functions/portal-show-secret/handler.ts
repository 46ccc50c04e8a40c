import { json, portalHandler } from '#shared/http/portal-handler';
import { portalShowSecret } from '#shared/services/portal/account';
import type { PortalSecret } from '#shared/schemas/portal-responses';

/** POST /v1/portal/callback-secret: the callback secret (and the previous one during an overlap), on demand (a POST: never cached, CSRF-checked). */
export const handler = portalHandler({}, async ({ context }) => json(200, { status: 200, ...(await portalShowSecret(context)) } satisfies PortalSecret));
