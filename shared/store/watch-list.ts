/**
 * The addresses a per-address source is asked about (TRON's TronGrid, Solana's
 * getSignaturesForAddress): those sources answer "what did this address receive", not "what is
 * in this block", so their watcher polls each open invoice's address (or Solana Pay reference)
 * instead of scanning blocks. Checkout adds the invoice's address here; the item lives in the
 * chain's partition, sorted by the time it stops being watched, so the watcher reads only
 * live ones (one Query) and DynamoDB's TTL removes the rest. Idle costs one Query per step.
 *
 * Two horizons: `open_until` (the invoice's expiry: polled every step) and `until` (expiry plus
 * the late-payment window: polled now and then, so a late payment is still seen and judged by
 * the lifecycle's late rule without costing a request every few seconds for a week).
 */
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { chainPartition, ENTITY, WATCH_PREFIX, watchedAddressKey } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

export interface WatchedAddress {
  /** TRON, SOLANA: the watcher's chain (its partition). */
  chain: string;
  /** What the source is asked about: the invoice's address (TRON) or reference key (Solana). */
  address: string;
  /** The pay currency of the invoice. */
  currency: string;
  /** When the invoice was made: nothing before it can pay it. */
  since: string;
  /** The invoice's expiry: until then the address is polled every step. */
  open_until: string;
  /** The end of the late-payment window: after it, the address is no longer polled. */
  until: string;
  /** Solana: the merchant wallet the reference's transfer must pay. */
  recipient?: string;
}

const FIELDS = ['chain', 'address', 'currency', 'since', 'open_until', 'until', 'recipient'] as const;

/** Watches an address (idempotent: the same address and horizon is one item). */
export async function watchAddress(entry: WatchedAddress): Promise<void> {
  const expires = Math.ceil(Date.parse(entry.until) / 1000) + 86_400;
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...watchedAddressKey(entry.chain, entry.until, entry.address), type: ENTITY.watchedAddress, ...entry, [TABLE_KEYS.ttlAttribute]: expires },
    }),
  );
}

/** Stops watching (the invoice that would have shown the address was never shown). */
export async function unwatchAddress(entry: Pick<WatchedAddress, 'chain' | 'address' | 'until'>): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: watchedAddressKey(entry.chain, entry.until, entry.address) }));
}

/** The chain's addresses still watched at `now` (their late window not over), oldest horizon first. */
export async function listWatchedAddresses(chain: string, now: Date): Promise<WatchedAddress[]> {
  const found: WatchedAddress[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': chainPartition(chain), ':from': `${WATCH_PREFIX}${now.toISOString()}`, ':to': `${WATCH_PREFIX}~` },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of result.Items ?? []) {
      found.push(Object.fromEntries(FIELDS.filter((field) => item[field] !== undefined).map((field) => [field, String(item[field])])) as unknown as WatchedAddress);
    }
    startKey = result.LastEvaluatedKey;
  } while (startKey);
  return found;
}
