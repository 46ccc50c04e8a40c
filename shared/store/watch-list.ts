/**
 * The addresses a chain's watcher watches: each invoice address (or Solana Pay reference) from
 * checkout until the invoice's late-payment window is over. Checkout adds it, before it is
 * shown: one item in the chain's partition, sorted by the time it was written (keys.ts), which
 * DynamoDB's TTL removes a day after the late window. A watcher's {@link WatchList} reads the
 * whole list once (a cold container), then at each step, strongly consistent, only what was
 * written since its previous read began, less a margin (incremental-list.ts: the margin and why
 * it misses nothing): a checkout acknowledged before a step's read began is on that read. An
 * idle step is one Query that finds nothing.
 *
 * One list, two item layouts, each kept as the chains' items were first written (items already
 * in the table are read as they are; no migration):
 *
 * - {@link BLOCK_CHAIN_ITEMS} (BTC, LTC, BCH, ETH and its tokens, every EVM network;
 *   `OPEN#<written at>#<currency>#<address>`): the watcher looks up in the address index only
 *   the outputs paid to a listed address, instead of every output of every block (AWS bills 0.5
 *   read unit per key of a BatchGetItem, found or not: on a busy chain almost all of them are
 *   not ours). An address counts until a day after its window (a block scanned late still
 *   finds it); listed twice, its latest window counts.
 * - {@link PER_ADDRESS_ITEMS} (TRON, SOLANA; `WATCH#<written at>#<address>`): TRON's watcher
 *   matches every entry against the Transfer events of each range of solid blocks; Solana's
 *   source answers "what did this reference receive", so its watcher polls each open invoice's
 *   reference. Two horizons: `open_until` (the invoice's expiry: Solana polls it every step) and
 *   `until` (expiry plus the late-payment window: Solana polls it now and then, so a late
 *   payment is still seen and judged by the lifecycle's late rule without costing a request
 *   every few seconds for a week; TRON matches it every step at no cost). Past `until` an entry
 *   is no longer returned, and is dropped from the watcher's memory.
 *
 * Why no address is missed: a payment to an address exists only after the buyer saw it, so
 * after its item's write was acknowledged. The watcher reads the list (strongly consistent)
 * after it fetched the transfers it books, so every item acknowledged before those transfers
 * existed is on the list it matches them against; the watcher books nothing it has not matched
 * against a completed read.
 *
 * Upgrades:
 *
 * - The block chains' lists began after invoices had been shown (by the version deployed
 *   before them, or by its API functions while the deploy was under way), which are not on
 *   them. So such a list counts as complete only once they are all past their window: from its
 *   start (the first watcher container that read it, {@link openListStartedAt}) plus `fillMs`
 *   (core/config.ts openListConfig: the deploy's overlap, the longest invoice, the late window
 *   and the day kept after it). Until then the watcher looks every transfer up, as before the
 *   list existed: nothing paid to an older invoice is missed after an upgrade.
 * - The per-address items written before 2026-11-26 are keyed by `until` (keys.ts
 *   legacyWatchedAddressKey), a time never earlier than their write: a cold read reads them with
 *   the rest, and each warm read reads them again until their window ends (their old cost, for
 *   at most one late window after the upgrade).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { paidAddressId, type PaidAddress } from '#shared/store/address-index';
import { db, tableName } from '#shared/store/client';
import { IncrementalReader, type IncrementalRead, putKeyedByWriteTime } from '#shared/store/incremental-list';
import { chainPartition, ENTITY, OPEN_PREFIX, openAddressKey, openListStartKey, type TableKey, WATCH_PREFIX, watchedAddressKey } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

/** What every list keeps of an address. */
export interface ListedAddress {
  /** The watcher's chain (its partition; a token's chain: USDT_ERC20 -> ETH). */
  chain: string;
  /** The invoice's pay currency, as the address index keys it. */
  currency: string;
  /** What is watched: the invoice's address, or its reference (Solana). */
  address: string;
  /** The end of the invoice's late-payment window (ISO). */
  until: string;
}

