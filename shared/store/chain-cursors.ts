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
  /**
   * The blocks at and just below the cursor, oldest first: where a reorganisation is undone to.
   * Read back, their hashes are the remembered ends of them: compare with {@link sameBlockHash}.
   */
  recent: { height: number; hash: string }[];
  /** The source's tip when the cursor was written: `tip_height - height` is how far behind it is. */
  tip_height: number;
  updated_at: string;
  /** Bumped by every write; each write is conditional on the version it read. */
  version: number;
}

const CURSOR_FIELDS = ['chain', 'height', 'hash', 'tip_height', 'updated_at', 'version'] as const;

/**
 * How much of each recent block's hash the cursor keeps: its last 128 bits (32 hex digits), the
 * end of the hash as sources print it (a proof-of-work hash's leading zeros are at its start).
 * The watcher tells blocks at one height apart by them: to pass for a remembered block, another
 * block would need a hash ending in the same 128 bits, 2^128 tries for its producer, out of
 * anyone's reach with proof of work or without. Whole hashes made the item 3 KB (33 of them:
 * 3 WRU a block, most of an L2 watcher's DynamoDB cost); these, as bytes, keep it under 1 KB.
 */
const REMEMBERED_HEX_DIGITS = 32;

/** A block hash as the cursor remembers it (compare with {@link sameBlockHash}). */
function rememberedHash(hash: string): string {
  return hash.slice(-REMEMBERED_HEX_DIGITS).toLowerCase();
}

/** Whether two hashes of blocks at one height are the same block's, either of them remembered by a cursor. */
export function sameBlockHash(a: string, b: string): boolean {
  return rememberedHash(a) === rememberedHash(b);
}

const HEX_TAIL = new RegExp(`^[0-9a-f]{${REMEMBERED_HEX_DIGITS}}$`);

/**
 * The recent blocks as stored: the first one's height and the remembered hashes, 16 bytes each,
 * of consecutive heights (as the watcher keeps them). Hashes that are not hex (no source of ours
 * has them) are stored whole, as a list.
 */
function recentToItem(recent: ChainCursor['recent']): Item {
  const tails = recent.map((ref) => rememberedHash(ref.hash));
  const consecutive = recent.every((ref, i) => ref.height === recent[0]!.height + i);
  if (recent.length === 0 || !consecutive || !tails.every((tail) => HEX_TAIL.test(tail))) return { recent };
  return { recent_from: recent[0]!.height, recent_hashes: Buffer.from(tails.join(''), 'hex') };
}

function recentFromItem(item: Item): ChainCursor['recent'] {
  if (Array.isArray(item.recent)) return item.recent as ChainCursor['recent'];
  const bytes = Buffer.from(item.recent_hashes as Uint8Array);
  const size = REMEMBERED_HEX_DIGITS / 2;
  return Array.from({ length: bytes.length / size }, (_, i) => ({
    height: Number(item.recent_from) + i,
    hash: bytes.subarray(i * size, (i + 1) * size).toString('hex'),
  }));
}

/** The chain's cursor; its recent blocks' hashes are remembered ones ({@link sameBlockHash}). */
export async function readCursor(chain: string): Promise<ChainCursor | undefined> {
  const result = await db().send(new GetCommand({ TableName: tableName(), Key: chainCursorKey(chain), ConsistentRead: true }));
  if (!result.Item) return undefined;
  return { ...Object.fromEntries(CURSOR_FIELDS.map((field) => [field, result.Item![field]])), recent: recentFromItem(result.Item) } as unknown as ChainCursor;
}

/**
 * Writes the cursor if nobody moved it since it was read (`next.version - 1`; the first cursor
 * only if none exists). False when another run got there first: that run owns the chain now.
 */
export async function writeCursor(next: ChainCursor): Promise<boolean> {
  const { recent, ...rest } = next;
  return putCursor({ ...chainCursorKey(next.chain), type: ENTITY.chainCursor, ...rest, ...recentToItem(recent) }, next.version);
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
