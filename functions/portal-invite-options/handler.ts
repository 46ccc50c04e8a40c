import { json, portalHandler } from '#shared/http/portal-handler';
import { registrationOptions } from '#shared/services/portal/auth';
import type { PortalRegistrationOptions } from '#shared/schemas/portal-responses';

/** POST /v1/portal/invites/:invite/options: passkey creation options for an unused, unexpired invite. */
export const handler = portalHandler({ auth: 'none' }, async ({ path, now, clientIp }) =>
  json(200, { status: 200, options: await registrationOptions(path.invite ?? '', clientIp, now) } satisfies PortalRegistrationOptions),
);
