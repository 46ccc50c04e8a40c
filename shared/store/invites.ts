import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '#shared/domain/audit';
import type { Invite } from '#shared/domain/portal';
import { writeAudited } from '#shared/store/audit';
import { db, tableName } from '#shared/store/client';
import { ENTITY, inviteKey, merchantKey } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

const epoch = (iso: string) => Math.ceil(Date.parse(iso) / 1000);

/**
 * Stores an invite by its token's hash with its audit entry (one transaction); DynamoDB removes
 * the invite a week after it expires. False when the merchant does not exist.
 */
export async function insertInvite(tokenHash: string, invite: Invite, audit: AuditEntry): Promise<boolean> {
  return writeAudited(
    invite.merchant_id,
    [
      {
        Put: {
          TableName: tableName(),
          Item: { ...inviteKey(tokenHash), type: ENTITY.invite, ...invite, [TABLE_KEYS.ttlAttribute]: epoch(invite.expires_at) + 7 * 86_400 },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
      { ConditionCheck: { TableName: tableName(), Key: merchantKey(invite.merchant_id), ConditionExpression: 'attribute_exists(PK)' } },
    ],
    audit,
  );
}

export async function findInvite(tokenHash: string): Promise<Invite | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: inviteKey(tokenHash), ConsistentRead: true }));
  if (!result.Item) return undefined;
  const { PK: _pk, SK: _sk, type: _type, [TABLE_KEYS.ttlAttribute]: _ttl, ...invite } = result.Item;
  return invite as Invite;
}
