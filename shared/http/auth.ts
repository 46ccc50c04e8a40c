import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthenticationError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { findMerchantByTokenHash } from '#shared/store/merchants';
import { nonNegativeInteger } from '#shared/env';

/**
 * Known tokens are remembered per process for AUTH_CACHE_SECONDS (default 30; 0 disables),
 * as API Gateway authorizers cache theirs: a warm function then reads the table once per
 * request instead of twice. A revoked token keeps working for at most that long.
 */
const cacheMillis = nonNegativeInteger(process.env, 'AUTH_CACHE_SECONDS', 30) * 1000;
const CACHE_LIMIT = 1000;
const cache = new Map<string, { merchant: MerchantProfile; until: number }>();

async function lookup(hash: string): Promise<{ tokenHash: string; merchant: MerchantProfile } | undefined> {
  const now = Date.now();
  const cached = cache.get(hash);
  if (cached && cached.until > now) return { tokenHash: hash, merchant: cached.merchant };
  const found = await findMerchantByTokenHash(hash);
  if (found && cacheMillis > 0) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(hash, { merchant: found.merchant, until: now + cacheMillis });
  }
  return found;
}

/** Tokens are stored only as this hash (hex SHA-256): a leaked table leaks no usable token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What an API token may look like (checked before any read). */
export const TOKEN_PATTERN = /^[\x21-\x7e]{16,256}$/;

/**
 * The merchant owning the API token of the `token` header, or AuthenticationError (401).
 * The lookup is by hash, so response timing says nothing about how close a guess was; the
 * stored hash is compared again in constant time as a second check.
 */
export async function authenticate(token: string | undefined): Promise<MerchantProfile> {
  if (!token || !TOKEN_PATTERN.test(token)) throw new AuthenticationError();
  const hash = hashToken(token);
  const found = await lookup(hash);
  if (!found || !timingSafeEqual(Buffer.from(found.tokenHash, 'hex'), Buffer.from(hash, 'hex'))) {
    throw new AuthenticationError();
  }
  return found.merchant;
}
