import { createHash } from 'node:crypto';
import { IdempotencyInProgressError, IdempotencyKeyReusedError, InvalidParameterError, OrderDoesNotExistError, OrderNotFoundError, UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import { JSON_HEADERS } from '#shared/http/responses';
import { merchantOf } from '#shared/http/middlewares/token-auth';
import type { Event, Middleware, Request } from '#shared/http/middlewares/types';
import { logger } from '#shared/core/logger';
import { type RetryPolicy, withRetries } from '#shared/core/retry';
import { type Claim, complete, release, reserve } from '#shared/store/idempotency';

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/**
 * How long a key is held past its function's deadline before a retry may take it over: a
 * request still running then has been stopped (Lambda ends a function at its timeout), and
 * the last write it sent has landed. Without a context (a direct call), a minute.
 */
const LEASE_MARGIN_SECONDS = 2;
const LEASE_WITHOUT_DEADLINE_SECONDS = 60;
/** The key's last write (keeping the answer, or giving the key back): tried again while the store fails, beyond the SDK's own retries. */
const SETTLE_POLICY: RetryPolicy = { attempts: 3, baseDelayMs: 50 };

const leaseSeconds = (request: Request): number => {
  const remaining = request.context?.getRemainingTimeInMillis?.();
  return remaining === undefined ? LEASE_WITHOUT_DEADLINE_SECONDS : Math.ceil(remaining / 1000) + LEASE_MARGIN_SECONDS;
};

/**
 * The key's last write, tried again while the store fails. Never throws: the request's answer
 * stands either way. A key whose answer could not be kept stays held until its lease runs out
 * (a retry is told when, 409 with Retry-After).
 */
async function settle(write: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await withRetries(SETTLE_POLICY, { retried: () => true }, write);
  } catch (error) {
    logger.warn('idempotency key not settled', { what, cause: String(error) });
  }
}

/**
 * "No such order" in any of its forms (another merchant's order reads the same): a key sent
 * with it is not kept, so requests for orders that never existed (or are not the caller's)
 * leave nothing in the table.
 */
const isMissingOrder = (error: unknown): boolean => error instanceof UnknownOrderError || error instanceof OrderDoesNotExistError || error instanceof OrderNotFoundError;

/** The request a key stands for: path and (parsed) body, so the same JSON reads the same. */
function fingerprint(event: Event): string {
  return createHash('sha256')
    .update(`${event.rawPath}\n${JSON.stringify(event.body ?? null)}`)
    .digest('hex');
}

/**
 * Whose keys a request's key is among: the merchant's; on the page's public calls one scope per
 * path, hashed so that any path (however long) makes a key DynamoDB accepts. Anonymous callers
 * store nothing for ids we never issued (undefined: the key is not kept).
 */
function scopeOf(event: Event): string | undefined {
  const merchant = merchantOf(event);
  if (merchant) return `M${merchant.user_id}`;
  if (!Object.values(event.pathParameters ?? {}).every(isId)) return undefined;
  return `P${createHash('sha256').update(event.rawPath).digest('hex').slice(0, 32)}`;
}

/**
 * `Idempotency-Key` on POSTs, as Stripe does: the same key with the same request returns the
 * first answer without doing the work again; with a different request it is a 422; while
 * the first is still running, a 409 with Retry-After (the seconds until the first's lease runs
 * out: then it has ended, and a retry may take the key over). Keys are kept 24 hours, per merchant (`scope`). Answers
 * of 5xx and 409 are not kept, so a retry after a server failure or a lost race runs again;
 * nor is a key whose order does not exist (or is not the caller's): records only for real orders.
 */
/** The key each request holds (one claim a request). */
const active = new WeakMap<Event, Claim>();

/**
 * The Idempotency-Key the request holds, hashed with its scope: what a use case keeps on what
 * it makes, so that a retry whose first try made it and then failed knows it for its own.
 */
export function requestKeyOf(event: Event): string | undefined {
  const claim = active.get(event);
  return claim && createHash('sha256').update(`${claim.scope}\n${claim.key}`).digest('hex').slice(0, 32);
}

export function idempotency(): Middleware {
  const finish = async (request: Request) => {
    const claim = active.get(request.event);
    if (!claim || !request.response) return;
    active.delete(request.event);
    const { statusCode = 200, body = '' } = request.response;
    // Not kept: a server failure, or a 409 (another write won a race; nothing was done and
    // the answer says to retry), so a retry with the key runs again instead of replaying it.
    // This includes a claim whose Put failed: it may have landed with its answer lost.
    if (statusCode >= 500 || statusCode === 409 || isMissingOrder(request.error)) await settle(() => release(claim), 'release');
    else await settle(() => complete(claim, { statusCode, body }), 'complete');
  };
  return {
    before: async (request: Request) => {
      const key = request.event.headers?.['idempotency-key'];
      if (key === undefined || request.event.requestContext?.http?.method !== 'POST') return undefined;
      if (!KEY_PATTERN.test(key)) throw new InvalidParameterError('Idempotency-Key must be 1 to 255 printable ASCII characters');
      const scope = scopeOf(request.event);
      if (scope === undefined) return undefined;
      const hash = fingerprint(request.event);
      const now = new Date();
      // The claim is known before its Put is sent: a Put that fails after landing is given back.
      const reservation = await reserve(scope, key, hash, now, leaseSeconds(request), (claim) => active.set(request.event, claim));
      if (reservation.kind === 'reserved') return undefined;
      active.delete(request.event);
      if (reservation.requestHash !== hash) throw new IdempotencyKeyReusedError();
      if (reservation.kind === 'in-progress') throw new IdempotencyInProgressError(Math.max(1, reservation.leaseUntil - Math.floor(now.getTime() / 1000)));
      return {
        statusCode: reservation.response.statusCode,
        headers: { ...JSON_HEADERS, 'idempotent-replayed': 'true' },
        body: reservation.response.body,
      };
    },
    after: finish,
    onError: finish,
  };
}
