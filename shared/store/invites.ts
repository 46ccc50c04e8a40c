import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Invite } from '#shared/domain/portal';
import { db, tableName } from '#shared/store/client';
import { ENTITY, inviteKey } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

const epoch = (iso: string) => Math.ceil(Date.parse(iso) / 1000);

/** Stores an invite by its token's hash; DynamoDB removes it a week after it expires. */
export async function insertInvite(tokenHash: string, invite: Invite): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...inviteKey(tokenHash), type: ENTITY.invite, ...invite, [TABLE_KEYS.ttlAttribute]: epoch(invite.expires_at) + 7 * 86_400 },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

export async function findInvite(tokenHash: string): Promise<Invite | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: inviteKey(tokenHash), ConsistentRead: true }));
  if (!result.Item) return undefined;
  const { PK: _pk, SK: _sk, type: _type, [TABLE_KEYS.ttlAttribute]: _ttl, ...invite } = result.Item;
  return invite as Invite;
}

