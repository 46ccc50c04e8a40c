import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { tokenKey } from '#shared/core/server-key';
import { logger } from '#shared/core/logger';
import type { AuditActor } from '#shared/domain/audit';
import { type ApiTokenSummary, legacyTokenHash, MAX_API_TOKENS, type MerchantProfile, profileOf, TOKEN_NAME_PATTERN } from '#shared/domain/merchant';
import {
  type ApiTokenLookup,
  deleteApiToken,
  findApiTokenByHash,
  insertApiToken,
  lastUsedTimes,
  listApiTokens as listStoredTokens,
  type StoredApiToken,
  touchApiToken,
} from '#shared/store/api-tokens';
import { findMerchant } from '#shared/store/merchants';

/** A random API token: 32 bytes (256 bits), base64url. */
export const generateApiToken = (): string => randomBytes(32).toString('base64url');

/** How an API token is stored and looked up: hex HMAC-SHA256 under the server's key. */
export async function apiTokenHash(token: string): Promise<string> {
  return createHmac('sha256', await tokenKey())
    .update(token, 'utf8')
    .digest('hex');
}

/** What authentication knows of a token: the merchant (without secrets) and the token's hash. */
export interface AuthenticatedToken {
  tokenHash: string;
  merchant: MerchantProfile;
}

/** A token's last use is written at most this often (one write per token and interval). */
const LAST_USE_RESOLUTION_MS = 10 * 60_000;

/**
 * The merchant whose API token is `token` (`hash` is its {@link apiTokenHash}): the token's
 * lookup item names the merchant, whose own item is then read, so a disabled merchant or a
 * changed setting is seen at once (the caller caches the answer for a few seconds).
 *
 * Merchants created before tokens were keyed have their token stored as a plain SHA-256: when
 * the keyed lookup misses, that one is tried, and a match is stored again under the keyed hash
 * (the legacy item is removed in the same transaction), so each such token is upgraded by its
 * first use that can write it (`upgrade`: a write route's; a read route's role may not, so it
 * passes none and the token stays as it was). An upgrade that cannot be written (a race lost)
 * leaves the legacy item in place for the next request; the caller is authenticated either way.
 */
export async function findMerchantByApiToken(token: string, hash: string, upgrade?: LegacyTokenUpgrade, now = new Date()): Promise<AuthenticatedToken | undefined> {
  const keyed = await findApiTokenByHash(hash);
  const found = keyed ?? (await findLegacyToken(token, hash, upgrade));
  if (!found) return undefined;
  const merchant = await findMerchant(found.userId);
  if (!merchant) return undefined;
  // The last use is kept on the keyed item: a legacy token not upgraded records its use when a write route upgrades it.
  if (found.tokenHash === hash && (!found.lastUsedAt || now.getTime() - Date.parse(found.lastUsedAt) >= LAST_USE_RESOLUTION_MS)) {
    await touchApiToken(found.tokenHash, now.toISOString()).catch((error: unknown) => {
      logger.warn('last use of an API token not recorded', { user_id: found.userId, error: (error as Error).name });
    });
  }
  // The stored hash, compared again by the caller; a legacy token's was compared by findLegacyToken.
  return { tokenHash: keyed?.tokenHash ?? hash, merchant: profileOf(merchant) };
}

/** Stores a legacy token again under its keyed hash (shared/store/api-tokens.ts's `rehashApiToken`). */
export type LegacyTokenUpgrade = (userId: number, legacyHash: string, hash: string) => Promise<void>;

async function findLegacyToken(token: string, hash: string, upgrade: LegacyTokenUpgrade | undefined): Promise<ApiTokenLookup | undefined> {
  const legacyHash = legacyTokenHash(token);
  const legacy = await findApiTokenByHash(legacyHash);
  if (!legacy || !timingSafeEqual(Buffer.from(legacy.tokenHash, 'hex'), Buffer.from(legacyHash, 'hex'))) return undefined;
  // Not upgraded: the token is found where it is stored (under its legacy hash).
  if (!upgrade) return legacy;
  try {
    await upgrade(legacy.userId, legacyHash, hash);
  } catch (error) {
    logger.info('legacy API token not upgraded; tried again on its next use', { user_id: legacy.userId, error: (error as Error).name });
  }
  return { tokenHash: hash, userId: legacy.userId };
}

/** A token as its creator sees it, once: the token itself is never shown again. */
export interface NewApiToken extends ApiTokenSummary {
  api_token: string;
}

