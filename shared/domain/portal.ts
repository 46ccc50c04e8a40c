import type { EmailPreferences } from '#shared/domain/email';

/**
 * The merchant portal's people and credentials. A portal user belongs to one merchant with one
 * role; every portal route authorizes session -> user -> merchant -> role (docs/merchant-guide.md, "The merchant portal").
 * Secrets (session ids, invite tokens, recovery codes) are random and stored only as hashes.
 */

/** What a user may do: viewers read; developers also act on orders; owners also manage the team (issue 20). */
export const ROLES = ['owner', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Roles allowed to change an order (resend a callback, cancel, refund, resolve). */
export const ORDER_ACTORS: readonly Role[] = ['owner', 'developer'];

/** Roles allowed to see and change the integration: API tokens, the callback secret, payment settings, the audit log. */
export const INTEGRATION_MANAGERS: readonly Role[] = ['owner', 'developer'];

/** Roles allowed to manage the team (invite, change a role, remove a member). */
export const TEAM_MANAGERS: readonly Role[] = ['owner'];

export interface PortalUser {
  /** Random UUID; also the passkeys' owner. */
  user_id: string;
  /** The merchant (its numeric user_id in the API's terms) this user works for. */
  merchant_id: number;
  role: Role;
  /** What the user is called in the portal (from the invite). */
  name: string;
  /** The WebAuthn user handle (base64url of 32 random bytes), as the authenticator stores it. */
  webauthn_user_id: string;
  created_at: string;
  /** Sessions created before this time are void ("sign out everywhere"). */
  sessions_valid_after?: string;
  disabled?: boolean;
  /** Set when an owner removed the user from the team (the user is disabled too: no session, no sign-in). */
  removed_at?: string;
  /** What email the user gets, and where (absent: none until the user gives an address). */
  email_preferences?: Partial<EmailPreferences>;
}

/** A registered passkey (WebAuthn credential) of a user. */
export interface Passkey {
  /** base64url credential id. */
  credential_id: string;
  user_id: string;
  /** base64url COSE public key. */
  public_key: string;
  counter: number;
  transports: string[];
  created_at: string;
  last_used_at?: string;
}

/** An operator's one-time invitation for a merchant's user (stored by the token's hash). */
export interface Invite {
  merchant_id: number;
  role: Role;
  name: string;
  created_at: string;
  expires_at: string;
  /** Set when it was used (it works once). */
  used_at?: string;
}

/** A signed-in browser (stored by the hash of the cookie's random id). */
export interface Session {
  user_id: string;
  merchant_id: number;
  /** The anti-CSRF token the portal sends back in a header on every state change. */
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

/** How long an invite link works unless the operator says otherwise. */
export const INVITE_TTL_HOURS = 72;
/** Recovery codes each user gets at registration. */
export const RECOVERY_CODE_COUNT = 10;
/** A WebAuthn ceremony must finish within this. */
export const CHALLENGE_TTL_SECONDS = 300;
