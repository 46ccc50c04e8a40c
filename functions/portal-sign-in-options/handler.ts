import { json, portalHandler } from '#shared/http/portal-handler';
import { signInOptions } from '#shared/services/portal/auth';
import type { PortalSignInOptions } from '#shared/schemas/portal-responses';

/** POST /v1/portal/sign-in/options: a challenge for any passkey of this site (rate-limited per client). */
export const handler = portalHandler({ auth: 'none' }, async ({ clientIp, now }) => json(200, { status: 200, options: await signInOptions(clientIp, now) } satisfies PortalSignInOptions));
