import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { counterKey, ENTITY } from '#shared/store/keys';

/**
 * Atomically increments the named counter and returns its new value (1 for the first call).
 * One UpdateItem: concurrent callers always get distinct values.
 */
export async function nextCounterValue(name: string): Promise<number> {
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: counterKey(name),
      UpdateExpression: 'ADD #value :one SET #type = :type',
      ExpressionAttributeNames: { '#value': 'value', '#type': 'type' },
      ExpressionAttributeValues: { ':one': 1, ':type': ENTITY.counter },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.value);
}

/** The named counter's last value handed out (0 before the first). One GetItem. */
export async function currentCounterValue(name: string): Promise<number> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: counterKey(name) }));
  return Number(result.Item?.value ?? 0);
}
