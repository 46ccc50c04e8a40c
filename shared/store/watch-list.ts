/**
 * The addresses TRON's and Solana's watchers watch: TRON's matches every one against the
 * Transfer events of each range of solid blocks; Solana's source answers "what did this
 * reference receive", so its watcher polls each open invoice's Solana Pay reference. Checkout adds the invoice's address here, before it is shown: one
 * item in the chain's partition, sorted by the time it was written (keys.ts), which DynamoDB's
 * TTL removes a day after the late window.
 *
 * A watcher's {@link WatchList} reads the whole list once (a cold container), then at each step,
 * strongly consistent, only what was written since its previous read began, less a margin
 * (incremental-list.ts, shared with the block chains' open addresses): a checkout acknowledged
 * before a step's read began is on that read. An idle step is one Query that finds nothing.
 *
 * Two horizons: `open_until` (the invoice's expiry: Solana polls it every step) and `until`
 * (expiry plus the late-payment window: Solana polls it now and then, so a late payment is still
 * seen and judged by the lifecycle's late rule without costing a request every few seconds for
 * a week; TRON matches it every step at no cost). Past
 * `until` an entry is no longer returned, and is dropped from the watcher's memory.
 *
 * Upgrade: items written before 2026-11-26 are keyed by `until` (keys.ts
 * legacyWatchedAddressKey), a time never earlier than their write: a cold read reads them with
 * the rest, and each warm read reads them again until their window ends (their old cost, for at
 * most one late window after the upgrade). No migration.
 */
import { IncrementalReader, type IncrementalRead, putKeyedByWriteTime } from '#shared/store/incremental-list';
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
  /** Solana: the merchant wallet the reference's transfer must pay (a refund's: the buyer's wallet). */
  recipient?: string;
  /**
   * Solana: `refund` for a refund's wallet (shared/store/refund-watches.ts): its address is the
   * buyer's wallet, not a reference, and whatever the wallet gains in the mint pays it.
   */
  kind?: 'refund' | 'ended';
}

const FIELDS = ['chain', 'address', 'currency', 'since', 'open_until', 'until', 'recipient', 'kind'] as const;

/** An item is kept this long past `until` (its TTL). */
const KEEP_AFTER_UNTIL_S = 86_400;
const expiresAt = (until: string): number => Math.ceil(Date.parse(until) / 1000) + KEEP_AFTER_UNTIL_S;

/** One watch of an address: the same address and horizon written twice (a slow write again) is one. */
const watchId = (entry: Pick<WatchedAddress, 'address' | 'until'>): string => `${entry.until}#${entry.address}`;

/**
 * Watches an address: one item keyed by its write time; a write slower than the budget is
 * written again (a reader merges the two). `clock` is the wall clock (tests move it).
 */
export async function watchAddress(entry: WatchedAddress, clock: () => number = Date.now): Promise<void> {
  await putKeyedByWriteTime(
    (writtenAt) => ({ ...watchedAddressKey(entry.chain, writtenAt, entry.address), type: ENTITY.watchedAddress, ...entry, [TABLE_KEYS.ttlAttribute]: expiresAt(entry.until) }),
    `watch list of ${entry.chain}`,
    clock,
  );
}

/**
 * Ends the watch of `address` before its window does (Solana: a refund's wallet once no refund
 * waits on it, so its token account is no longer read every step): an item of the `ended`
 * kind, read after the watch it ends (both keyed by write time), drops every watch of the
 * address a reader holds; a watch written after it starts again.
 */
export async function endWatch(chain: string, address: string, now: Date, clock: () => number = Date.now): Promise<void> {
  const at = now.toISOString();
  await watchAddress({ chain, address, currency: '', since: at, open_until: at, until: new Date(now.getTime() + 86_400_000).toISOString(), kind: 'ended' }, clock);
}

/**
 * A watcher's copy of its chain's watch list, kept as long as the watcher (a warm container):
 * read whole once, then incrementally (see the module's comment).
 */
export class WatchList {
  /** watchId -> the entry, while its window lasts. */
  private readonly entries = new Map<string, WatchedAddress>();
  private readonly reader: IncrementalReader;
  /** The entries in `until` order, rebuilt only after the map changed. */
  private ordered: WatchedAddress[] | undefined;
  private prunedAt = 0;

  constructor(
    readonly chain: string,
    /** The wall clock the items' keys are written on (not the watcher's clock, which tests move). */
    wallClock: () => number = Date.now,
  ) {
    this.reader = new IncrementalReader(chainPartition(chain), WATCH_PREFIX, ['type', ...FIELDS], wallClock);
  }

  /** Reads what was added since the previous read (all of it the first time), and forgets what is past its window at `now`. */
  async refresh(now: Date): Promise<IncrementalRead> {
    const read = await this.reader.read((item) => this.take(item));
    this.prune(now);
    return read;
  }

  /** The entries still watched at `now` (their late window not over), oldest horizon first, as of the last read. */
  watched(now: Date): WatchedAddress[] {
    this.ordered ??= [...this.entries.values()].sort((a, b) => (a.until < b.until ? -1 : a.until > b.until ? 1 : 0));
    const at = now.toISOString();
    return this.ordered.filter((entry) => entry.until >= at);
  }

  /** {@link refresh}, then {@link watched}: what a step watches. */
  async current(now: Date): Promise<WatchedAddress[]> {
    await this.refresh(now);
    return this.watched(now);
  }

  /** Entries held (the window over or not, until the next prune). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Keeps a watch item; any other item under the prefix is passed over (the 'UNWATCHED_ADDRESS'
   * items an earlier version could write, though nothing ever did: an address left watched
   * costs nothing but a match that never comes).
   */
  private take(item: Record<string, unknown>): void {
    if (item.type !== ENTITY.watchedAddress) return;
    const entry = Object.fromEntries(FIELDS.filter((field) => item[field] !== undefined).map((field) => [field, String(item[field])])) as unknown as WatchedAddress;
    if (entry.kind === 'ended') {
      for (const [id, held] of this.entries) if (held.address === entry.address) this.entries.delete(id);
      this.ordered = undefined;
      return;
    }
    const id = watchId(entry);
    if (this.entries.has(id)) return;
    this.entries.set(id, entry);
    this.ordered = undefined;
  }

  /** Drops the entries past their window, at most once a minute. */
  private prune(now: Date): void {
    if (now.getTime() - this.prunedAt < 60_000) return;
    this.prunedAt = now.getTime();
    const at = now.toISOString();
    for (const [id, entry] of this.entries) {
      if (entry.until < at) {
        this.entries.delete(id);
        this.ordered = undefined;
      }
    }
  }
}

/** The chain's addresses still watched at `now`, oldest horizon first: one whole read (a cold container's). */
export async function listWatchedAddresses(chain: string, now: Date): Promise<WatchedAddress[]> {
  return new WatchList(chain).current(now);
}
