import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { readSecureParameter } from '#shared/aws/parameters';
import { tokenKeyConfig } from '#shared/core/config';
import { ConfigError, type SecretSource } from '#shared/core/env';
import { logger } from '#shared/core/logger';
import { legacyTokenHash, type MerchantProfile } from '#shared/domain/merchant';
import { findMerchantByTokenHash, rehashApiToken } from '#shared/store/merchants';

/**
 * API tokens are stored as HMAC-SHA256 under a server-side key, never as themselves: a leaked
 * table without the key gives no way to test guesses, so even a short token a merchant chose
 * (`--token`, DEMO_API_TOKEN) stays safe. Generated tokens are 256-bit random anyway.
 *
 * The key comes from TOKEN_HMAC_KEY_PARAMETER (an SSM SecureString, AWS), TOKEN_HMAC_KEY_FILE
 * (local: created with 32 random bytes, mode 0600, on first use) or TOKEN_HMAC_KEY; it is read
 * once per process (cold start). Changing it makes every stored token unknown.
 */
const MIN_KEY_CHARS = 32;

let key: Promise<Buffer> | undefined;

function tokenKey(): Promise<Buffer> {
  key ??= loadKey(tokenKeyConfig().source).catch((error: unknown) => {
    key = undefined; // a failed read (SSM throttled, a file being written) is tried again next time
    throw error;
  });
  return key;
}

async function loadKey(source: SecretSource): Promise<Buffer> {
  const text =
    source.kind === 'parameter' ? await readSecureParameter(source.ref) : source.kind === 'file' ? await readOrCreateKeyFile(source.ref) : source.ref;
  const trimmed = text.trim();
  if (trimmed.length < MIN_KEY_CHARS) throw new ConfigError(`${source.variable}: the token key must be at least ${MIN_KEY_CHARS} characters`);
  return Buffer.from(trimmed, 'utf8');
}

/**
 * The key file's text, creating it first if it does not exist: written in full to a private
 * temporary file and then linked into place, so a second process never reads a half-written
 * key, and of two processes creating it at once exactly one wins (the other reads its key).
 */
async function readOrCreateKeyFile(path: string): Promise<string> {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
  return readFile(path, 'utf8');
}

/** How an API token is stored and looked up: hex HMAC-SHA256 under the server's key. */
export async function apiTokenHash(token: string): Promise<string> {
  return createHmac('sha256', await tokenKey()).update(token, 'utf8').digest('hex');
}

/**
 * The merchant whose API token is `token` (`hash` is its {@link apiTokenHash}). Merchants
 * created before tokens were keyed have their token stored as a plain SHA-256: when the keyed
 * lookup misses, that one is tried, and a match is stored again under the keyed hash (the
 * legacy item is removed in the same transaction), so each such token is upgraded by its first
 * use. An upgrade that cannot be written (a read-only function's role, a lost race) leaves the
 * legacy item in place for the next request; the caller is authenticated either way.
 */
export async function findMerchantByApiToken(
  token: string,
  hash: string,
): Promise<{ tokenHash: string; merchant: MerchantProfile } | undefined> {
  const found = await findMerchantByTokenHash(hash);
  if (found) return found;
  const legacyHash = legacyTokenHash(token);
  const legacy = await findMerchantByTokenHash(legacyHash);
  if (!legacy || !timingSafeEqual(Buffer.from(legacy.tokenHash, 'hex'), Buffer.from(legacyHash, 'hex'))) return undefined;
  try {
    await rehashApiToken(legacy.merchant, legacyHash, hash);
  } catch (error) {
    logger.info('legacy API token not upgraded; tried again on its next use', { user_id: legacy.merchant.user_id, error: (error as Error).name });
  }
  return { tokenHash: hash, merchant: legacy.merchant };
}
