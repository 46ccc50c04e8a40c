import { json, portalHandler, sessionView } from '#shared/http/portal-handler';
import type { PortalSession } from '#shared/schemas/portal-responses';

/** GET /v1/portal/session: who is signed in, and the CSRF token for state changes (401 when nobody). */
export const handler = portalHandler({}, async ({ context }) => json(200, { status: 200, ...sessionView(context.user, context.session, context.merchant) } satisfies PortalSession));
