import { ServiceUnavailableError } from '#shared/domain/errors';

/** DynamoDB answered that a condition of a write (or of one action of a transaction) failed. */
export function isConditionFailure(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  return name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException';
}

/** For a cancelled transaction: the reason code of each action, in order ('None' if it passed). */
export function cancellationReasons(error: unknown): string[] {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code ?? 'None');
}

/** A cancelled transaction lost a race with another one on the same item: safe to retry. */
export function isTransactionConflict(error: unknown): boolean {
  return cancellationReasons(error).includes('TransactionConflict');
}

/**
 * Failures that pass: throttling, the store's own errors, and a plain write that met another
 * request's transaction on its item (TransactionConflictException: nothing was written, and
 * the SDK does not retry it). The client may retry after a moment (503 with Retry-After).
 */
const UNAVAILABLE_NAMES = new Set([
  'TransactionConflictException',
  'TransactionInProgressException',
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'RequestTimeout',
]);
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND']);

/** Turns "the store is down or throttling" into a retryable 503; other errors pass through. */
export function asStoreError(error: unknown): unknown {
  const { name, code, $fault } = (error ?? {}) as { name?: string; code?: string; $fault?: string };
  if ((name && UNAVAILABLE_NAMES.has(name)) || (code && UNAVAILABLE_CODES.has(code)) || $fault === 'server') {
    return new ServiceUnavailableError(error);
  }
  return error;
}
