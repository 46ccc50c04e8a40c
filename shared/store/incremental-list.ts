/**
 * A list a warm watcher follows incrementally: items in one partition under one sort-key
 * prefix, each keyed by the time it was written (`<prefix><written at, ISO>#...`). An
 * {@link IncrementalReader} reads the whole range once (a cold container), then, strongly
 * consistent, only what was written since its previous read began, less {@link READ_OVERLAP_MS}.
 * The chains' watch lists use it (watch-list.ts: the block chains' open addresses and the
 * per-address sources' watches).
 *
 * Why nothing is missed: an item acknowledged before a read began is visible to that read
 * (strongly consistent). An item the previous read did not see was acknowledged after that read
 * began; its key time was taken at most {@link WRITE_BUDGET_MS} before the acknowledgement
 * ({@link putKeyedByWriteTime} checks, and writes again under a new time if it took longer), on
 * a clock at most {@link CLOCK_SKEW_MS} off: so it sorts after `previous read - overlap`, where
 * this read starts. The argument needs only that an item's key time is not earlier than its
 * acknowledgement less the budget and the skew: a key time later than the write (the watch
 * list's items from before 2026-11-26, keyed by the end of their late window) is read again by
 * every read until that time passes, never missed. A read that fails moves nothing (the next one
 * starts from the same place); what it already handed over is handed over again.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, query, tableName } from '#shared/store/client';

/** The longest a writer lets pass between the time in an item's key and its write's acknowledgement. */
export const WRITE_BUDGET_MS = 10_000;
/** The clock difference tolerated between two processes (Lambda's clocks are NTP-synced: milliseconds). */
export const CLOCK_SKEW_MS = 5_000;
/** A warm reader reads again from this long before its previous read began. */
export const READ_OVERLAP_MS = WRITE_BUDGET_MS + 2 * CLOCK_SKEW_MS;
/** Writes tried before a writer gives up (each slower than the budget: the table is struggling). */
const WRITE_ATTEMPTS = 3;

/**
 * Puts the item `itemAt(writtenAt)` builds, keyed by the write time; a write acknowledged later
 * than {@link WRITE_BUDGET_MS} after the time in its key is written again under a new time, so a
 * warm reader's overlap always covers it (a reader merges the two). Returns the key time of
 * the write that counted. `what` names the list in the error; `clock` is the wall clock (tests move it).
 */
export async function putKeyedByWriteTime(itemAt: (writtenAt: string) => Record<string, unknown>, what: string, clock: () => number = Date.now): Promise<string> {
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt += 1) {
    const writtenAt = clock();
    const key = new Date(writtenAt).toISOString();
    await db().send(new PutCommand({ TableName: tableName(), Item: itemAt(key) }));
    if (clock() - writtenAt <= WRITE_BUDGET_MS) return key;
  }
  throw new Error(`${what}: ${WRITE_ATTEMPTS} writes each took longer than ${WRITE_BUDGET_MS} ms`);
}

/** What one {@link IncrementalReader.read} read. */
export interface IncrementalRead {
  /** Items read (the overlap reads some again). */
  items: number;
  /** Whether it read the whole list (the first read of a container). */
  full: boolean;
}

/** One container's reader of one list: whole the first time, then what was written since (see the module's comment). */
export class IncrementalReader {
  /** The key time the next read starts at; undefined: never read, the next read is whole. */
  private readFrom: string | undefined;

  constructor(
    private readonly partition: string,
    private readonly prefix: string,
    /** The attributes the reader needs (projected: a read is billed by what it returns). */
    private readonly attributes: readonly string[],
    /** The wall clock the items' keys are written on (not the watcher's clock, which tests move). */
    private readonly wallClock: () => number = Date.now,
  ) {}

  /** Hands each item read to `take`, oldest key first, page by page (a cold read of a busy list is many pages: only the caller's copy grows). */
  async read(take: (item: Record<string, unknown>) => void): Promise<IncrementalRead> {
    const started = this.wallClock();
    const full = this.readFrom === undefined;
    const names = Object.fromEntries(this.attributes.map((name, i) => [`#a${i}`, name]));
    let items = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await query({
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':pk': this.partition, ':from': `${this.prefix}${this.readFrom ?? ''}`, ':to': `${this.prefix}~` },
        ProjectionExpression: Object.keys(names).join(', '),
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      });
      for (const item of page.Items ?? []) take(item);
      items += page.Items?.length ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    // Only once the read completed: a failed read leaves the next one starting where this one did.
    this.readFrom = new Date(started - READ_OVERLAP_MS).toISOString();
    return { items, full };
  }
}
