import { isDeepStrictEqual } from 'node:util';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ConcurrentUpdateError } from '#shared/domain/errors';
import { db, tableName } from '#shared/store/client';

type Item = Record<string, unknown>;

/** The condition of a conditional write, as DynamoDB takes it. */
export interface Condition {
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
}

/** A conditional Put: written, or refused with the item that stood in the way (if any). */
export type PutOutcome = { written: true } | { written: false; existing: Item | undefined };

/** How often a plain write is tried when it meets another request's transaction on the item. */
const CONFLICT_ATTEMPTS = 3;

/**
 * Runs one conditional write and tells its outcome apart from failures: true when written,
 * `refused(old item)` when its condition failed. A plain write that meets another request's
 * transaction still in flight on the item (TransactionConflictException) is tried again, the
 * transaction having settled by then; a 409 after three.
 */
async function conditionally<T>(write: () => Promise<unknown>, refused: (existing: Item | undefined) => T, written: T): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await write();
      return written;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'ConditionalCheckFailedException') {
        const old = (error as { Item?: Record<string, AttributeValue> }).Item;
        return refused(old ? unmarshall(old) : undefined);
      }
      if (name !== 'TransactionConflictException') throw error;
      if (attempt >= CONFLICT_ATTEMPTS) throw new ConcurrentUpdateError();
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt + Math.random() * 20));
    }
  }
}

/**
 * PutItem of `item` if `condition` holds. The SDK retrying an attempt whose answer was lost
 * finds the very item it writes (DynamoDB returns the item in the way, ALL_OLD): that one is
 * ours, so it counts as written. Another writer's identical item counts as written too: right
 * for a state both would write alike (a cursor, a rate, an order's next version), wrong for a
 * claim only one may hold, whose item must carry an id of its writer's own
 * (shared/store/idempotency.ts).
 */
export function putIf(item: Item, condition: Condition): Promise<PutOutcome> {
  // JSON drops the undefined values the client does not write either.
  const asStored = JSON.parse(JSON.stringify(item)) as Item;
  return conditionally<PutOutcome>(
    () => db().send(new PutCommand({ TableName: tableName(), Item: item, ...condition, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })),
    (existing) => (isDeepStrictEqual(existing, asStored) ? { written: true } : { written: false, existing }),
    { written: true },
  );
}

/** UpdateItem of `key` if `condition` holds: true when updated, false when refused. */
export function updateIf(key: { PK: string; SK: string }, update: Condition & { UpdateExpression: string }): Promise<boolean> {
  return conditionally(
    () => db().send(new UpdateCommand({ TableName: tableName(), Key: key, ...update })),
    () => false,
    true,
  );
}
