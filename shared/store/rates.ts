import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { type Decimal, formatDecimal, isPositive, parseDecimal } from '#shared/domain/money';
import { db, tableName } from '#shared/store/client';
import { putIf } from '#shared/store/conditional';
import { ENTITY, ratesKey } from '#shared/store/keys';

/**
 * The rates one HTTP source answered at one moment: `rates` maps a currency code to how many
 * units of it one unit of `base` buys (the base itself is 1).
 */
export interface RateSnapshot {
  /** The cache name of the source (by default its URL's host). */
  readonly source: string;
  /** The exact URL that was fetched (query included): a snapshot is only reused for the same one. */
  readonly url: string;
  readonly base: string;
  readonly rates: ReadonlyMap<string, Decimal>;
  readonly fetchedAt: Date;
}

/** Where snapshots are shared between processes (the table in every deployment). */
export interface RateCache {
  /** The last snapshot stored for `source`, or undefined. */
  get(source: string): Promise<RateSnapshot | undefined>;
  /** Stores the snapshot unless a newer one (by fetchedAt) is already there. */
  put(snapshot: RateSnapshot): Promise<void>;
}

const STORED_DECIMAL = /^\d+(?:\.\d+)?$/;

function toItem(snapshot: RateSnapshot): Record<string, unknown> {
  return {
    ...ratesKey(snapshot.source),
    type: ENTITY.rates,
    source: snapshot.source,
    url: snapshot.url,
    base: snapshot.base,
    // Strings, never DynamoDB numbers: the SDK would hand them back as JS floats.
    rates: Object.fromEntries([...snapshot.rates].map(([code, rate]) => [code, formatDecimal(rate)])),
    fetched_at: snapshot.fetchedAt.toISOString(),
  };
}

/** Reads an item back; entries that are not positive decimal strings are dropped, never guessed. */
function fromItem(item: Record<string, unknown>): RateSnapshot | undefined {
  const { source, url, base, rates, fetched_at: fetchedAt } = item;
  if (typeof source !== 'string' || typeof url !== 'string' || typeof base !== 'string') return undefined;
  if (typeof fetchedAt !== 'string' || Number.isNaN(Date.parse(fetchedAt))) return undefined;
  if (!rates || typeof rates !== 'object') return undefined;
  const parsed = new Map<string, Decimal>();
  for (const [code, text] of Object.entries(rates)) {
    if (typeof text !== 'string' || !STORED_DECIMAL.test(text)) continue;
    const rate = parseDecimal(text);
    if (isPositive(rate)) parsed.set(code, rate);
  }
  return { source, url, base, rates: parsed, fetchedAt: new Date(fetchedAt) };
}

/**
 * The rate cache in the service's table: one item per source at `ratesKey(source)`. Writes are
 * conditional on `fetched_at` (ISO strings of one format sort as time), so when two processes
 * refresh at once the older snapshot never replaces the newer one.
 */
export const tableRateCache: RateCache = {
  async get(source) {
    // Eventually consistent is enough: a read that lags only costs one extra fetch.
    const result = await db().send(new GetCommand({ TableName: tableName(), Key: ratesKey(source) }));
    return result.Item ? fromItem(result.Item) : undefined;
  },

  async put(snapshot) {
    // Refused when a newer (or the same) snapshot is already stored: the outcome we want.
    await putIf(toItem(snapshot), {
      ConditionExpression: 'attribute_not_exists(PK) OR attribute_not_exists(fetched_at) OR fetched_at < :fetched_at',
      ExpressionAttributeValues: { ':fetched_at': snapshot.fetchedAt.toISOString() },
    });
  },
};
