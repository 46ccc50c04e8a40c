import { timingSafeEqual } from 'node:crypto';
import { AuthenticationError } from '#shared/domain/errors';
import { type MerchantProfile, TOKEN_PATTERN } from '#shared/domain/merchant';
import { apiTokenHash, type AuthenticatedToken, findMerchantByApiToken, type LegacyTokenUpgrade } from '#shared/services/api-tokens';
import { ExpiringCache } from '#shared/core/cache';
import { authConfig } from '#shared/core/config';

/**
 * Known tokens are remembered per process for AUTH_CACHE_SECONDS (default 5; 0 disables), as
 * API Gateway authorizers cache theirs: a warm function serving a busy merchant reads the
 * table twice every few seconds instead of twice per request. A revoked token, or the token
 * of a merchant just disabled, keeps working in a warm function for at most that long.
 */
let cache: ExpiringCache<string, AuthenticatedToken> | undefined;

function lookup(token: string, hash: string, upgrade: LegacyTokenUpgrade | undefined): Promise<AuthenticatedToken | undefined> {
  cache ??= new ExpiringCache({ maxEntries: 1000, maxAgeMs: authConfig().cacheSeconds * 1000 });
  // Read and write routes remember apart: a legacy token a read route found (not upgraded) is upgraded by the next write route of the same process (the local runtime's).
  return cache.getOrLoad(upgrade ? `w${hash}` : `r${hash}`, () => findMerchantByApiToken(token, hash, upgrade));
}

/**
 * The merchant owning the API token of the `token` header, or AuthenticationError (401).
 * The lookup is by keyed hash (shared/services/api-tokens.ts), so response timing says nothing about how close a guess was; the
 * stored hash is compared again in constant time as a second check. `upgrade` stores a legacy
 * token under its keyed hash (write routes only: a read route's role may not write it).
 */
export async function authenticate(token: string | undefined, upgrade?: LegacyTokenUpgrade): Promise<MerchantProfile> {
  if (!token || !TOKEN_PATTERN.test(token)) throw new AuthenticationError();
  const hash = await apiTokenHash(token);
  const found = await lookup(token, hash, upgrade);
  if (!found || !timingSafeEqual(Buffer.from(found.tokenHash, 'hex'), Buffer.from(hash, 'hex'))) {
    throw new AuthenticationError();
  }
  if (found.merchant.disabled) throw new AuthenticationError('The merchant account is disabled');
  return found.merchant;
}
