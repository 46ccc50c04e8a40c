import { AppError } from '#shared/domain/errors';

/** Recurring billing's refusals (beyond the contract: `{status, error, error_code}`). */

/** A plan that does not exist (or is another merchant's): answered the same way. */
export class PlanNotFoundError extends AppError {
  readonly code = 'PLAN_NOT_FOUND';
  constructor() {
    super('Plan not found');
  }
}

/** A plan other requests kept changing while this change was tried again on each new version. */
export class PlanConflictError extends AppError {
  readonly code = 'PLAN_CONFLICT';
  constructor() {
    super('The plan was changed by other requests meanwhile, please retry.');
  }
}

/** A new subscription to an archived plan. */
export class PlanArchivedError extends AppError {
  readonly code = 'PLAN_ARCHIVED';
  constructor() {
    super('This plan is archived: it takes no new subscriber.');
  }
}

/** A subscription that does not exist (or is another merchant's): answered the same way. */
export class SubscriptionNotFoundError extends AppError {
  readonly code = 'SUBSCRIPTION_NOT_FOUND';
  constructor() {
    super('Subscription not found');
  }
}

/** A change to a subscription that has ended. */
export class SubscriptionCanceledError extends AppError {
  readonly code = 'SUBSCRIPTION_CANCELED';
  constructor() {
    super('This subscription is canceled.');
  }
}

/** A cancellation now while a payment for the period is on its way (not final yet). */
export class SubscriptionPaymentPendingError extends AppError {
  readonly code = 'SUBSCRIPTION_PAYMENT_PENDING';
  constructor() {
    super("A payment for this period is on its way: cancel once it is final, or at the period's end.");
  }
}
