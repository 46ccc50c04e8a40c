import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '#shared/domain/audit';
import { type ApiTokenSummary, MAX_API_TOKENS } from '#shared/domain/merchant';
import { writeAudited } from '#shared/store/audit';
import { db, tableName } from '#shared/store/client';
import { batchGetAll } from '#shared/store/batches';
import { isConditionFailure } from '#shared/store/errors';
import { API_TOKEN_LISTING_PREFIX, apiTokenKey, apiTokenListingKey, ENTITY, merchantKey } from '#shared/store/keys';

/** A named token as stored: its summary and its keyed hash (never the token). */
export interface StoredApiToken extends ApiTokenSummary {
  token_hash: string;
}

/**
 * The two items of a token: the lookup item authentication reads (by keyed hash; it names the
 * merchant and the token) and the listing item in the merchant's partition.
 */
export function apiTokenPuts(userId: number, token: StoredApiToken) {
  return [
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...apiTokenKey(token.token_hash),
          type: ENTITY.apiToken,
          token_hash: token.token_hash,
          token_id: token.token_id,
          merchant: { user_id: userId },
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: { ...apiTokenListingKey(userId, token.token_id), type: ENTITY.apiTokenListing, user_id: userId, ...token },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
  ];
}

/** Why a token was not stored. */
export type InsertTokenRefusal = 'no-merchant' | 'too-many';

/**
 * Stores a new token of an existing merchant with its audit entry, in one transaction that
 * also counts the merchant's tokens (at most MAX_API_TOKENS). Returns why it was refused, or
 * undefined when stored.
 */
export async function insertApiToken(userId: number, token: StoredApiToken, audit: AuditEntry): Promise<InsertTokenRefusal | undefined> {
  const counted = {
    Update: {
      TableName: tableName(),
      Key: merchantKey(userId),
      UpdateExpression: 'ADD token_count :one',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(token_count) OR token_count < :max)',
      ExpressionAttributeValues: { ':one': 1, ':max': MAX_API_TOKENS },
    },
  };
  if (await writeAudited(userId, [counted, ...apiTokenPuts(userId, token)], audit)) return undefined;
  const merchant = await db().send(new GetCommand({ TableName: tableName(), Key: merchantKey(userId), ProjectionExpression: 'PK' }));
  return merchant.Item ? 'too-many' : 'no-merchant';
}

/** A merchant's named tokens, oldest first, with when each was last used. */
export async function listApiTokens(userId: number): Promise<StoredApiToken[]> {
  const listed = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': merchantKey(userId).PK, ':prefix': API_TOKEN_LISTING_PREFIX },
    }),
  );
  const tokens = (listed.Items ?? []).map(({ token_id, name, prefix, created_at, token_hash }) => ({ token_id, name, prefix, created_at, token_hash }) as StoredApiToken);
  const lastUsed = await lastUsedTimes(tokens.map((token) => token.token_hash));
  return tokens.map((token) => ({ ...token, ...(lastUsed.has(token.token_hash) ? { last_used_at: lastUsed.get(token.token_hash) } : {}) })).sort((a, b) => a.created_at.localeCompare(b.created_at));
}

/** When each token was last used, read from the lookup items (where authentication records it). */
export async function lastUsedTimes(hashes: string[]): Promise<Map<string, string>> {
  const times = new Map<string, string>();
  for (const item of await batchGetAll(hashes.map(apiTokenKey), { projection: 'token_hash, last_used_at' })) {
    if (typeof item.last_used_at === 'string') times.set(String(item.token_hash), item.last_used_at);
  }
  return times;
}

/**
 * Removes a token: its listing item (if it has one), its lookup item, one from the merchant's
 * count, and, when it is the merchant's first token (`token_hash` on the merchant item), that
 * field too; with the audit entry, in one transaction. False when the token was not there (already revoked).
 */
export async function deleteApiToken(userId: number, token: { token_id?: string; token_hash: string; first: boolean }, audit: AuditEntry): Promise<boolean> {
  const merchantUpdate = token.first
    ? {
        UpdateExpression: token.token_id ? 'REMOVE token_hash ADD token_count :minus' : 'REMOVE token_hash',
        ConditionExpression: 'token_hash = :hash',
        ExpressionAttributeValues: { ':hash': token.token_hash, ...(token.token_id ? { ':minus': -1 } : {}) },
      }
    : { UpdateExpression: 'ADD token_count :minus', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':minus': -1 } };
  return writeAudited(
    userId,
    [
      ...(token.token_id ? [{ Delete: { TableName: tableName(), Key: apiTokenListingKey(userId, token.token_id), ConditionExpression: 'attribute_exists(PK)' } }] : []),
      { Delete: { TableName: tableName(), Key: apiTokenKey(token.token_hash), ConditionExpression: 'attribute_exists(PK)' } },
      { Update: { TableName: tableName(), Key: merchantKey(userId), ...merchantUpdate } },
    ],
    audit,
  );
}

/** Records that a token was used (the lookup item exists: a revoked token is not brought back). */
export async function touchApiToken(tokenHash: string, at: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: apiTokenKey(tokenHash),
        UpdateExpression: 'SET last_used_at = :at',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':at': at },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** What authentication reads of a token: one GetItem of its lookup item. */
export interface ApiTokenLookup {
  tokenHash: string;
  userId: number;
  /** Absent for a merchant's first token stored before tokens had names. */
  tokenId?: string;
  lastUsedAt?: string;
}

/** The token whose keyed hash is `tokenHash`, or undefined (never issued, or revoked). */
export async function findApiTokenByHash(tokenHash: string): Promise<ApiTokenLookup | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: apiTokenKey(tokenHash) }));
  const item = result.Item;
  if (!item) return undefined;
  return {
    tokenHash: String(item.token_hash),
    userId: Number((item.merchant as { user_id: number }).user_id),
    ...(typeof item.token_id === 'string' ? { tokenId: item.token_id } : {}),
    ...(typeof item.last_used_at === 'string' ? { lastUsedAt: item.last_used_at } : {}),
  };
}

/**
 * Moves a merchant's first API token item from `oldHash` to `newHash` (the token is the same,
 * its stored hash changes): the new item, the old one's removal and the merchant's
 * `token_hash` in one transaction, each conditional on the old hash still being current, so
 * two upgrades racing leave exactly one item. Throws when it was not written (a race lost, no permission).
 */
export async function rehashApiToken(userId: number, oldHash: string, newHash: string): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: { ...apiTokenKey(newHash), type: ENTITY.apiToken, token_hash: newHash, merchant: { user_id: userId } },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        {
          Delete: {
            TableName: tableName(),
            Key: apiTokenKey(oldHash),
            ConditionExpression: 'token_hash = :old',
            ExpressionAttributeValues: { ':old': oldHash },
          },
        },
        {
          Update: {
            TableName: tableName(),
            Key: merchantKey(userId),
            UpdateExpression: 'SET token_hash = :new',
            ConditionExpression: 'token_hash = :old',
            ExpressionAttributeValues: { ':old': oldHash, ':new': newHash },
          },
        },
      ],
    }),
  );
}
