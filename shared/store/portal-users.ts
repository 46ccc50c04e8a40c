import { DeleteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '#shared/domain/audit';
import type { Passkey, PortalUser, Role, Session } from '#shared/domain/portal';
import { auditPut, writeAudited } from '#shared/store/audit';
import { db, tableName } from '#shared/store/client';
import { cancellationReasons, isConditionFailure } from '#shared/store/errors';
import { ENTITY, inviteKey, merchantUsersIndexKey, merchantUsersPartition, passkeyKey, portalUserKey, recoveryCodeKey, userPasskeysIndexKey, userPasskeysPartition } from '#shared/store/keys';
import { sessionItem } from '#shared/store/sessions';

type Item = Record<string, unknown>;

const strip = <T>(item: Item, ...extra: string[]): T => {
  const copy: Item = { ...item };
  for (const name of ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'type', ...extra]) delete copy[name];
  return copy as T;
};

export const userItem = (user: PortalUser): Item => ({
  ...portalUserKey(user.user_id),
  ...merchantUsersIndexKey(user.merchant_id, user.created_at, user.user_id),
  type: ENTITY.portalUser,
  ...user,
});

export const passkeyItem = (passkey: Passkey): Item => ({
  ...passkeyKey(passkey.credential_id),
  ...userPasskeysIndexKey(passkey.user_id, passkey.created_at),
  type: ENTITY.passkey,
  ...passkey,
});

const recoveryItems = (userId: string, hashes: readonly string[]): Item[] => hashes.map((hash) => ({ ...recoveryCodeKey(hash), type: ENTITY.recoveryCode, user_id: userId }));

export async function findPortalUser(userId: string): Promise<PortalUser | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: portalUserKey(userId), ConsistentRead: true }));
  return result.Item ? strip<PortalUser>(result.Item) : undefined;
}

export async function findPasskey(credentialId: string): Promise<Passkey | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: passkeyKey(credentialId), ConsistentRead: true }));
  return result.Item ? strip<Passkey>(result.Item) : undefined;
}

/** A user's passkeys (a handful: one Query of the user's index partition). */
export async function listPasskeys(userId: string): Promise<Passkey[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': userPasskeysPartition(userId) },
      Limit: 50,
    }),
  );
  return (result.Items ?? []).map((item) => strip<Passkey>(item));
}

/** Why a registration by invite was refused. */
export type RegistrationRefusal = 'invite-unusable' | 'passkey-exists';

/**
 * A user arriving by invite, in one transaction: the invite is marked used (only if unused and
 * not expired: it works once), the user, their first passkey, their recovery codes (hashes) and
 * their first session are written. Returns the refusal when a condition failed.
 */
export async function insertRegisteredUser(change: {
  inviteHash: string;
  now: Date;
  user: PortalUser;
  passkey: Passkey;
  recoveryHashes: readonly string[];
  sessionHash: string;
  session: Session;
  /** The `member.joined` entry of the merchant's audit log. */
  audit: AuditEntry;
}): Promise<RegistrationRefusal | undefined> {
  const put = (Item: Item, ConditionExpression = 'attribute_not_exists(PK)') => ({ Put: { TableName: tableName(), Item, ConditionExpression } });
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: inviteKey(change.inviteHash),
              UpdateExpression: 'SET used_at = :now, used_by = :user',
              ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(used_at) AND expires_at > :now',
              ExpressionAttributeValues: { ':now': change.now.toISOString(), ':user': change.user.user_id },
            },
          },
          put(userItem(change.user)),
          put(passkeyItem(change.passkey)),
          ...recoveryItems(change.user.user_id, change.recoveryHashes).map((item) => put(item)),
          put(sessionItem(change.sessionHash, change.session)),
          auditPut(change.user.merchant_id, change.audit),
        ],
      }),
    );
    return undefined;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const reasons = cancellationReasons(error);
    if (reasons[0] === 'ConditionalCheckFailed') return 'invite-unusable';
    if (reasons[2] === 'ConditionalCheckFailed') return 'passkey-exists';
    throw error;
  }
}

