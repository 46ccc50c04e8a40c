import { randomUUID } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { putIf } from '#shared/store/conditional';
import { isConditionFailure } from '#shared/store/errors';
import { ENTITY, idempotencyKey } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

/** A stored answer to replay. */
export interface StoredResponse {
  statusCode: number;
  body: string;
}

/** A key held by one request: `claim` names that request alone (no other holds the same). */
export interface Claim {
  scope: string;
  key: string;
  claim: string;
}

export type Reservation = { kind: 'reserved'; claim: Claim } | { kind: 'replay'; requestHash: string; response: StoredResponse } | { kind: 'in-progress'; requestHash: string; leaseUntil: number };

/** Keys are kept 24 hours (DynamoDB TTL removes them after that). */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

/**
 * Claims a key for a request: one conditional Put that succeeds when the key is new, expired,
 * or left in progress by a request that died (its lease ran out). Otherwise returns what the
 * key holds: the first answer to replay, or "still in progress".
 *
 * The item carries a claim id of this request's own. Two copies of a request in the same
 * millisecond would otherwise write the very same item, and `putIf` takes a refused write that
 * finds its own item for one whose answer was lost: both would hold the key and both run.
 * With the claim id only the SDK's retry of this request's own Put finds its own item.
 * `onClaim` hears the claim before the Put is sent, so a caller whose Put fails can still
 * give back a key the Put may have taken (`release`).
 */
export async function reserve(scope: string, key: string, requestHash: string, now: Date, leaseSeconds: number, onClaim: (claim: Claim) => void = () => {}): Promise<Reservation> {
  const nowEpoch = Math.floor(now.getTime() / 1000);
  const claim: Claim = { scope, key, claim: randomUUID() };
  onClaim(claim);
  const outcome = await putIf(
    {
      ...idempotencyKey(scope, key),
      type: ENTITY.idempotency,
      request_hash: requestHash,
      state: 'IN_PROGRESS',
      claim: claim.claim,
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
  if (outcome.written) return { kind: 'reserved', claim };
  const existing = outcome.existing ?? {};
  const storedHash = String(existing.request_hash ?? '');
  if (existing.state === 'DONE') {
    return {
      kind: 'replay',
      requestHash: storedHash,
      response: { statusCode: Number(existing.status_code ?? 200), body: String(existing.response_body ?? '') },
    };
  }
  return { kind: 'in-progress', requestHash: storedHash, leaseUntil: Number(existing.lease_until ?? nowEpoch) };
}

/** The key as this claim holds it: a write of a claim another request has taken over does nothing. */
const heldBy = (claim: Claim) => ({
  TableName: tableName(),
  Key: idempotencyKey(claim.scope, claim.key),
  ConditionExpression: 'claim = :claim',
  ExpressionAttributeValues: { ':claim': claim.claim },
});

/** Runs a write of a claim's key; false when the key is no longer this claim's. */
async function whileHeld(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Keeps the first answer for replays (unless the claim's lease ran out and another took the key). */
export function complete(claim: Claim, response: StoredResponse): Promise<boolean> {
  const held = heldBy(claim);
  return whileHeld(() =>
    db().send(
      new UpdateCommand({
        ...held,
        UpdateExpression: 'SET #state = :done, status_code = :status, response_body = :body REMOVE lease_until',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ...held.ExpressionAttributeValues, ':done': 'DONE', ':status': response.statusCode, ':body': response.body },
      }),
    ),
  );
}

/**
 * Frees a key whose request failed on our side (5xx) or lost a race (409): a retry may run it
 * again. Only this claim's: a key never written, or taken over, is left as it is.
 */
export function release(claim: Claim): Promise<boolean> {
  return whileHeld(() => db().send(new DeleteCommand(heldBy(claim))));
}
