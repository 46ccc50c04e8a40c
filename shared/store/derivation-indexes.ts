import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, query, tableName } from '#shared/store/client';
import { nextCounterValue } from '#shared/store/counters';
import { isConditionFailure } from '#shared/store/errors';
import { counterKey, ENTITY, returnedAddressKey, returnedAddressPartition } from '#shared/store/keys';

/**
 * A key's address indexes: a counter (one per key and currency) and the indexes given back
 * unused. The counter item also counts what was given back (`returned`), so the usual case,
 * nothing given back, stays one UpdateItem.
 */

/** How often a returned index is raced for before the counter is used instead. */
const TAKE_ATTEMPTS = 3;

/** Moves the counter, unless indexes were given back (then undefined: take one of those). */
async function moveCounterIfNoneReturned(counter: string): Promise<number | undefined> {
  try {
    const result = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: counterKey(counter),
        UpdateExpression: 'ADD #value :one SET #type = :type',
        ConditionExpression: 'attribute_not_exists(returned) OR returned <= :zero',
        ExpressionAttributeNames: { '#value': 'value', '#type': 'type' },
        ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':type': ENTITY.counter },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(result.Attributes?.value) - 1;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
}

async function countReturned(counter: string, delta: 1 | -1): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: counterKey(counter),
      UpdateExpression: 'ADD returned :delta',
      ExpressionAttributeValues: { ':delta': delta },
    }),
  );
}

/**
 * The address index for the next invoice of one key (`counter` names the key and currency).
 * An index given back unused comes first, lowest first, so a wallet scanning from index 0
 * with a gap limit finds the next payments; otherwise the counter moves by one. Taking a
 * returned index is a conditional delete: two invoices never get the same one.
 */
export async function takeAddressIndex(counter: string): Promise<number> {
  const next = await moveCounterIfNoneReturned(counter);
  if (next !== undefined) return next;
  for (let attempt = 1; attempt <= TAKE_ATTEMPTS; attempt += 1) {
    const result = await query({
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': returnedAddressPartition(counter) },
      Limit: 1,
      // An index given back a moment ago must be seen, or the counter moves for nothing.
      ConsistentRead: true,
    });
    const item = result.Items?.[0];
    if (!item) break;
    try {
      await db().send(
        new DeleteCommand({
          TableName: tableName(),
          Key: { PK: item.PK, SK: item.SK },
          ConditionExpression: 'attribute_exists(PK)',
        }),
      );
    } catch (error) {
      // Another invoice took it first: look again.
      if (!isConditionFailure(error)) throw error;
      continue;
    }
    await countReturned(counter, -1);
    return Number(item.address_index);
  }
  // The count said some were given back but none is left (taken meanwhile): a new one.
  return (await nextCounterValue(counter)) - 1;
}

/**
 * Gives back an index whose address was never shown to anyone (the write that would have
 * shown it failed for certain), so the key's sequence keeps no gap for it.
 */
export async function returnAddressIndex(counter: string, index: number): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...returnedAddressKey(counter, index), type: ENTITY.returnedAddress, address_index: index },
    }),
  );
  await countReturned(counter, 1);
}