/** An entry of a per-address source's list (TRON, SOLANA). */
export interface WatchedAddress extends ListedAddress {
  /** When the invoice was made: nothing before it can pay it. */
  since: string;
  /** The invoice's expiry: until then the address is polled every step. */
  open_until: string;
  /** Solana: the merchant wallet the reference's transfer must pay (a refund's: the buyer's wallet). */
  recipient?: string;
  /**
   * Solana: `refund` for a refund's wallet (shared/store/refund-watches.ts): its address is the
   * buyer's wallet, not a reference, and whatever the wallet gains in the mint pays it; `ended`
   * ends every watch of its address read before it ({@link endWatch}).
   */
  kind?: 'refund' | 'ended';
  /**
   * TON, Stellar: the merchant (user id) whose own wallet `address` is, so a payment to it that
   * no invoice takes is shown in that merchant's portal; absent for the platform's wallet.
   */
  owner?: string;
}

/** How a list's items are written (see the module's comment). */
export interface WatchItems<E extends ListedAddress> {
  /** The items' sort-key prefix in the chain's partition, and their type. */
  prefix: string;
  type: string;
  /** The item's key, by the time it is written. */
  key: (entry: E, writtenAt: string) => TableKey;
  /** The attributes an entry is written as and read from (the chain is the partition's where it is not one). */
  fields: readonly (keyof E & string)[];
  /** Which entries are one: a watch written twice (a slow write again); of several, the latest `until` is kept. */
  id: (entry: Pick<E, 'currency' | 'address' | 'until'>) => string;
  /** How long past `until` an entry still counts. */
  keepMs: number;
}

/** An address stays matched by a block chain's watcher this long past `until` (and every item stays in the table as long). */
export const KEEP_AFTER_UNTIL_MS = 86_400_000;

/** The block chains' items: one an invoice address; of an address listed twice the latest window counts. */
export const BLOCK_CHAIN_ITEMS: WatchItems<ListedAddress> = {
  prefix: OPEN_PREFIX,
  type: ENTITY.openAddress,
  key: (entry, writtenAt) => openAddressKey(entry.chain, writtenAt, entry.currency, entry.address),
  fields: ['currency', 'address', 'until'],
  id: paidAddressId,
  keepMs: KEEP_AFTER_UNTIL_MS,
};

/** The per-address sources' items: one an invoice's watch, with its own `since` and recipient. */
export const PER_ADDRESS_ITEMS: WatchItems<WatchedAddress> = {
  prefix: WATCH_PREFIX,
  type: ENTITY.watchedAddress,
  key: (entry, writtenAt) => watchedAddressKey(entry.chain, writtenAt, entry.address),
  fields: ['chain', 'address', 'currency', 'since', 'open_until', 'until', 'recipient', 'kind', 'owner'],
  id: (entry) => `${entry.until}#${entry.address}`,
  keepMs: 0,
};

/**
 * Adds an address to its chain's list (before it is shown): one item keyed by its write time;
 * a write slower than the budget is written again (a reader merges the two). `clock` is the
 * wall clock (tests move it).
 */
export async function watchAddress<E extends ListedAddress>(items: WatchItems<E>, entry: E, clock: () => number = Date.now): Promise<void> {
  const fields = Object.fromEntries(items.fields.filter((field) => entry[field] !== undefined).map((field) => [field, entry[field]]));
  await putKeyedByWriteTime(
    (writtenAt) => ({ ...items.key(entry, writtenAt), type: items.type, ...fields, [TABLE_KEYS.ttlAttribute]: Math.ceil((Date.parse(entry.until) + KEEP_AFTER_UNTIL_MS) / 1000) }),
    `watch list of ${entry.chain}`,
    clock,
  );
}

/**
 * Ends the watch of `address` on a per-address source's list before its window does (Solana: a
 * refund's wallet once no refund waits on it, so its token account is no longer read every
 * step): an item of the `ended` kind, read after the watch it ends (both keyed by write time),
 * drops every watch of the address a reader holds; a watch written after it starts again.
 */
export async function endWatch(chain: string, address: string, now: Date, clock: () => number = Date.now): Promise<void> {
  const at = now.toISOString();
  await watchAddress(PER_ADDRESS_ITEMS, { chain, address, currency: '', since: at, open_until: at, until: new Date(now.getTime() + 86_400_000).toISOString(), kind: 'ended' }, clock);
}

/**
 * When the chain's list began (ms): the first call's `at`, kept (one UpdateItem per watcher
 * container). Tests of a list that existed long ago pass an old `at`.
 */
export async function openListStartedAt(chain: string, at: number): Promise<number> {
  const result = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: openListStartKey(chain),
      UpdateExpression: 'SET started_at = if_not_exists(started_at, :at)',
      ExpressionAttributeValues: { ':at': new Date(at).toISOString() },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return Date.parse(String(result.Attributes?.started_at));
}

