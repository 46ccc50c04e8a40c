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
 * booking, only what was written since its previous read began, less {@link READ_OVERLAP_MS}.
 *
 * Why no address is missed: a payment to an address exists only after the buyer saw it, so
 * after its item's write was acknowledged. The watcher reads the list (strongly consistent)
 * after it fetched the transfers it books, so every item acknowledged before those transfers
 * existed is visible to that read. An item not seen by the previous read was acknowledged after
 * that read began; its key time was taken at most {@link OPEN_WRITE_BUDGET_MS} before the
 * acknowledgement (the writer checks, and writes again with a new time if it took longer), on
 * a clock at most {@link CLOCK_SKEW_MS} off: so it sorts after `previous read - overlap`, where
 * this read starts. A read that fails moves nothing (the next one starts from the same place),
 * and the watcher books nothing it has not matched against a completed read.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, query, tableName } from '#shared/store/client';
import { paidAddressId, type PaidAddress } from '#shared/store/address-index';
import { chainPartition, ENTITY, OPEN_PREFIX, openAddressKey } from '#shared/store/keys';
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

/** The longest a writer lets pass between the time in an item's key and its write's acknowledgement. */
export const OPEN_WRITE_BUDGET_MS = 10_000;
/** The clock difference tolerated between two processes (Lambda's clocks are NTP-synced: milliseconds). */
export const CLOCK_SKEW_MS = 5_000;
/** A warm reader reads again from this long before its previous read began. */
export const READ_OVERLAP_MS = OPEN_WRITE_BUDGET_MS + 2 * CLOCK_SKEW_MS;
/** An address stays matched (and its item in the table) this long past `until`: a block scanned late still finds it. */
export const KEEP_AFTER_UNTIL_MS = 86_400_000;
/** Writes tried before a checkout gives up (each slower than the budget: the table is struggling). */
const WRITE_ATTEMPTS = 3;

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
 * Adds an address to its chain's list (before it is shown). A write acknowledged later than
 * {@link OPEN_WRITE_BUDGET_MS} after the time in its key is written again under a new time, so
 * a warm reader's overlap always covers it; `clock` is the wall clock (tests move it).
 */
export async function openAddress(entry: OpenAddress, clock: () => number = Date.now): Promise<void> {
  for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt += 1) {
    const writtenAt = clock();
    await db().send(new PutCommand({ TableName: tableName(), Item: openAddressItem(entry, new Date(writtenAt).toISOString()) }));
    if (clock() - writtenAt <= OPEN_WRITE_BUDGET_MS) return;
  }
  throw new Error(`open addresses: ${WRITE_ATTEMPTS} writes for ${entry.chain} each took longer than ${OPEN_WRITE_BUDGET_MS} ms`);
}

/** What one {@link OpenAddressList.refresh} read. */
export interface OpenAddressRead {
  /** Items read (the overlap reads some again). */
  items: number;
  /** Whether it read the whole list (the first read of a container). */
  full: boolean;
}

/**
 * A watcher's copy of its chain's open addresses, kept as long as the watcher (a warm
 * container): read whole once, then incrementally (see the module's comment).
 */
export class OpenAddressList {
  /** paidAddressId -> the latest `until` (ms) of the address's items. */
  private readonly open = new Map<string, number>();
  /** The key time the next read starts at; undefined: never read, the next read is whole. */
  private readFrom: string | undefined;
  private prunedAt = 0;

  constructor(
    readonly chain: string,
    /** The wall clock the items' keys are written on (not the watcher's clock, which tests move). */
    private readonly wallClock: () => number = Date.now,
  ) {}

  /** Reads what was added since the previous read (all of it the first time), and forgets what is past its window at `now`. */
  async refresh(now: Date): Promise<OpenAddressRead> {
    const started = this.wallClock();
    const full = this.readFrom === undefined;
    let items = 0;
    let startKey: Record<string, unknown> | undefined;
    // Page by page (a cold read of a busy chain is many pages): only the map grows.
    do {
      const page = await query({
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeNames: { '#currency': 'currency', '#address': 'address', '#until': 'until' },
        ExpressionAttributeValues: { ':pk': chainPartition(this.chain), ':from': `${OPEN_PREFIX}${this.readFrom ?? ''}`, ':to': `${OPEN_PREFIX}~` },
        ProjectionExpression: '#currency, #address, #until',
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      });
      for (const item of page.Items ?? []) {
        const id = paidAddressId({ currency: String(item.currency), address: String(item.address) });
        const until = Date.parse(String(item.until));
        const known = this.open.get(id);
        if (known === undefined || known < until) this.open.set(id, until);
      }
      items += page.Items?.length ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    // Only once the read completed: a failed read leaves the next one starting where this one did.
    this.readFrom = new Date(started - READ_OVERLAP_MS).toISOString();
    this.prune(now);
    return { items, full };
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
