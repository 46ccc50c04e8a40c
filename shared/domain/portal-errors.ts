import { AppError } from '#shared/domain/errors';

/** The portal's errors (its routes answer `{status, error, error_code}`, never the contract's quirks; each code's status is in shared/http/errors.ts). */

/** No session, or an expired, revoked or unknown one. */
export class SessionRequiredError extends AppError {
  readonly code = 'SESSION_REQUIRED';
  constructor() {
    super('Sign in to continue.');
  }
}

/** A state change without the CSRF defense (wrong Origin, or no matching x-csrf-token). */
export class CsrfRefusedError extends AppError {
  readonly code = 'CSRF_REFUSED';
  constructor() {
    super('The request did not come from the portal; reload the page and try again.');
  }
}

/** A portal request that did not come through the portal's own address (CloudFront) in AWS. */
export class OriginRequiredError extends AppError {
  readonly code = 'ORIGIN_REQUIRED';
  constructor() {
    super('Use the portal at its own address.');
  }
}

/** The user's role does not allow this. */
export class RoleRefusedError extends AppError {
  readonly code = 'ROLE_REFUSED';
  constructor() {
    super('Your role does not allow this.');
  }
}

/** An invite that does not exist, was used, or expired (told apart for nobody). */
export class InviteUnusableError extends AppError {
  readonly code = 'INVITE_UNUSABLE';
  constructor() {
    super('This invite link is not valid any more: ask for a new one.');
  }
}

/** A passkey answer or recovery code that did not verify (which part failed is not said). */
export class SignInFailedError extends AppError {
  readonly code = 'SIGN_IN_FAILED';
  constructor(cause?: unknown) {
    super('Sign-in failed.', { cause });
  }
}

/** Another merchant's resource, or a missing one: the same answer for both. */
export class PortalNotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
  constructor() {
    super('Not found');
  }
}

/** A setting, token name or key the portal's user sent that the account's rules refuse (the reason is said). */
export class PortalInputError extends AppError {
  readonly code = 'INVALID_INPUT';
  constructor(message: string) {
    super(message);
  }
}

/** A change the team's rules refuse (an owner removing themselves or changing their own role). */
export class TeamChangeRefusedError extends AppError {
  readonly code = 'TEAM_CHANGE_REFUSED';
  constructor(message: string) {
    super(message);
  }
}
