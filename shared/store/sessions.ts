import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Session } from '#shared/domain/portal';
import { db, tableName } from '#shared/store/client';
import { ENTITY, sessionKey } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

type Item = Record<string, unknown>;

/** A session item: removed by TTL after it expires (reads check `expires_at` too, TTL is lazy). */
export const sessionItem = (idHash: string, session: Session): Item => ({
  ...sessionKey(idHash),
  type: ENTITY.session,
  ...session,
  [TABLE_KEYS.ttlAttribute]: Math.ceil(Date.parse(session.expires_at) / 1000),
});

export async function insertSession(idHash: string, session: Session): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: sessionItem(idHash, session), ConditionExpression: 'attribute_not_exists(PK)' }));
}

export async function findSession(idHash: string): Promise<Session | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: sessionKey(idHash), ConsistentRead: true }));
  if (!result.Item) return undefined;
  const { PK: _pk, SK: _sk, type: _type, [TABLE_KEYS.ttlAttribute]: _ttl, ...session } = result.Item;
  return session as Session;
}

/** Ends a session (sign-out, or the old session at a sign-in's rotation). Deleting a missing one is fine. */
export async function deleteSession(idHash: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: sessionKey(idHash) }));
}
