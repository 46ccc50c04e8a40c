import { query } from '#shared/store/client';
import type { Item } from '#shared/store/items';
import { EXPIRY_SHARDS, expiryPartition, orderIdOfPartition } from '#shared/store/keys';

/**
 * The due-order index: NEW and PENDING orders by the time they are due (the sparse GSI3,
 * sharded; orders.ts orderToItem writes its keys), walked by the expiry sweep.
 */

/**
 * Where a walk through the due orders stands: per shard of the expiry index, the key to
 * continue after, or null when the shard has nothing more.
 */
export type DueCursor = (Item | null | undefined)[];

/**
 * NEW and PENDING orders whose due time has passed, from the sparse expiry index (keys only): at most
 * `limit` of them over all shards, the oldest first, and the cursor of the next page (undefined
 * when there is none). Each shard is read page by page until it has given `limit` or has no
 * more, so a filtered or short page never hides due orders behind it.
 */
export async function findDueOrders(now: Date, limit: number, after: DueCursor = []): Promise<{ due: { orderId: string }[]; next: DueCursor | undefined }> {
  const shards = await Promise.all(
    Array.from({ length: EXPIRY_SHARDS }, async (_, shard) => {
      const items: Item[] = [];
      let start = after[shard];
      while (start !== null && items.length < limit) {
        const result = await query({
          IndexName: 'GSI3',
          KeyConditionExpression: 'GSI3PK = :pk AND GSI3SK < :now',
          ExpressionAttributeValues: { ':pk': expiryPartition(shard), ':now': `${now.toISOString()}#~` },
          Limit: limit - items.length,
          ...(start ? { ExclusiveStartKey: start } : {}),
        });
        items.push(...(result.Items ?? []));
        start = result.LastEvaluatedKey ?? null;
      }
      return { items, exhausted: start === null };
    }),
  );
  // The oldest `limit` over all shards (the index's sort key starts with the due time).
  const taken = shards
    .flatMap(({ items }, shard) => items.map((item) => ({ item, shard })))
    .sort((a, b) => (String(a.item.GSI3SK) < String(b.item.GSI3SK) ? -1 : 1))
    .slice(0, limit);
  const next: DueCursor = shards.map(({ items, exhausted }, shard) => {
    const last = taken.filter((entry) => entry.shard === shard).at(-1)?.item;
    if (exhausted && (items.length === 0 || last === items.at(-1))) return null;
    // Continue after the last one taken (the shard's first page again when none was).
    const from = last ?? after[shard];
    return from ? { PK: from.PK, SK: from.SK, GSI3PK: from.GSI3PK, GSI3SK: from.GSI3SK } : undefined;
  });
  return {
    due: taken.map(({ item }) => ({ orderId: orderIdOfPartition(String(item.PK)) })),
    next: next.every((start) => start === null) ? undefined : next,
  };
}
