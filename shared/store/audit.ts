import { randomBytes } from 'node:crypto';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '#shared/domain/audit';
import { db, tableName } from '#shared/store/client';
import { isConditionFailure } from '#shared/store/errors';
import { AUDIT_PREFIX, auditKey, ENTITY, merchantKey } from '#shared/store/keys';

/**
 * The Put of an audit entry, to be written in the transaction of the change it records (so a
 * change is never made without its entry, nor recorded without being made).
 */
export function auditPut(userId: number, entry: AuditEntry) {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...auditKey(userId, entry.at, randomBytes(4).toString('hex')), type: ENTITY.audit, user_id: userId, ...entry },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

/** A merchant's audit log, newest first, one page of `limit` entries after `before` (an entry's `at`). */
export async function listAuditEntries(userId: number, limit: number, before?: string): Promise<AuditEntry[]> {
  const partition = merchantKey(userId).PK;
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: before ? 'PK = :pk AND SK BETWEEN :from AND :to' : 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: before ? { ':pk': partition, ':from': AUDIT_PREFIX, ':to': `${AUDIT_PREFIX}${before}` } : { ':pk': partition, ':prefix': AUDIT_PREFIX },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map(({ at, action, who, from, details }) => ({ at, action, who, from, details }) as AuditEntry);
}

/** One action of a transaction, as TransactWriteCommand takes it. */
type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/**
 * Writes a change of a merchant's account (`items`) together with its audit entry, in one
 * transaction (`recorded` false: the change alone, for a change only sometimes worth an entry).
 * False when a condition of the change failed (nothing was written).
 */
export async function writeAudited(userId: number, items: TransactItem[], entry: AuditEntry, recorded = true): Promise<boolean> {
  try {
    await db().send(new TransactWriteCommand({ TransactItems: recorded ? [...items, auditPut(userId, entry)] : items }));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
