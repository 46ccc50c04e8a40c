import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { chainPartition, ENTITY, legacyWatchedAddressKey, WATCH_PREFIX } from '#shared/store/keys';
import { READ_OVERLAP_MS, WRITE_BUDGET_MS } from '#shared/store/incremental-list';
import { listWatchedAddresses, PER_ADDRESS_ITEMS, type WatchedAddress, watchAddress, WatchList } from '#shared/store/watch-list';

/**
 * The per-address sources' watch list (shared/store/watch-list.ts) against DynamoDB Local: a
 * watcher reads it whole once (a cold container), then only what was written since its previous
 * read began, less the margin; items of another type under the prefix, the late window's end, and the items the previous
 * version wrote (keyed by `until`). Each test uses a chain name of its own (its own partition).
 */

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** A watch entry of `chain` made now: open an hour, then a 7-day late window. */
function entry(chain: string, options: { openFor?: number; lateFor?: number } = {}): WatchedAddress {
  const now = Date.now();
  const openUntil = now + (options.openFor ?? HOUR);
  return {
    chain,
    address: `T${randomUUID().replaceAll('-', '').slice(0, 33)}`,
    currency: 'USDT_TRC20',
    since: new Date(now).toISOString(),
    open_until: new Date(openUntil).toISOString(),
    until: new Date(openUntil + (options.lateFor ?? 7 * DAY)).toISOString(),
  };
}

const chainName = () => `TRON-list-${randomUUID()}`;
const addresses = (list: readonly WatchedAddress[]) => list.map((watched) => watched.address).sort();
/** A wall clock `ms` in the past: the writer took its key time then. */
const past = (ms: number) => () => Date.now() - ms;

