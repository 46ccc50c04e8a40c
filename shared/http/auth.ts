import { createHash, timingSafeEqual } from 'node:crypto';
import { AuthenticationError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { findMerchantByTokenHash } from '#shared/store/merchants';

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
  const found = await findMerchantByTokenHash(hash);
  if (!found || !timingSafeEqual(Buffer.from(found.tokenHash, 'hex'), Buffer.from(hash, 'hex'))) {
    throw new AuthenticationError();
  }
  return found.merchant;
}
