import { randomBytes, randomUUID } from 'node:crypto';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { portalConfig } from '#shared/core/config';
import { RateLimitedError } from '#shared/domain/errors';
import type { AuditAction, AuditEntry } from '#shared/domain/audit';
import { CHALLENGE_TTL_SECONDS, type Invite, type Passkey, type PortalUser, RECOVERY_CODE_COUNT } from '#shared/domain/portal';
import { InviteUnusableError, SignInFailedError } from '#shared/domain/portal-errors';
import { type IssuedSession, type PortalContext, randomToken, sha256 } from '#shared/services/portal/sessions';
import { consumeChallenge, insertChallenge } from '#shared/store/challenges';
import { findInvite } from '#shared/store/invites';
import { findMerchant } from '#shared/store/merchants';
import { advancePasskeyCounter, consumeRecoveryCode, findPasskey, findPortalUser, insertPasskey, insertRegisteredUser, listPasskeys } from '#shared/store/portal-users';
import { takeFromWindow } from '#shared/store/quotas';
import { deleteSession, insertSession } from '#shared/store/sessions';
import type { PortalPasskeys } from '#shared/schemas/portal-responses';

/**
 * Signing in to the merchant portal: invites, passkeys (WebAuthn through @simplewebauthn/server),
 * recovery codes and sessions. Every secret handed to a browser (session id, invite token,
 * recovery code) is 128 bits or more of randomness and stored only as its SHA-256: a table
 * leak gives no usable credential. (A keyed hash adds nothing for values this random.)
 */

function newSession(user: Pick<PortalUser, 'user_id' | 'merchant_id'>, now: Date): IssuedSession {
  const expires = new Date(now.getTime() + portalConfig().sessionHours * 3_600_000);
  return {
    id: randomToken(),
    session: { user_id: user.user_id, merchant_id: user.merchant_id, csrf_token: randomToken(), created_at: now.toISOString(), expires_at: expires.toISOString() },
  };
}

// --- Invites (the operator's CLI and the team page make them: team.ts) ---------------------

export { createInvite } from '#shared/services/portal/team';

/**
 * The invite a token names, if it can still be used. A token that names none (wrong, unknown,
 * used up or late) costs its address one of its sign-in attempts ({@link limitSignInAttempts}):
 * invite tokens are guessed like recovery codes, so a guesser gets the same few tries a minute
 * over all of them, then 429. A usable invite is never counted, so a member behind the same
 * address as a guesser can still accept theirs.
 */
async function usableInvite(token: string, clientIp: string | undefined, now: Date): Promise<Invite> {
  const invite = token.length <= 100 ? await findInvite(sha256(token)) : undefined;
  if (invite && !invite.used_at && invite.expires_at > now.toISOString()) return invite;
  await limitSignInAttempts(clientIp, now);
  throw new InviteUnusableError();
}

// --- Rate limit --------------------------------------------------------------------------------

/**
 * Sign-in attempts per client address and minute, counted in the table (so every warm function
 * and the local runtime see the same count): a guesser gets a few tries a minute, not thousands.
 */
export async function limitSignInAttempts(clientIp: string | undefined, now = new Date()): Promise<void> {
  const taken = await takeFromWindow(`S${clientIp ?? 'unknown'}`, { limit: portalConfig().signInPerMinute, windowSeconds: 60 }, now.getTime());
  if (!taken.allowed) throw new RateLimitedError(taken.retryAfterSeconds);
}

// --- Registration by invite ---------------------------------------------------------------------

const challengeExpiry = (now: Date) => new Date(now.getTime() + CHALLENGE_TTL_SECONDS * 1000).toISOString();

/** The passkey creation options for an invite's new user (a discoverable credential: no username to type). */
export async function registrationOptions(inviteToken: string, clientIp: string | undefined, now = new Date()) {
  const invite = await usableInvite(inviteToken, clientIp, now);
  const { rpId, rpName } = portalConfig();
  const userHandle = randomBytes(32);
  const options = await generateRegistrationOptions({
    rpName,
    rpID: rpId,
    userName: `${invite.name} (merchant ${invite.merchant_id})`,
    userDisplayName: invite.name,
    userID: new Uint8Array(userHandle),
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  });
  await insertChallenge(options.challenge, {
    kind: 'register',
    invite_hash: sha256(inviteToken),
    webauthn_user_id: userHandle.toString('base64url'),
    expires_at: challengeExpiry(now),
  });
  return options;
}

/** The challenge a WebAuthn answer was made for (from its clientDataJSON), or undefined. */
function challengeOf(response: { response: { clientDataJSON: string } }): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' && data.challenge.length <= 200 ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