/**
 * A watcher's copy of its chain's list, kept as long as the watcher (a warm container): read
 * whole once, then incrementally (see the module's comment).
 */
export class WatchList<E extends ListedAddress> {
  /** The entries by id, while they count. */
  private readonly entries = new Map<string, E>();
  private readonly reader: IncrementalReader;
  /** The entries in `until` order, rebuilt only after the map changed. */
  private ordered: E[] | undefined;
  private prunedAt = 0;
  /** From when the list holds every address (ms); read with the first refresh. */
  private completeFrom: number | undefined;

  constructor(
    private readonly items: WatchItems<E>,
    readonly chain: string,
    private readonly options: {
      /** A list that began after invoices were shown (the block chains'): how long after its start they are all past their window. */
      fillMs?: number;
      /** The wall clock the items' keys are written on (not the watcher's clock, which tests move). */
      wallClock?: () => number;
    } = {},
  ) {
    this.reader = new IncrementalReader(chainPartition(chain), items.prefix, ['type', ...items.fields], options.wallClock);
  }

  /** Reads what was added since the previous read (all of it the first time), and forgets what no longer counts at `now`. */
  async refresh(now: Date): Promise<IncrementalRead> {
    const { fillMs, wallClock = Date.now } = this.options;
    this.completeFrom ??= fillMs === undefined ? 0 : (await openListStartedAt(this.chain, wallClock())) + fillMs;
    const read = await this.reader.read((item) => this.take(item));
    this.prune(now);
    return read;
  }

  /** Whether every address watched at `now` is on the list (after a refresh): until then a block chain's watcher looks every transfer up. */
  complete(now: Date): boolean {
    return this.completeFrom !== undefined && now.getTime() >= this.completeFrom;
  }

  /** The entries that count at `now`, oldest `until` first, as of the last read. */
  watched(now: Date): E[] {
    this.ordered ??= [...this.entries.values()].sort((a, b) => (a.until < b.until ? -1 : a.until > b.until ? 1 : 0));
    return this.ordered.filter((entry) => this.counts(entry, now));
  }

  /** {@link refresh}, then {@link watched}: what a step watches. */
  async current(now: Date): Promise<E[]> {
    await this.refresh(now);
    return this.watched(now);
  }

  /** Whether a transfer to `paid` may pay an entry that counts at `now` (a list whose entries are one per address: the block chains'). */
  has(paid: PaidAddress, now: Date): boolean {
    const entry = this.entries.get(this.items.id({ ...paid, until: '' }));
    return entry !== undefined && this.counts(entry, now);
  }

  /** Entries held (counting or not, until the next prune). */
  get size(): number {
    return this.entries.size;
  }

  private counts(entry: E, now: Date): boolean {
    return now.getTime() <= Date.parse(entry.until) + this.items.keepMs;
  }

  /**
   * Keeps an entry (the later `until` of one id); any other item under the prefix is passed
   * over (the 'UNWATCHED_ADDRESS' items an earlier version could write, though nothing ever
   * did: an address left watched costs nothing but a match that never comes).
   */
  private take(item: Record<string, unknown>): void {
    if (item.type !== this.items.type) return;
    const entry = { chain: this.chain, ...Object.fromEntries(this.items.fields.filter((field) => item[field] !== undefined).map((field) => [field, String(item[field])])) } as E;
    if ((entry as { kind?: string }).kind === 'ended') {
      for (const [id, held] of this.entries) if (held.address === entry.address) this.entries.delete(id);
      this.ordered = undefined;
      return;
    }
    const id = this.items.id(entry);
    const known = this.entries.get(id);
    if (known !== undefined && Date.parse(known.until) >= Date.parse(entry.until)) return;
    this.entries.set(id, entry);
    this.ordered = undefined;
  }

  /** Drops the entries that no longer count, at most once a minute. */
  private prune(now: Date): void {
    if (now.getTime() - this.prunedAt < 60_000) return;
    this.prunedAt = now.getTime();
    for (const [id, entry] of this.entries) {
      if (!this.counts(entry, now)) {
        this.entries.delete(id);
        this.ordered = undefined;
      }
    }
  }
}

/** The chain's entries that count at `now`, oldest `until` first: one whole read (a cold container's). */
export async function listWatchedAddresses<E extends ListedAddress>(items: WatchItems<E>, chain: string, now: Date): Promise<E[]> {
  return new WatchList(items, chain).current(now);
}