async function items(chain: string): Promise<Record<string, unknown>[]> {
  const result = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': chainPartition(chain), ':prefix': WATCH_PREFIX },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

describe('the watch list of a per-address source', () => {
  it('is keyed by write time, with a TTL a day after the late window', async () => {
    const chain = chainName();
    const before = Date.now();
    const watched = entry(chain);
    await watchAddress(PER_ADDRESS_ITEMS, watched);
    const [item] = await items(chain);
    expect(item).toMatchObject({ type: ENTITY.watchedAddress, address: watched.address, until: watched.until, open_until: watched.open_until });
    const writtenAt = Date.parse(String(item!.SK).slice(WATCH_PREFIX.length, WATCH_PREFIX.length + 24));
    expect(writtenAt).toBeGreaterThanOrEqual(before);
    expect(writtenAt).toBeLessThanOrEqual(Date.now());
    expect(item!.expires_at_epoch).toBe(Math.ceil(Date.parse(watched.until) / 1000) + 86_400);
  });

  it('a cold container reads it whole; a warm one reads only what was written since its previous read, and has both', async () => {
    const chain = chainName();
    const old = [entry(chain), entry(chain), entry(chain)];
    // Checked out five minutes ago: well before any warm read's overlap.
    for (const watched of old) await watchAddress(PER_ADDRESS_ITEMS, watched, past(5 * 60_000));
    const warm = new WatchList(PER_ADDRESS_ITEMS, chain);
    expect(await warm.refresh(new Date())).toEqual({ items: 3, full: true });

    // A checkout between two reads.
    const fresh = entry(chain);
    await watchAddress(PER_ADDRESS_ITEMS, fresh);
    const read = await warm.refresh(new Date());
    expect(read).toEqual({ items: 1, full: false });
    expect(addresses(warm.watched(new Date()))).toEqual(addresses([...old, fresh]));

    // A new container knows nothing of the warm one: it reads everything.
    const cold = new WatchList(PER_ADDRESS_ITEMS, chain);
    expect(await cold.refresh(new Date())).toEqual({ items: 4, full: true });
    expect(addresses(cold.watched(new Date()))).toEqual(addresses([...old, fresh]));
  });

  it('a write acknowledged late (its key time before the previous read began, within the budget) is still read', async () => {
    const chain = chainName();
    const warm = new WatchList(PER_ADDRESS_ITEMS, chain);
    await warm.refresh(new Date());
    // The writer took its key time 9 s ago and is acknowledged now (within the 10 s budget).
    const slow = entry(chain);
    const keyTime = Date.now() - (WRITE_BUDGET_MS - 1000);
    const times = [keyTime, keyTime + WRITE_BUDGET_MS - 1000];
    await watchAddress(PER_ADDRESS_ITEMS, slow, () => times.shift() ?? Date.now());
    await warm.refresh(new Date());
    expect(addresses(warm.watched(new Date()))).toEqual([slow.address]);
    // The margin is what makes it: a key older than the overlap is not read by a warm container
    // (a writer never leaves one: a write slower than the budget is written again, open-address tests).
    const stale = entry(chain);
    await watchAddress(PER_ADDRESS_ITEMS, stale, past(READ_OVERLAP_MS + 60_000));
    await warm.refresh(new Date());
    expect(addresses(warm.watched(new Date()))).toEqual([slow.address]);
  });

  it('two items of one watch (a slow write written again) are one entry', async () => {
    const chain = chainName();
    const twice = entry(chain);
    const times = [Date.now() - 30_000, Date.now(), Date.now()];
    await watchAddress(PER_ADDRESS_ITEMS, twice, () => times.shift() ?? Date.now());
    expect(await items(chain)).toHaveLength(2);
    expect(await listWatchedAddresses(PER_ADDRESS_ITEMS, chain, new Date())).toEqual([twice]);
  });

  it("an item of another type under the prefix (an earlier version's 'unwatched' item) is passed over, the watch kept", async () => {
    const chain = chainName();
    const watched = entry(chain);
    await watchAddress(PER_ADDRESS_ITEMS, watched);
    const warm = new WatchList(PER_ADDRESS_ITEMS, chain);
    await warm.refresh(new Date());
    // As unwatchAddress wrote it (removed: nothing ever called it): the address and `until` only.
    const writtenAt = new Date().toISOString();
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { PK: chainPartition(chain), SK: `${WATCH_PREFIX}${writtenAt}#${watched.address}#UNWATCHED`, type: 'UNWATCHED_ADDRESS', chain, address: watched.address, until: watched.until },
      }),
    );
    expect(await warm.refresh(new Date())).toMatchObject({ full: false });
    expect(warm.watched(new Date())).toEqual([watched]);
    expect(warm.size).toBe(1);
    expect(await listWatchedAddresses(PER_ADDRESS_ITEMS, chain, new Date())).toEqual([watched]);
  });

  it('the two horizons: open and late entries are returned until the late window ends, then dropped from memory', async () => {
    const chain = chainName();
    const short = entry(chain, { openFor: 60_000, lateFor: HOUR });
    const long = entry(chain);
    await watchAddress(PER_ADDRESS_ITEMS, short);
    await watchAddress(PER_ADDRESS_ITEMS, long);
    const list = new WatchList(PER_ADDRESS_ITEMS, chain);
    // Past its expiry, within its late window: still watched (the schedule polls it now and then).
    const late = new Date(Date.parse(short.open_until) + 60_000);
    expect(addresses(await list.current(late))).toEqual(addresses([short, long]));
    expect((await list.current(late)).map((watched) => watched.address)).toEqual([short.address, long.address]); // oldest horizon first
    // Past its late window: not returned, and forgotten (the prune runs at most once a minute).
    const over = new Date(Date.parse(short.until) + 2 * 60_000);
    expect(addresses(await list.current(over))).toEqual([long.address]);
    expect(list.size).toBe(1);
    expect(await listWatchedAddresses(PER_ADDRESS_ITEMS, chain, new Date(Date.parse(long.until) + 1))).toEqual([]);
  });

  it('an idle list is one read that finds nothing', async () => {
    const list = new WatchList(PER_ADDRESS_ITEMS, chainName());
    expect(await list.refresh(new Date())).toEqual({ items: 0, full: true });
    expect(await list.refresh(new Date())).toEqual({ items: 0, full: false });
    expect(list.watched(new Date())).toEqual([]);
  });
});

describe('items the previous version wrote (keyed by the end of their late window)', () => {
  /** An item as the version before 2026-11-26 wrote it. */
  async function legacyWatch(watched: WatchedAddress): Promise<void> {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...legacyWatchedAddressKey(watched.chain, watched.until, watched.address),
          type: ENTITY.watchedAddress,
          ...watched,
          expires_at_epoch: Math.ceil(Date.parse(watched.until) / 1000) + 86_400,
        },
      }),
    );
  }

  it('are read by a cold container, and by a warm one even when written after its first read (an old API during the deploy)', async () => {
    const chain = chainName();
    const before = entry(chain);
    await legacyWatch(before);
    const current = entry(chain);
    await watchAddress(PER_ADDRESS_ITEMS, current, past(5 * 60_000));
    const warm = new WatchList(PER_ADDRESS_ITEMS, chain);
    await warm.refresh(new Date());
    expect(addresses(warm.watched(new Date()))).toEqual(addresses([before, current]));

    const during = entry(chain);
    await legacyWatch(during);
    const read = await warm.refresh(new Date());
    // Keyed in the future, both old items are read again by every warm read until their window ends: never missed.
    expect(read.items).toBe(2);
    expect(addresses(warm.watched(new Date()))).toEqual(addresses([before, current, during]));
    // Once its window is over an old item is neither read nor returned.
    expect(addresses(await listWatchedAddresses(PER_ADDRESS_ITEMS, chain, new Date(Date.parse(during.until) + 1)))).toEqual([]);
  });
});