/** The verified new credential of a registration answer, or SignInFailedError. */
async function verifiedCredential(response: RegistrationResponseJSON, challenge: string) {
  const { origin, rpId } = portalConfig();
  const verification = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: origin,
    expectedRPID: rpId,
    requireUserVerification: false,
  }).catch((error: unknown) => {
    throw new SignInFailedError(error);
  });
  if (!verification.verified) throw new SignInFailedError();
  return verification.registrationInfo.credential;
}

/** Fresh recovery codes: `xxxxx-xxxxx-xxxxx-xxxxx` (100 bits of base32), shown once. */
function newRecoveryCodes(): string[] {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(20);
    const chars = [...bytes].map((byte) => alphabet[byte % 32]).join('');
    return chars.match(/.{5}/g)!.join('-');
  });
}

/** Recovery codes are typed by hand: case, spaces and dashes do not matter. */
const normalizeRecoveryCode = (code: string): string => code.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Completes an invite: verifies the new passkey against the challenge the invite's options
 * made, then in one transaction uses the invite up, creates the user, the passkey, the recovery
 * codes and the first session. Returns the session and the recovery codes (shown once).
 */
export async function registerByInvite(
  inviteToken: string,
  response: RegistrationResponseJSON,
  now = new Date(),
  clientIp?: string,
): Promise<IssuedSession & { recoveryCodes: string[]; user: PortalUser }> {
  const invite = await usableInvite(inviteToken, clientIp, now);
  const challenge = challengeOf(response);
  const remembered = challenge && (await consumeChallenge(challenge, now));
  if (!remembered || remembered.kind !== 'register' || remembered.invite_hash !== sha256(inviteToken) || !remembered.webauthn_user_id) {
    throw new SignInFailedError();
  }
  const credential = await verifiedCredential(response, challenge);
  const user: PortalUser = {
    user_id: randomUUID(),
    merchant_id: invite.merchant_id,
    role: invite.role,
    name: invite.name,
    webauthn_user_id: remembered.webauthn_user_id,
    created_at: now.toISOString(),
  };
  const passkey = passkeyOf(user.user_id, credential, now);
  const recoveryCodes = newRecoveryCodes();
  const issued = newSession(user, now);
  const refused = await insertRegisteredUser({
    inviteHash: sha256(inviteToken),
    now,
    user,
    passkey,
    recoveryHashes: recoveryCodes.map((code) => sha256(normalizeRecoveryCode(code))),
    sessionHash: sha256(issued.id),
    session: issued.session,
    audit: userAudit(user, 'member.joined', clientIp, now, { user_id: user.user_id, name: user.name, role: user.role, credential_id: passkey.credential_id }),
  });
  if (refused === 'invite-unusable') throw new InviteUnusableError();
  if (refused) throw new SignInFailedError(refused);
  return { ...issued, recoveryCodes, user };
}

/** An audit entry of something a portal user did themselves (joined, a new passkey). */
function userAudit(user: PortalUser, action: AuditAction, clientIp: string | undefined, now: Date, details: AuditEntry['details']): AuditEntry {
  return { at: now.toISOString(), action, who: `${user.user_id} (${user.name})`, from: clientIp ?? 'unknown', details };
}

function passkeyOf(userId: string, credential: { id: string; publicKey: Uint8Array; counter: number; transports?: string[] }, now: Date): Passkey {
  return {
    credential_id: credential.id,
    user_id: userId,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: credential.transports ?? [],
    created_at: now.toISOString(),
  };
}

// --- Sign-in ---------------------------------------------------------------------------------

/** Options for signing in with any passkey of this site (the browser offers the user's own). */
export async function signInOptions(clientIp: string | undefined, now = new Date()) {
  await limitSignInAttempts(clientIp, now);
  const options = await generateAuthenticationOptions({
    rpID: portalConfig().rpId,
    userVerification: 'preferred',
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  });
  await insertChallenge(options.challenge, { kind: 'sign-in', expires_at: challengeExpiry(now) });
  return options;
}

/** A user who may sign in: not disabled or removed, and of a merchant the operator has not disabled. */
async function activeUser(userId: string): Promise<PortalUser> {
  const user = await findPortalUser(userId);
  if (!user || user.disabled || user.removed_at) throw new SignInFailedError();
  const merchant = await findMerchant(user.merchant_id);
  if (!merchant || merchant.disabled) throw new SignInFailedError();
  return user;
}

/**
 * Signs in with a passkey's answer: the challenge must be one we issued (used once), the
 * credential one of ours, its signature valid and its counter moving forward. The session the
 * browser had (if any) is ended: a new id at every sign-in (rotation).
 */
