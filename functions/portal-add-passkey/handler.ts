import { json, portalHandler } from '#shared/http/portal-handler';
import { portalPasskeyAnswerBody as body } from '#shared/http/validators.generated';
import { addPasskey } from '#shared/services/portal/auth';
import type { PortalPasskeyAdded } from '#shared/schemas/portal-responses';

/** POST /v1/portal/passkeys: registers the passkey a passkeys/options ceremony made. */
export const handler = portalHandler({ body }, async ({ body, context, now, clientIp }) => {
  const { credential_id, created_at } = await addPasskey(context, body.credential as never, now, clientIp);
  return json(200, { status: 200, passkey: { credential_id, created_at } } satisfies PortalPasskeyAdded);
});
