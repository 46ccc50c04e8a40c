/**
 * The cursor of an indexed source's watcher (LND settlements, EOS transfers from Hyperion), in
 * the source's own partition (keys.ts: CHAIN#<name>, SK `CURSOR`) beside the block chains':
 * the source's own position (LND `settle_index:add_index`, Hyperion `global_sequence@time`),
 * written conditionally on the version read, like a chain cursor. The payments these watchers
 * could not match are in unmatched-payments.ts.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { putCursor } from '#shared/store/chain-cursors';
import { chainCursorKey, ENTITY } from '#shared/store/keys';

export interface IndexCursor {
  /** The source's name (LBTC, EOS): its partition. */
  chain: string;
  /** The source's own cursor string (opaque here). */
  position: string;
  updated_at: string;
  /** Bumped by every write; each write is conditional on the version it read. */
  version: number;
}

export async function readIndexCursor(chain: string): Promise<IndexCursor | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: chainCursorKey(chain), ConsistentRead: true }));
  const item = result.Item;
  if (!item) return undefined;
  if (typeof item.position !== 'string' || typeof item.version !== 'number') throw new Error(`${chain}: the stored cursor is not an index cursor`);
  return { chain, position: item.position, updated_at: String(item.updated_at), version: item.version };
}

/** Writes the cursor if nobody moved it since it was read; false when another run got there first. */
export function writeIndexCursor(next: IndexCursor): Promise<boolean> {
  return putCursor({ ...chainCursorKey(next.chain), type: ENTITY.chainCursor, ...next }, next.version);
}
