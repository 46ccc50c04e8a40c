import { quotaConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { AuthenticationError, RateLimitedError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { authenticate } from '#shared/http/auth';
import type { LegacyTokenUpgrade } from '#shared/services/api-tokens';
import { requestSlot } from '#shared/http/middlewares/slot';
import type { Event, Middleware } from '#shared/http/middlewares/types';
import { clientAddressKey, takeFromWindow } from '#shared/store/quotas';

/** The quota key of a client address's failed authentications. */
export const authFailureClient = (address: string): string => `A${clientAddressKey(address)}`;

/**
 * Counts a failed authentication against its client address (QUOTA_STORE=table, as in AWS and
 * the local runtime: in the table, one conditional write per failure, none for a success) and
 * answers the error to throw: the 401 while the address is within its budget, a 429 with Retry-After past it. Only failures are
 * counted and only failures are refused, so a good token from the same address (a shop behind
 * the same NAT as an attacker) always goes through. If the table cannot count, the 401 stands.
 */
export async function failedAuthentication(event: Event, error: unknown): Promise<unknown> {
  const config = quotaConfig();
  if (!(error instanceof AuthenticationError) || config.store !== 'table' || config.authFailures.limit === 0) return error;
  try {
    const taken = await takeFromWindow(authFailureClient(event.requestContext?.http?.sourceIp ?? 'unknown'), config.authFailures);
    return taken.allowed ? error : new RateLimitedError(taken.retryAfterSeconds);
  } catch (storeError) {
    logger.warn('failed authentication not counted', { error: String(storeError) });
    return error;
  }
}

const merchants = requestSlot<MerchantProfile>();

/** The merchant the request's API token names, once {@link tokenAuth} has run (undefined on public routes). */
export const merchantOf = merchants.get;

/**
 * The merchant API's authentication: the `token` header must name a merchant
 * (shared/http/auth.ts: the keyed lookup and its cache), else 401, counted by
 * {@link failedAuthentication}. `upgrade` (write routes) stores a legacy token under its keyed hash.
 */
export const tokenAuth = (upgrade?: LegacyTokenUpgrade): Middleware => ({
  before: async ({ event }) => {
    try {
      merchants.set(event, await authenticate(event.headers?.token, upgrade));
    } catch (error) {
      throw await failedAuthentication(event, error);
    }
  },
});
