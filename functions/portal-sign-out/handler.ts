import { clearedSessionCookie, json, portalHandler, withCookies } from '#shared/http/portal-handler';
import { portalSignOutBody as body } from '#shared/http/validators.generated';
import { signOut } from '#shared/services/portal/sessions';
import type { PortalSignedOut } from '#shared/schemas/portal-responses';

/** POST /v1/portal/sign-out: ends this session (`everywhere`: every session of the user). */
export const handler = portalHandler({ body }, async ({ body, context, now }) => {
  await signOut(context, body.everywhere ?? false, now);
  return withCookies(json(200, { status: 200 } satisfies PortalSignedOut), [clearedSessionCookie()]);
});
