/**
 * A block chain watcher's cursor: one per chain (how far it has scanned), in the chain's own
 * partition (keys.ts: CHAIN#<chain>) beside its maturing payments (maturing-payments.ts).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { putIf } from '#shared/store/conditional';
import type { Item } from '#shared/store/items';
import { chainCursorKey, ENTITY } from '#shared/store/keys';

export interface ChainCursor {
  chain: string;
  /** The last block scanned and booked. */
  height: number;
  hash: string;
  /** The blocks at and just below the cursor, oldest first: where a reorganisation is undone to. */
  recent: { height: number; hash: string }[];
  /** The source's tip when the cursor was written: `tip_height - height` is how far behind it is. */
  tip_height: number;
  updated_at: string;
  /** Bumped by every write; each write is conditional on the version it read. */
  version: number;
}

const CURSOR_FIELDS = ['chain', 'height', 'hash', 'recent', 'tip_height', 'updated_at', 'version'] as const;

export async function readCursor(chain: string): Promise<ChainCursor | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: chainCursorKey(chain), ConsistentRead: true }));
  if (!result.Item) return undefined;
  return Object.fromEntries(CURSOR_FIELDS.map((field) => [field, result.Item![field]])) as unknown as ChainCursor;
}

/**
 * Writes the cursor if nobody moved it since it was read (`next.version - 1`; the first cursor
 * only if none exists). False when another run got there first: that run owns the chain now.
 */
export async function writeCursor(next: ChainCursor): Promise<boolean> {
  return putCursor({ ...chainCursorKey(next.chain), type: ENTITY.chainCursor, ...next }, next.version);
}

/** Puts a cursor item of `version` if the stored one is `version - 1` (version 1: if there is none). */
export async function putCursor(item: Item, version: number): Promise<boolean> {
  const condition =
    version === 1
      ? { ConditionExpression: 'attribute_not_exists(PK)' }
      : {
          ConditionExpression: '#version = :expected',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':expected': version - 1 },
        };
  return (await putIf(item, condition)).written;
}
