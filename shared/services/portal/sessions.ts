import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type MerchantProfile, profileOf } from '#shared/domain/merchant';
import type { PortalUser, Session } from '#shared/domain/portal';
import { SessionRequiredError } from '#shared/domain/portal-errors';
import { findMerchant } from '#shared/store/merchants';
import { findPortalUser, voidSessionsBefore } from '#shared/store/portal-users';
import { deleteSession, findSession } from '#shared/store/sessions';

/**
 * Portal sessions: which signed-in user a cookie names, the CSRF token, signing out. Apart from
 * auth.ts (passkeys, invites) so every portal route's bundle has no WebAuthn library.
 */

export const sha256 = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

/** A signed-in browser: what the HTTP layer sets as cookie, and what the portal shows. */
export interface IssuedSession {
  /** The cookie's value (never stored). */
  id: string;
  session: Session;
}

/** The session, user and their merchant behind a request: every portal route authorizes on this. */
export interface PortalContext {
  sessionHash: string;
  session: Session;
  user: PortalUser;
  /** The user's merchant as it is now (no secrets): its name and sandbox or live mode are shown on every page. */
  merchant: MerchantProfile;
}

// --- Sessions --------------------------------------------------------------------------------

/**
 * The session a cookie names, with its user: SessionRequiredError when it is unknown, expired,
 * signed out, voided by "sign out everywhere", its user is disabled or removed, or its merchant
 * is disabled (the operator's `disable`: read on every request, so refused at once).
 */
export async function authenticateSession(sessionId: string | undefined, now = new Date()): Promise<PortalContext> {
  if (!sessionId || sessionId.length > 100) throw new SessionRequiredError();
  const sessionHash = sha256(sessionId);
  const session = await findSession(sessionHash);
  if (!session || session.expires_at <= now.toISOString()) throw new SessionRequiredError();
  const user = await findPortalUser(session.user_id);
  if (!user || user.disabled || user.merchant_id !== session.merchant_id) throw new SessionRequiredError();
  if (user.sessions_valid_after && session.created_at <= user.sessions_valid_after) throw new SessionRequiredError();
  const merchant = await findMerchant(user.merchant_id);
  if (!merchant || merchant.disabled) throw new SessionRequiredError();
  return { sessionHash, session, user, merchant: profileOf(merchant) };
}

/** Whether `token` is the session's CSRF token (constant time). */
export function csrfTokenMatches(session: Session, token: string | undefined): boolean {
  if (!token) return false;
  const expected = Buffer.from(session.csrf_token);
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Signs out: this session ends; with `everywhere`, every other session of the user too. */
export async function signOut(context: PortalContext, everywhere: boolean, now = new Date()): Promise<void> {
  await deleteSession(context.sessionHash);
  if (everywhere) await voidSessionsBefore(context.user.user_id, now);
}
