import { portalHandler, signedIn } from '#shared/http/portal-handler';
import { portalPasskeyAnswerBody as body } from '#shared/http/validators.generated';
import { registerByInvite } from '#shared/services/portal/auth';

/** POST /v1/portal/invites/:invite/accept: the new passkey; uses the invite up, signs in, shows the recovery codes once. */
export const handler = portalHandler({ auth: 'none', body }, async ({ path, body, now, clientIp }) => {
  const registered = await registerByInvite(path.invite ?? '', body.credential as never, now, clientIp);
  return signedIn(registered, { recovery_codes: registered.recoveryCodes });
});
