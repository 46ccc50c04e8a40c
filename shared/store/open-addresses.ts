/**
 * The open addresses of a block chain (BTC, LTC, BCH, ETH and its tokens, every EVM network):
 * each invoice address its watcher must match, from checkout until the invoice's late-payment
 * window is over. The watcher looks up in the address index only the outputs paid to one of
 * them, instead of every output of every block (AWS bills 0.5 read unit per key of a
 * BatchGetItem, found or not: on a busy chain almost all of them are not ours).
 *
 * Checkout writes one item per address in the chain's partition, sorted by the time it was
 * written (keys.ts: OPEN#<written at>#...), before the address is shown to anyone. A watcher's
 * {@link OpenAddressList} reads the whole list once (a cold container), then, before each
 * booking, only what was written since its previous read began, less a margin
 * (incremental-list.ts: the margin and why it misses nothing).
 *
 * Why no address is missed: a payment to an address exists only after the buyer saw it, so
 * after its item's write was acknowledged. The watcher reads the list (strongly consistent)
 * after it fetched the transfers it books, so every item acknowledged before those transfers
 * existed is on the list it matches them against; the watcher books nothing it has not matched
 * against a completed read.
 *
 * Invoices shown before a chain's list began (by the version deployed before it, or by its API
 * functions while the deploy is under way) are not on it. So the list counts as complete only
 * once they are all past their window: from its start (the first watcher container that read
 * it, {@link openListStartedAt}) plus `fillMs` (the deploy's overlap, the longest invoice, the
 * late window and the day kept after it). Until then the watcher looks every transfer up, as
 * before the list existed: nothing paid to an older invoice is missed after an upgrade.
 */
import { IncrementalReader, type IncrementalRead, putKeyedByWriteTime } from '#shared/store/incremental-list';
import { paidAddressId, type PaidAddress } from '#shared/store/address-index';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { chainPartition, ENTITY, OPEN_PREFIX, openAddressKey, openListStartKey } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

export interface OpenAddress {
  /** The block chain whose watcher sees the payments (a token's chain: USDT_ERC20 -> ETH). */
  chain: string;
  /** The invoice's pay currency, as the address index keys it. */
  currency: string;
  address: string;
  /** The end of the invoice's late-payment window (ISO): matched until then, and a day more. */
  until: string;
}

/** An address stays matched (and its item in the table) this long past `until`: a block scanned late still finds it. */
export const KEEP_AFTER_UNTIL_MS = 86_400_000;

/** The chain's open-address list item of `entry`, keyed by `writtenAt`. */
function openAddressItem(entry: OpenAddress, writtenAt: string): Record<string, unknown> {
  return {
    ...openAddressKey(entry.chain, writtenAt, entry.currency, entry.address),
    type: ENTITY.openAddress,
    currency: entry.currency,
    address: entry.address,
    until: entry.until,
    [TABLE_KEYS.ttlAttribute]: Math.ceil((Date.parse(entry.until) + KEEP_AFTER_UNTIL_MS) / 1000),
  };
}

/**
 * Adds an address to its chain's list (before it is shown), keyed by its write time; a write
 * slower than the budget is written again (incremental-list.ts). `clock` is the wall clock (tests move it).
 */
export async function openAddress(entry: OpenAddress, clock: () => number = Date.now): Promise<void> {
  await putKeyedByWriteTime((writtenAt) => openAddressItem(entry, writtenAt), `open addresses of ${entry.chain}`, clock);
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
 * A watcher's copy of its chain's open addresses, kept as long as the watcher (a warm
 * container): read whole once, then incrementally (see the module's comment).
 */
export class OpenAddressList {
  /** paidAddressId -> the latest `until` (ms) of the address's items. */
  private readonly open = new Map<string, number>();
  private readonly reader: IncrementalReader;
  private prunedAt = 0;
  /** From when the list holds every open address (ms); read with the first refresh. */
  private completeFrom: number | undefined;

  constructor(
    readonly chain: string,
    /** How long after the list began the invoices shown before it are all past their window (see the module's comment). */
    private readonly fillMs: number,
    /** The wall clock the items' keys are written on (not the watcher's clock, which tests move). */
    private readonly wallClock: () => number = Date.now,
  ) {
    this.reader = new IncrementalReader(chainPartition(chain), OPEN_PREFIX, ['currency', 'address', 'until'], wallClock);
  }

  /** Reads what was added since the previous read (all of it the first time), and forgets what is past its window at `now`. */
  async refresh(now: Date): Promise<IncrementalRead> {
    this.completeFrom ??= (await openListStartedAt(this.chain, this.wallClock())) + this.fillMs;
    const read = await this.reader.read((item) => {
      const id = paidAddressId({ currency: String(item.currency), address: String(item.address) });
      const until = Date.parse(String(item.until));
      const known = this.open.get(id);
      if (known === undefined || known < until) this.open.set(id, until);
    });
    this.prune(now);
    return read;
  }

  /** Whether every open address is on the list at `now` (after a refresh): until then every transfer must be looked up. */
  complete(now: Date): boolean {
    return this.completeFrom !== undefined && now.getTime() >= this.completeFrom;
  }

  /** Whether a transfer to `paid` may pay an open invoice (its address is on the list and within its window). */
  has(paid: PaidAddress, now: Date): boolean {
    const until = this.open.get(paidAddressId(paid));
    return until !== undefined && now.getTime() <= until + KEEP_AFTER_UNTIL_MS;
  }

  /** Addresses held. */
  get size(): number {
    return this.open.size;
  }

  /** Drops the addresses past their window, at most once a minute. */
  private prune(now: Date): void {
    if (now.getTime() - this.prunedAt < 60_000) return;
    this.prunedAt = now.getTime();
    for (const [id, until] of this.open) if (now.getTime() > until + KEEP_AFTER_UNTIL_MS) this.open.delete(id);
  }
}
