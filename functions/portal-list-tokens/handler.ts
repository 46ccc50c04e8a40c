import { json, portalHandler } from '#shared/http/portal-handler';
import { portalListTokens } from '#shared/services/portal/account';
import type { PortalTokens } from '#shared/schemas/portal-responses';

/** GET /v1/portal/tokens: the merchant's API tokens (name, first characters, created, last used; never the token). */
export const handler = portalHandler({}, async ({ context }) => json(200, { status: 200, tokens: await portalListTokens(context) } satisfies PortalTokens));
