import { AppError } from '#shared/domain/errors';

/** The portal's errors (its routes answer `{status, error, error_code}`, never the contract's quirks). */

/** No session, or an expired, revoked or unknown one. */
export class SessionRequiredError extends AppError {
  constructor() {
    super(401, 'SESSION_REQUIRED', 'Sign in to continue.');
  }
}

/** A state change without the CSRF defense (wrong Origin, or no matching x-csrf-token). */
export class CsrfRefusedError extends AppError {
  constructor() {
    super(403, 'CSRF_REFUSED', 'The request did not come from the portal; reload the page and try again.');
  }
}

/** A portal request that did not come through the portal's own address (CloudFront) in AWS. */
export class OriginRequiredError extends AppError {
  constructor() {
    super(403, 'ORIGIN_REQUIRED', 'Use the portal at its own address.');
  }
}

/** The user's role does not allow this. */
export class RoleRefusedError extends AppError {
  constructor() {
    super(403, 'ROLE_REFUSED', 'Your role does not allow this.');
  }
}

/** An invite that does not exist, was used, or expired (told apart for nobody). */
export class InviteUnusableError extends AppError {
  constructor() {
    super(400, 'INVITE_UNUSABLE', 'This invite link is not valid any more: ask for a new one.');
  }
}

/** A passkey answer or recovery code that did not verify (which part failed is not said). */
export class SignInFailedError extends AppError {
  constructor(cause?: unknown) {
    super(401, 'SIGN_IN_FAILED', 'Sign-in failed.', { cause });
  }
}

/** Another merchant's resource, or a missing one: the same answer for both. */
export class PortalNotFoundError extends AppError {
  constructor() {
    super(404, 'NOT_FOUND', 'Not found');
  }
}

/** A setting, token name or key the portal's user sent that the account's rules refuse (the reason is said). */
export class PortalInputError extends AppError {
  constructor(message: string) {
    super(400, 'INVALID_INPUT', message);
  }
}

/** A change the team's rules refuse (an owner removing themselves or changing their own role). */
export class TeamChangeRefusedError extends AppError {
  constructor(message: string) {
    super(409, 'TEAM_CHANGE_REFUSED', message);
  }
}
