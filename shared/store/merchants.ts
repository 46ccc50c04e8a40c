import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Merchant, MerchantProfile } from '#shared/domain/merchant';
import { db, tableName } from '#shared/store/client';
import { nextCounterValue } from '#shared/store/counters';
import { apiTokenKey, ENTITY, merchantKey } from '#shared/store/keys';

function profileOf(merchant: Merchant): MerchantProfile {
  const { token_hash: _hash, callback_secret: _secret, ...profile } = merchant;
  return profile;
}

/**
 * Stores a new merchant and its API token lookup item in one transaction. The token item
 * carries the merchant's profile (not its secret), so authenticating a request is one read.
 */
export async function insertMerchant(input: Omit<Merchant, 'user_id'>): Promise<Merchant> {
  const merchant: Merchant = { ...input, user_id: await nextCounterValue('merchant') };
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: { ...merchantKey(merchant.user_id), type: ENTITY.merchant, ...merchant },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...apiTokenKey(merchant.token_hash),
              type: ENTITY.apiToken,
              token_hash: merchant.token_hash,
              merchant: profileOf(merchant),
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      ],
    }),
  );
  return merchant;
}

/** The merchant whose API token hashes to `tokenHash` (one GetItem), or undefined. */
export async function findMerchantByTokenHash(
  tokenHash: string,
): Promise<{ tokenHash: string; merchant: MerchantProfile } | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: apiTokenKey(tokenHash) }));
  if (!result.Item) return undefined;
  return { tokenHash: String(result.Item.token_hash), merchant: result.Item.merchant as MerchantProfile };
}

/**
 * Moves a merchant's API token item from `oldHash` to `newHash` (the token is the same, its
 * stored hash changes): the new item, the old one's removal and the merchant's `token_hash`
 * in one transaction, each conditional on the old hash still being current, so two upgrades
 * racing leave exactly one item. Throws when it was not written (a race lost, no permission).
 */
export async function rehashApiToken(merchant: MerchantProfile, oldHash: string, newHash: string): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: { ...apiTokenKey(newHash), type: ENTITY.apiToken, token_hash: newHash, merchant },
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
            Key: merchantKey(merchant.user_id),
            UpdateExpression: 'SET token_hash = :new',
            ConditionExpression: 'token_hash = :old',
            ExpressionAttributeValues: { ':old': oldHash, ':new': newHash },
          },
        },
      ],
    }),
  );
}

export async function findMerchant(userId: number): Promise<Merchant | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: merchantKey(userId) }));
  if (!result.Item) return undefined;
  const { PK: _pk, SK: _sk, type: _type, ...merchant } = result.Item;
  return merchant as Merchant;
}
