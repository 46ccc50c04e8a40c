import { createHash, timingSafeEqual } from 'node:crypto';
import { portalConfig } from '#shared/core/config';
import { CsrfRefusedError, OriginRequiredError } from '#shared/domain/portal-errors';
import type { Event, Middleware } from '#shared/http/middlewares/types';

/** The secret's digest, once per process: compared in constant time with the digest of what a request carries. */
let originDigest: { secret: string; digest: Buffer } | undefined;
const digestOf = (value: string) => createHash('sha256').update(value).digest();

/**
 * In AWS the portal's API is reached through the portal's CloudFront, which adds the configured
 * secret to every request: a request without it came to the API's own URL, where nothing stops
 * a caller from writing the viewer-address header the sign-in limit trusts. Locally (no secret)
 * every request passes.
 */
function assertThroughPortalOrigin(event: Event): void {
  const secret = portalConfig().originSecret;
  if (secret === undefined) return;
  if (originDigest?.secret !== secret) originDigest = { secret, digest: digestOf(secret) };
  const given = event.headers?.['x-origin-verify'];
  if (given === undefined || !timingSafeEqual(digestOf(given), originDigest.digest)) throw new OriginRequiredError();
}

/** A state change from anywhere but the portal's own pages is refused. */
function assertSameOrigin(event: Event): void {
  const origin = event.headers?.origin;
  if (origin !== undefined) {
    if (origin !== portalConfig().origin) throw new CsrfRefusedError();
    return;
  }
  if (event.headers?.['sec-fetch-site'] !== 'same-origin') throw new CsrfRefusedError();
}

/** A POST changes state: it must come from the portal's own pages (and, signed in, carry the CSRF token). */
export const changesState = (event: Event): boolean => event.requestContext?.http?.method === 'POST';

/**
 * The portal's origin rules, before anything is read: every request came through the portal's
 * own address (403 ORIGIN_REQUIRED), and every POST from the portal's own origin (the Origin
 * header, or Sec-Fetch-Site: same-origin; 403 CSRF_REFUSED). SameSite cookies alone do not cover
 * old browsers or a sibling subdomain; the session's CSRF token is checked after the session
 * (shared/http/middlewares/portal-session.ts).
 */
export const portalOrigin = (): Middleware => ({
  before: ({ event }) => {
    assertThroughPortalOrigin(event);
    if (changesState(event)) assertSameOrigin(event);
  },
});

/** The client's address: the proxy's header when one is configured (`address:port`), else the connection's. */
export function portalClientIp(event: Event): string | undefined {
  const header = portalConfig().clientIpHeader;
  const viewer = header ? event.headers?.[header.toLowerCase()] : undefined;
  if (viewer && viewer.lastIndexOf(':') > 0) return viewer.slice(0, viewer.lastIndexOf(':'));
  return event.requestContext?.http?.sourceIp;
}
