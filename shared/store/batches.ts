/**
 * Every key of a BatchGetItem, every request of a BatchWriteItem: DynamoDB takes at most 100
 * keys (25 writes) a request and may leave some unprocessed under load; those are sent again
 * with exponential backoff and jitter ({@link UNPROCESSED_BACKOFF}), at most UNPROCESSED_ROUNDS
 * times, then the call fails (a table throttled that long is an error for the caller, not a
 * loop until its timeout).
 */
import { BatchGetCommand, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type Backoff, backoffDelay } from '#shared/core/backoff';
import { db, tableName } from '#shared/store/client';
import type { Item } from '#shared/store/items';
import type { TableKey } from '#shared/store/keys';

const BATCH_GET_LIMIT = 100;
const BATCH_WRITE_LIMIT = 25;
const UNPROCESSED_ROUNDS = 5;
/** The waits before the rounds after the first, ms: 100, 200, 400, 800, each spread over half to one and a half of it. */
export const UNPROCESSED_BACKOFF: Backoff = { base: 100, jitter: 'spread' };

/** Sends `pending` until nothing is left unprocessed (`send` answers what is). */
async function untilProcessed<T>(pending: T[], what: string, send: (batch: T[]) => Promise<T[]>): Promise<void> {
  for (let round = 0; pending.length > 0; round += 1) {
    if (round >= UNPROCESSED_ROUNDS) throw new Error(`${what}: ${pending.length} still unprocessed after ${round} rounds`);
    if (round > 0) await new Promise((resolve) => setTimeout(resolve, backoffDelay(UNPROCESSED_BACKOFF, round)));
    pending = await send(pending);
  }
}

/** The items of `keys` that exist (in no particular order), eventually consistent unless asked. */
export async function batchGetAll(keys: readonly (TableKey | Item)[], options: { projection?: string; consistent?: boolean } = {}): Promise<Item[]> {
  const found: Item[] = [];
  for (let start = 0; start < keys.length; start += BATCH_GET_LIMIT) {
    await untilProcessed<TableKey | Item>(keys.slice(start, start + BATCH_GET_LIMIT), 'BatchGetItem keys', async (batch) => {
      const result = await db().send(
        new BatchGetCommand({
          RequestItems: { [tableName()]: { Keys: batch, ...(options.projection ? { ProjectionExpression: options.projection } : {}), ...(options.consistent ? { ConsistentRead: true } : {}) } },
        }),
      );
      found.push(...((result.Responses?.[tableName()] ?? []) as Item[]));
      return (result.UnprocessedKeys?.[tableName()]?.Keys as Item[] | undefined) ?? [];
    });
  }
  return found;
}

/** Puts every item (plain Puts, no condition), 25 a request, the requests in parallel. */
export async function batchPutAll(items: readonly Item[]): Promise<void> {
  const requests = items.map((item) => ({ PutRequest: { Item: item } }));
  await Promise.all(
    Array.from({ length: Math.ceil(requests.length / BATCH_WRITE_LIMIT) }, (_, chunk) =>
      untilProcessed<unknown>(requests.slice(chunk * BATCH_WRITE_LIMIT, (chunk + 1) * BATCH_WRITE_LIMIT), 'BatchWriteItem puts', async (batch) => {
        const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: batch as never } }));
        return result.UnprocessedItems?.[tableName()] ?? [];
      }),
    ),
  );
}
