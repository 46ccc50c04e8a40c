import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { isConditionFailure } from '#shared/store/errors';
import { challengeKey, ENTITY } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

type Item = Record<string, unknown>;
const epoch = (iso: string) => Math.ceil(Date.parse(iso) / 1000);

/** What a WebAuthn ceremony remembers between its options and its answer. */
export interface Challenge {
  kind: 'register' | 'sign-in' | 'add-passkey';
  /** register: the invite's hash and the user handle offered to the authenticator. */
  invite_hash?: string;
  webauthn_user_id?: string;
  /** add-passkey: the signed-in user. */
  user_id?: string;
  expires_at: string;
}

export async function insertChallenge(challenge: string, data: Challenge): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...challengeKey(challenge), type: ENTITY.challenge, ...data, [TABLE_KEYS.ttlAttribute]: epoch(data.expires_at) },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

/**
 * Takes a challenge out (it answers once): what it remembered, or undefined when it is
 * unknown, used or expired.
 */
export async function consumeChallenge(challenge: string, now: Date): Promise<Challenge | undefined> {
  try {
    const result = await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: challengeKey(challenge),
        ConditionExpression: 'attribute_exists(PK) AND expires_at > :now',
        ExpressionAttributeValues: { ':now': now.toISOString() },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const item: Item | undefined = result.Attributes;
    if (!item) return undefined;
    const { PK: _pk, SK: _sk, type: _type, [TABLE_KEYS.ttlAttribute]: _ttl, ...data } = item;
    return data as unknown as Challenge;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}
