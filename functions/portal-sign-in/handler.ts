import { portalHandler, signedIn } from '#shared/http/portal-handler';
import { portalPasskeyAnswerBody as body } from '#shared/http/validators.generated';
import { signInWithPasskey } from '#shared/services/portal/auth';

/** POST /v1/portal/sign-in: a passkey's answer; a new session (the old one ends). */
export const handler = portalHandler({ auth: 'none', body }, async ({ body, clientIp, sessionId, now }) =>
  signedIn(await signInWithPasskey(body.credential as never, { clientIp, previousSessionId: sessionId }, now)),
);
