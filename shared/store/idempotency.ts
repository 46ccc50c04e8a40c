import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { putIf } from '#shared/store/conditional';
import { ENTITY, idempotencyKey } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

/** A stored answer to replay. */
export interface StoredResponse {
  statusCode: number;
  body: string;
}

export type Reservation =
  | { kind: 'reserved' }
  | { kind: 'replay'; requestHash: string; response: StoredResponse }
  | { kind: 'in-progress'; requestHash: string };

/** Keys are kept 24 hours (DynamoDB TTL removes them after that). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/**
 * Claims a key for a request: one conditional Put that succeeds when the key is new, expired,
 * or left in progress by a request that died (its lease ran out). Otherwise returns what the
 * key holds: the first answer to replay, or "still in progress".
 */
export async function reserve(scope: string, key: string, requestHash: string, now: Date, leaseSeconds: number): Promise<Reservation> {
  const nowEpoch = Math.floor(now.getTime() / 1000);
  const outcome = await putIf(
    {
      ...idempotencyKey(scope, key),
      type: ENTITY.idempotency,
      request_hash: requestHash,
      state: 'IN_PROGRESS',
      lease_until: nowEpoch + leaseSeconds,
      created_at: now.toISOString(),
      [TABLE_KEYS.ttlAttribute]: nowEpoch + IDEMPOTENCY_TTL_SECONDS,
    },
    {
      ConditionExpression: 'attribute_not_exists(PK) OR #ttl < :now OR (#state = :progress AND lease_until < :now AND request_hash = :hash)',
      ExpressionAttributeNames: { '#ttl': TABLE_KEYS.ttlAttribute, '#state': 'state' },
      ExpressionAttributeValues: { ':now': nowEpoch, ':progress': 'IN_PROGRESS', ':hash': requestHash },
    },
  );
  if (outcome.written) return { kind: 'reserved' };
  const existing = outcome.existing ?? {};
  const storedHash = String(existing.request_hash ?? '');
  if (existing.state === 'DONE') {
    return {
      kind: 'replay',
      requestHash: storedHash,
      response: { statusCode: Number(existing.status_code ?? 200), body: String(existing.response_body ?? '') },
    };
  }
  return { kind: 'in-progress', requestHash: storedHash };
}

/** Keeps the first answer for replays. */
export async function complete(scope: string, key: string, response: StoredResponse): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: idempotencyKey(scope, key),
      UpdateExpression: 'SET #state = :done, status_code = :status, response_body = :body REMOVE lease_until',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':done': 'DONE', ':status': response.statusCode, ':body': response.body },
    }),
  );
}

/** Frees a key whose request failed on our side (5xx): a retry may run it again. */
export async function release(scope: string, key: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: idempotencyKey(scope, key) }));
}
