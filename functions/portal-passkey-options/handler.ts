import { json, portalHandler } from '#shared/http/portal-handler';
import { addPasskeyOptions } from '#shared/services/portal/auth';
import type { PortalRegistrationOptions } from '#shared/schemas/portal-responses';

/** POST /v1/portal/passkeys/options: creation options for another passkey of the signed-in user. */
export const handler = portalHandler({}, async ({ context, now }) => json(200, { status: 200, options: await addPasskeyOptions(context, now) } satisfies PortalRegistrationOptions));