export async function signInWithPasskey(
  response: AuthenticationResponseJSON,
  context: { clientIp: string | undefined; previousSessionId?: string },
  now = new Date(),
): Promise<IssuedSession & { user: PortalUser }> {
  await limitSignInAttempts(context.clientIp, now);
  const challenge = challengeOf(response);
  const remembered = challenge && (await consumeChallenge(challenge, now));
  if (!remembered || remembered.kind !== 'sign-in') throw new SignInFailedError();
  const passkey = typeof response.id === 'string' && response.id.length <= 1024 ? await findPasskey(response.id) : undefined;
  if (!passkey) throw new SignInFailedError();
  const user = await activeUser(passkey.user_id);
  // The authenticator's user handle must be this user's (a credential cannot speak for another).
  if (response.response.userHandle && response.response.userHandle !== user.webauthn_user_id) throw new SignInFailedError();
  const { origin, rpId } = portalConfig();
  const verification = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: origin,
    expectedRPID: rpId,
    credential: { id: passkey.credential_id, publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')), counter: passkey.counter, transports: passkey.transports as never },
    requireUserVerification: false,
  }).catch((error: unknown) => {
    throw new SignInFailedError(error);
  });
  if (!verification.verified) throw new SignInFailedError();
  // A passkey's first sign-in is recorded in the audit log (`sign_in.new_passkey`), in the counter's write.
  const audit = userAudit(user, 'sign_in.new_passkey', context.clientIp, now, { credential_id: passkey.credential_id });
  if (!(await advancePasskeyCounter(passkey, verification.authenticationInfo.newCounter, now, user.merchant_id, audit))) {
    throw new SignInFailedError('counter moved');
  }
  return { ...(await startSession(user, context.previousSessionId, now)), user };
}

/** Signs in with a recovery code (used up by it). */
export async function signInWithRecoveryCode(code: string, context: { clientIp: string | undefined; previousSessionId?: string }, now = new Date()): Promise<IssuedSession & { user: PortalUser }> {
  await limitSignInAttempts(context.clientIp, now);
  const userId = await consumeRecoveryCode(sha256(normalizeRecoveryCode(code)));
  if (!userId) throw new SignInFailedError();
  const user = await activeUser(userId);
  return { ...(await startSession(user, context.previousSessionId, now)), user };
}

async function startSession(user: PortalUser, previousSessionId: string | undefined, now: Date): Promise<IssuedSession> {
  if (previousSessionId) await deleteSession(sha256(previousSessionId));
  const issued = newSession(user, now);
  await insertSession(sha256(issued.id), issued.session);
  return issued;
}

// --- More passkeys -------------------------------------------------------------------------------

/** Options to add a passkey for the signed-in user (the ones they have are excluded). */
export async function addPasskeyOptions(context: PortalContext, now = new Date()) {
  const { rpId, rpName } = portalConfig();
  const existing = await listPasskeys(context.user.user_id);
  const options = await generateRegistrationOptions({
    rpName,
    rpID: rpId,
    userName: `${context.user.name} (merchant ${context.user.merchant_id})`,
    userDisplayName: context.user.name,
    userID: new Uint8Array(Buffer.from(context.user.webauthn_user_id, 'base64url')),
    attestationType: 'none',
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credential_id, transports: passkey.transports as never })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    timeout: CHALLENGE_TTL_SECONDS * 1000,
  });
  await insertChallenge(options.challenge, { kind: 'add-passkey', user_id: context.user.user_id, expires_at: challengeExpiry(now) });
  return options;
}

/** Adds the passkey an {@link addPasskeyOptions} ceremony made. */
export async function addPasskey(context: PortalContext, response: RegistrationResponseJSON, now = new Date(), clientIp?: string): Promise<Passkey> {
  const challenge = challengeOf(response);
  const remembered = challenge && (await consumeChallenge(challenge, now));
  if (!remembered || remembered.kind !== 'add-passkey' || remembered.user_id !== context.user.user_id) throw new SignInFailedError();
  const passkey = passkeyOf(context.user.user_id, await verifiedCredential(response, challenge), now);
  const audit = userAudit(context.user, 'passkey.added', clientIp, now, { credential_id: passkey.credential_id });
  if (!(await insertPasskey(passkey, context.user.merchant_id, audit))) throw new SignInFailedError('passkey exists');
  return passkey;
}

/** What the portal shows about its user's passkeys (no keys). */
export async function describePasskeys(context: PortalContext): Promise<PortalPasskeys['passkeys']> {
  return (await listPasskeys(context.user.user_id)).map(({ credential_id, created_at, last_used_at, transports }) => ({
    credential_id,
    created_at,
    last_used_at: last_used_at ?? null,
    transports,
  }));
}