/** How many of a token's first characters its list shows (about 36 of its 256 bits). */
const PREFIX_CHARS = 6;

/** A token's id: `tok_` and 12 random hex digits (not secret: it names the token in lists and logs). */
const newTokenId = (): string => `tok_${randomBytes(6).toString('hex')}`;

/** The items of a new token, ready to store: the token itself is returned once and never stored. */
export async function newStoredToken(name: string, apiToken: string, now: Date): Promise<StoredApiToken> {
  return {
    token_id: newTokenId(),
    name,
    prefix: apiToken.slice(0, PREFIX_CHARS),
    created_at: now.toISOString(),
    token_hash: await apiTokenHash(apiToken),
  };
}

/**
 * Makes a new named API token for a merchant (at most MAX_API_TOKENS at once): rotation
 * without downtime is making a new one, moving the shop to it, then revoking the old one.
 */
export async function createApiToken(userId: number, name: string, actor: AuditActor, now = new Date()): Promise<NewApiToken> {
  if (!TOKEN_NAME_PATTERN.test(name)) throw new RangeError('a token name is 1 to 64 letters, digits, spaces or ._-:/()@#');
  const apiToken = generateApiToken();
  const stored = await newStoredToken(name, apiToken, now);
  const refused = await insertApiToken(userId, stored, {
    at: now.toISOString(),
    action: 'token.created',
    ...actor,
    details: { token_id: stored.token_id, name },
  });
  if (refused === 'no-merchant') throw new MerchantNotFoundError(userId);
  if (refused === 'too-many') throw new RangeError(`a merchant holds at most ${MAX_API_TOKENS} API tokens: revoke one first`);
  const { token_hash: _hash, ...summary } = stored;
  return { ...summary, api_token: apiToken };
}

/** The id shown for a merchant's first token when it was stored before tokens had names. */
export const INITIAL_TOKEN_ID = 'initial';

/**
 * A merchant's API tokens, oldest first. A merchant created before tokens had names has its
 * first token listed as `initial` (no name or first characters were kept for it).
 */
export async function listApiTokens(userId: number): Promise<ApiTokenSummary[]> {
  const merchant = await findMerchant(userId);
  if (!merchant) throw new MerchantNotFoundError(userId);
  const tokens = await listStoredTokens(userId);
  const summaries: ApiTokenSummary[] = tokens.map(({ token_hash: _hash, ...summary }) => summary);
  const firstHash = merchant.token_hash;
  if (firstHash && !tokens.some((token) => token.token_hash === firstHash)) {
    const lastUsed = (await lastUsedTimes([firstHash])).get(firstHash);
    summaries.unshift({ token_id: INITIAL_TOKEN_ID, name: 'initial', created_at: merchant.created_at, ...(lastUsed ? { last_used_at: lastUsed } : {}) });
  }
  return summaries;
}

/**
 * Revokes a merchant's API token: its items are deleted at once; functions that authenticated
 * it moments before refuse it once their cache entry ends (AUTH_CACHE_SECONDS, 5 s by default).
 */
export async function revokeApiToken(userId: number, tokenId: string, actor: AuditActor, now = new Date()): Promise<void> {
  const merchant = await findMerchant(userId);
  if (!merchant) throw new MerchantNotFoundError(userId);
  const tokens = await listStoredTokens(userId);
  const listed = tokens.find((token) => token.token_id === tokenId);
  const firstHash = merchant.token_hash;
  const target =
    listed !== undefined
      ? { token_id: listed.token_id, token_hash: listed.token_hash, first: listed.token_hash === firstHash }
      : tokenId === INITIAL_TOKEN_ID && firstHash && !tokens.some((token) => token.token_hash === firstHash)
        ? { token_hash: firstHash, first: true }
        : undefined;
  if (!target) throw new TokenNotFoundError(tokenId);
  const audit = { at: now.toISOString(), action: 'token.revoked' as const, ...actor, details: { token_id: tokenId, name: listed?.name ?? 'initial' } };
  if (!(await deleteApiToken(userId, target, audit))) throw new TokenNotFoundError(tokenId);
}

/** No merchant has this user id. */
export class MerchantNotFoundError extends RangeError {
  constructor(userId: number) {
    super(`no merchant has user_id ${userId}`);
    this.name = 'MerchantNotFoundError';
  }
}

/** The merchant has no (more) token with this id. */
export class TokenNotFoundError extends RangeError {
  constructor(tokenId: string) {
    super(`the merchant has no API token ${tokenId}`);
    this.name = 'TokenNotFoundError';
  }
}
