import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '#shared/domain/audit';
import { type Merchant, profileOf } from '#shared/domain/merchant';
import { apiTokenPuts, type StoredApiToken } from '#shared/store/api-tokens';
import { auditPut, writeAudited } from '#shared/store/audit';
import { db, tableName } from '#shared/store/client';
import { batchGetAll } from '#shared/store/batches';
import { currentCounterValue, nextCounterValue } from '#shared/store/counters';
import { apiTokenKey, ENTITY, merchantKey } from '#shared/store/keys';

/**
 * Stores a new merchant with its first API token in one transaction: with `initial` (what
 * createMerchant gives), the token's lookup and listing items and the audit entry; without it
 * (merchants as versions before named tokens stored them), a lookup item carrying the profile.
 */
export async function insertMerchant(input: Omit<Merchant, 'user_id'>, initial?: { token: StoredApiToken; audit: AuditEntry }): Promise<Merchant> {
  const merchant: Merchant = { ...input, user_id: await nextCounterValue('merchant') };
  const tokenItems = initial
    ? [...apiTokenPuts(merchant.user_id, initial.token), auditPut(merchant.user_id, initial.audit)]
    : [
        {
          Put: {
            TableName: tableName(),
            Item: { ...apiTokenKey(merchant.token_hash!), type: ENTITY.apiToken, token_hash: merchant.token_hash, merchant: profileOf(merchant) },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      ];
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: { ...merchantKey(merchant.user_id), type: ENTITY.merchant, ...merchant, ...(initial ? { token_count: 1 } : {}) },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        ...tokenItems,
      ],
    }),
  );
  return merchant;
}

/** The fields of a merchant an update may set (the rest are fixed at creation). */
export type MerchantChanges = Partial<
  Pick<
    Merchant,
    | 'name'
    | 'receive_currency'
    | 'gateways'
    | 'payment_tolerance_percent'
    | 'callback_statuses'
    | 'xpubs'
    | 'wallets'
    | 'disabled'
    | 'callback_secret'
    | 'previous_callback_secret'
    | 'previous_callback_secret_until'
  >
>;

/**
 * Sets `changes` on an existing merchant with the audit entry, in one transaction; `expected`
 * makes it conditional on fields still holding the values read before (a roll of the callback
 * secret expects the secret it replaces). False when the merchant is gone or `expected` no longer holds.
 */
export async function updateMerchant(userId: number, changes: MerchantChanges, audit: AuditEntry, expected: Partial<Record<keyof MerchantChanges, string>> = {}): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(changes).map(([field, value], index) => {
    names[`#s${index}`] = field;
    values[`:s${index}`] = value;
    return `#s${index} = :s${index}`;
  });
  const conditions = ['attribute_exists(PK)'].concat(
    Object.entries(expected).map(([field, value], index) => {
      names[`#e${index}`] = field;
      values[`:e${index}`] = value;
      return `#e${index} = :e${index}`;
    }),
  );
  const update = {
    Update: {
      TableName: tableName(),
      Key: merchantKey(userId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
  return writeAudited(userId, [update], audit);
}

/**
 * Every merchant, by user id: ids come from one counter, so the items are read by key in
 * batches of 100 (no scan). For the operator's CLI.
 */
export async function listMerchants(): Promise<Merchant[]> {
  const last = await currentCounterValue('merchant');
  const merchants: Merchant[] = [];
  for (let first = 1; first <= last; first += 100) {
    const keys = Array.from({ length: Math.min(100, last - first + 1) }, (_, index) => merchantKey(first + index));
    for (const item of await batchGetAll(keys)) merchants.push(merchantOf(item));
  }
  return merchants.sort((a, b) => a.user_id - b.user_id);
}

function merchantOf(item: Record<string, unknown>): Merchant {
  const { PK: _pk, SK: _sk, type: _type, token_count: _count, ...merchant } = item;
  return merchant as unknown as Merchant;
}

export async function findMerchant(userId: number): Promise<Merchant | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: merchantKey(userId) }));
  return result.Item ? merchantOf(result.Item) : undefined;
}
