/**
 * What the watchers of indexed sources (LND settlements, EOS transfers from Hyperion) keep in
 * the table, in the source's own partition (keys.ts: CHAIN#<name>) beside the block chains':
 *
 * - the cursor (`CURSOR`): the source's own position (LND `settle_index:add_index`, Hyperion
 *   `global_sequence@time`), written conditionally on the version read, like a chain cursor;
 * - the payments that found no invoice (`UNMATCHED#<payment key>`): an EOS transfer whose memo
 *   names no invoice (or a settled Lightning invoice that is not ours) cannot be booked on any
 *   order, so it is kept here for an operator, once per payment key.
 */
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { putCursor } from '#shared/store/chain-cursors';
import { isConditionFailure } from '#shared/store/errors';
import { chainCursorKey, chainPartition, ENTITY } from '#shared/store/keys';

export interface IndexCursor {
  /** The source's name (LBTC, EOS): its partition. */
  chain: string;
  /** The source's own cursor string (opaque here). */
  position: string;
  updated_at: string;
  /** Bumped by every write; each write is conditional on the version it read. */
  version: number;
}

const UNMATCHED_PREFIX = 'UNMATCHED#';

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

/** A payment no invoice could take (see the module's comment). */
export interface UnmatchedPayment {
  chain: string;
  key: string;
  txid: string;
  currency: string;
  amount: string;
  /** The receiving address or account, and the memo it carried (EOS). */
  address: string;
  memo?: string;
  /** Why it was not booked. */
  reason: string;
  seen_at: string;
}

const UNMATCHED_FIELDS = ['chain', 'key', 'txid', 'currency', 'amount', 'address', 'memo', 'reason', 'seen_at'] as const;

/**
 * Keeps an unmatched payment; true the first time its key is seen, false when it was already
 * kept (a second run, a restart: nothing changes). The report of the first time is what the
 * watcher logs and counts, so an operator hears of each payment once (twice at worst, when the
 * answer to the first write was lost and it was tried again).
 */
export async function saveUnmatchedPayment(payment: UnmatchedPayment): Promise<boolean> {
  const item = { PK: chainPartition(payment.chain), SK: `${UNMATCHED_PREFIX}${payment.key}`, type: ENTITY.unmatchedPayment, ...payment };
  try {
    await db().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The source's unmatched payments (an operator's list), by payment key. */
export async function listUnmatchedPayments(chain: string): Promise<UnmatchedPayment[]> {
  const found: UnmatchedPayment[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': chainPartition(chain), ':prefix': UNMATCHED_PREFIX },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of result.Items ?? []) {
      found.push(Object.fromEntries(UNMATCHED_FIELDS.filter((field) => item[field] !== undefined).map((field) => [field, item[field]])) as unknown as UnmatchedPayment);
    }
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return found;
}
