import { portalHandler, signedIn } from '#shared/http/portal-handler';
import { portalRecoveryCodeBody as body } from '#shared/http/validators.generated';
import { signInWithRecoveryCode } from '#shared/services/portal/auth';

/** POST /v1/portal/sign-in/recovery: a one-time recovery code instead of a passkey. */
export const handler = portalHandler({ auth: 'none', body }, async ({ body, clientIp, sessionId, now }) =>
  signedIn(await signInWithRecoveryCode(body.code, { clientIp, previousSessionId: sessionId }, now)),
);