/** Adds a passkey to a signed-in user with its audit entry (refused when the credential is registered already). */
export async function insertPasskey(passkey: Passkey, merchantId: number, audit: AuditEntry): Promise<boolean> {
  return writeAudited(merchantId, [{ Put: { TableName: tableName(), Item: passkeyItem(passkey), ConditionExpression: 'attribute_not_exists(PK)' } }], audit);
}

/**
 * Records a sign-in with the passkey: its signature counter moves forward, conditional on the
 * counter (and last use) it was read with (two sign-ins racing with one assertion: only one
 * counts). A passkey's first sign-in is written with its audit entry (`sign_in.new_passkey`).
 */
export function advancePasskeyCounter(passkey: Passkey, counter: number, now: Date, merchantId: number, audit: AuditEntry): Promise<boolean> {
  const firstUse = passkey.last_used_at === undefined;
  return writeAudited(
    merchantId,
    [
      {
        Update: {
          TableName: tableName(),
          Key: passkeyKey(passkey.credential_id),
          UpdateExpression: 'SET #counter = :next, last_used_at = :now',
          ConditionExpression: firstUse ? '#counter = :read AND attribute_not_exists(last_used_at)' : '#counter = :read',
          ExpressionAttributeNames: { '#counter': 'counter' },
          ExpressionAttributeValues: { ':next': counter, ':read': passkey.counter, ':now': now.toISOString() },
        },
      },
    ],
    audit,
    firstUse,
  );
}

/** The merchant's portal users, oldest first (removed ones included: the team page shows them as removed). */
export async function listMerchantUsers(merchantId: number): Promise<PortalUser[]> {
  const users: PortalUser[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': merchantUsersPartition(merchantId) },
        ExclusiveStartKey: start,
      }),
    );
    users.push(...(page.Items ?? []).map((item) => strip<PortalUser>(item)));
    start = page.LastEvaluatedKey;
  } while (start);
  return users;
}

/**
 * Updates an active member of this merchant (not removed, not disabled) with the change's audit
 * entry, in one transaction. False when the user is not an active member of the merchant.
 */
function updateActiveMember(
  userId: string,
  merchantId: number,
  update: { UpdateExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues: Record<string, unknown> },
  audit: AuditEntry,
): Promise<boolean> {
  return writeAudited(
    merchantId,
    [
      {
        Update: {
          TableName: tableName(),
          Key: portalUserKey(userId),
          ...update,
          ConditionExpression: 'merchant_id = :merchant AND attribute_not_exists(removed_at) AND (attribute_not_exists(disabled) OR disabled = :no)',
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':merchant': merchantId, ':no': false },
        },
      },
    ],
    audit,
  );
}

/** Changes an active member's role, with its audit entry. */
export function changeUserRole(userId: string, merchantId: number, role: Role, audit: AuditEntry): Promise<boolean> {
  return updateActiveMember(userId, merchantId, { UpdateExpression: 'SET #role = :role', ExpressionAttributeNames: { '#role': 'role' }, ExpressionAttributeValues: { ':role': role } }, audit);
}

/** Removes a member: disabled (no sign-in) and every session void at once (sessions_valid_after), with its audit entry. */
export function removeUser(userId: string, merchantId: number, now: Date, audit: AuditEntry): Promise<boolean> {
  return updateActiveMember(
    userId,
    merchantId,
    { UpdateExpression: 'SET disabled = :yes, removed_at = :now, sessions_valid_after = :now', ExpressionAttributeValues: { ':yes': true, ':now': now.toISOString() } },
    audit,
  );
}

/** Uses up a recovery code: the user it belonged to, or undefined when it is unknown or was used. */
export async function consumeRecoveryCode(codeHash: string): Promise<string | undefined> {
  try {
    const result = await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: recoveryCodeKey(codeHash),
        ConditionExpression: 'attribute_exists(PK)',
        ReturnValues: 'ALL_OLD',
      }),
    );
    return typeof result.Attributes?.user_id === 'string' ? result.Attributes.user_id : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

/** Voids every session of the user made before `now` (sign out everywhere). */
export async function voidSessionsBefore(userId: string, now: Date): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: portalUserKey(userId),
      UpdateExpression: 'SET sessions_valid_after = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': now.toISOString() },
    }),
  );
}
