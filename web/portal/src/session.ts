import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { PortalSession } from '#shared/schemas/portal-responses';
import { portalApi, type Result, useCsrfToken } from './api';

/**
 * The one place that knows about sessions: who is signed in, the CSRF token the API client
 * sends, and the passkey ceremonies (@simplewebauthn/browser drives navigator.credentials).
 */
let current: PortalSession | undefined;

export const signedInUser = () => current?.user;
/** The signed-in user's merchant: its name and sandbox or live mode. */
export const signedInMerchant = () => current?.merchant;

async function remember(result: Result<PortalSession>): Promise<Result<PortalSession>> {
  if (result.ok) {
    current = result.data;
    useCsrfToken(result.data.csrf_token);
    // A sign-in's answer has no merchant: the session's has its name and mode.
    if (!result.data.merchant) {
      const again = await portalApi.session();
      if (again.ok) current = { ...result.data, merchant: again.data.merchant };
    }
  }
  return result;
}

/** Reads the session the cookie names (after a reload). */
export async function loadSession(): Promise<boolean> {
  const result = await remember(await portalApi.session());
  return result.ok;
}

type Failure = Extract<Result<unknown>, { ok: false }>;
const cancelled: Failure = { ok: false, status: 0, code: 'CANCELLED', retryAfterMs: 0 };

export async function acceptInvite(invite: string): Promise<Result<PortalSession>> {
  const options = await portalApi.inviteOptions(invite);
  if (!options.ok) return options;
  let credential;
  try {
    credential = await startRegistration({ optionsJSON: options.data.options });
  } catch {
    return cancelled;
  }
  return remember(await portalApi.acceptInvite(invite, credential));
}

export async function signInWithPasskey(): Promise<Result<PortalSession>> {
  const options = await portalApi.signInOptions();
  if (!options.ok) return options;
  let credential;
  try {
    credential = await startAuthentication({ optionsJSON: options.data.options });
  } catch {
    return cancelled;
  }
  return remember(await portalApi.signIn(credential));
}

export async function signInWithRecoveryCode(code: string): Promise<Result<PortalSession>> {
  return remember(await portalApi.recover(code));
}

export async function addPasskey(): Promise<Result<unknown>> {
  const options = await portalApi.passkeyOptions();
  if (!options.ok) return options;
  try {
    return await portalApi.addPasskey(await startRegistration({ optionsJSON: options.data.options }));
  } catch {
    return cancelled;
  }
}

export async function signOut(): Promise<void> {
  await portalApi.signOut();
  current = undefined;
  useCsrfToken(undefined);
}
