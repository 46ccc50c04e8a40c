import { portalConfig } from '#shared/core/config';
import type { Event, Result } from '#shared/http/middlewares/types';
import type { IssuedSession } from '#shared/services/portal/sessions';

/**
 * The portal's session cookie: HttpOnly, SameSite=Strict, Secure outside loopback, and
 * `__Host-` prefixed (Secure, Path=/, no Domain) wherever it is Secure.
 */
export const sessionCookieName = (): string => (portalConfig().secureCookies ? '__Host-portal_session' : 'portal_session');

const attributes = (maxAge: number): string => `Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${portalConfig().secureCookies ? '; Secure' : ''}`;

/** The Set-Cookie value that hands a browser its session. */
export function sessionCookie(issued: IssuedSession): string {
  const maxAge = Math.max(0, Math.floor((Date.parse(issued.session.expires_at) - Date.now()) / 1000));
  return `${sessionCookieName()}=${issued.id}; ${attributes(maxAge)}`;
}

/** The Set-Cookie value that removes the session cookie. */
export function clearedSessionCookie(): string {
  return `${sessionCookieName()}=; ${attributes(0)}`;
}

/** A JSON answer that also sets cookies (API Gateway v2's `cookies`; the local adapter writes them as Set-Cookie). */
export function withCookies(result: Result, cookies: string[]): Result {
  return { ...result, cookies };
}

/** The session id among the request's cookies (API Gateway v2 lists them in `cookies`; a plain Cookie header otherwise). */
export function sessionIdOf(event: Event): string | undefined {
  const name = sessionCookieName();
  const all = event.cookies ?? (event.headers?.cookie ? event.headers.cookie.split(';') : []);
  for (const cookie of all) {
    const [key, ...value] = cookie.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
