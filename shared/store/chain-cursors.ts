/**
 * What the chain watchers keep in the table: one cursor per chain (how far it has scanned) and
 * the payments booked from blocks that have not reached their confirmations yet (re-reported
 * as blocks arrive, taken back if their block leaves the chain). Both live in the chain's own
 * partition (keys.ts: CHAIN#<chain>).
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { putIf } from '#shared/store/conditional';
import { chainCursorKey, chainPartition, ENTITY, heightSortKey, MATURING_PREFIX, maturingPaymentKey } from '#shared/store/keys';

type Item = Record<string, unknown>;

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

/** A payment booked from a block short of its confirmations (see the module's comment). */
export interface MaturingPayment {
  chain: string;
  height: number;
  block_hash: string;
  /** The payment's chain key (txid:vout). */
  key: string;
  txid: string;
  currency: string;
  amount: string;
  order_id: string;
  invoice_id: string;
}

const MATURING_FIELDS = ['chain', 'height', 'block_hash', 'key', 'txid', 'currency', 'amount', 'order_id', 'invoice_id'] as const;

/** Records (or re-records: same key, same item) a maturing payment. */
export async function saveMaturingPayment(payment: MaturingPayment): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...maturingPaymentKey(payment.chain, payment.height, payment.key), type: ENTITY.maturingPayment, ...payment },
    }),
  );
}

/** The chain's maturing payments, lowest block first; with `above`, only those in blocks higher than it. */
export async function listMaturingPayments(chain: string, above?: number): Promise<MaturingPayment[]> {
  const payments: MaturingPayment[] = [];
  let startKey: Item | undefined;
  do {
    const result = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': chainPartition(chain),
          // '#' sorts below every digit: PAYMENT#<above+1>... is the first key above `above`.
          ':from': `${MATURING_PREFIX}${above === undefined ? '' : heightSortKey(above + 1)}`,
          ':to': `${MATURING_PREFIX}~`,
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of result.Items ?? []) {
      payments.push(Object.fromEntries(MATURING_FIELDS.map((field) => [field, item[field]])) as unknown as MaturingPayment);
    }
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return payments;
}

/** Done with a maturing payment (it reached its confirmations, or its block left the chain). */
export async function deleteMaturingPayment(payment: Pick<MaturingPayment, 'chain' | 'height' | 'key'>): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: maturingPaymentKey(payment.chain, payment.height, payment.key) }));
}
