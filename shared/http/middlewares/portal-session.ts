import { CsrfRefusedError } from '#shared/domain/portal-errors';
import { sessionIdOf } from '#shared/http/middlewares/portal-cookies';
import { changesState } from '#shared/http/middlewares/portal-origin';
import { requestSlot } from '#shared/http/middlewares/slot';
import type { Middleware } from '#shared/http/middlewares/types';
import { authenticateSession, csrfTokenMatches, type PortalContext } from '#shared/services/portal/sessions';

const sessions = requestSlot<{ sessionId: string | undefined; context?: PortalContext }>();

/** The session cookie the request carried and, on routes that need one, its signed-in user. */
export const portalSessionOf = sessions.get;

/**
 * The portal's authentication: browsers send a session cookie (shared/http/middlewares/portal-cookies.ts),
 * never the merchant API's `token` header. 'session': the session must be valid (401
 * SESSION_REQUIRED) and a POST must carry its CSRF token in `x-csrf-token` (403 CSRF_REFUSED);
 * 'none' (sign-in routes): the cookie is only read (sign-in ends it: rotation).
 */
export const portalSession = (auth: 'session' | 'none'): Middleware => ({
  before: async ({ event }) => {
    const sessionId = sessionIdOf(event);
    if (auth === 'none') {
      sessions.set(event, { sessionId });
      return;
    }
    const context = await authenticateSession(sessionId);
    sessions.set(event, { sessionId, context });
    if (changesState(event) && !csrfTokenMatches(context.session, event.headers?.['x-csrf-token'])) {
      throw new CsrfRefusedError();
    }
  },
});
