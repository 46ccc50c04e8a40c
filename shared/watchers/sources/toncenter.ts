import { Cell, type Slice } from '@ton/core';
import { ExpiringCache } from '#shared/core/cache';
import { SourceError } from '#shared/core/source-error';
import { fromMinorUnits } from '#shared/domain/money';
import { canonicalTonAddress, parseTonAddress } from '#shared/payments/addresses/ton';
import type { SourceHead } from '#shared/watchers/sources/head-check';
import { DEFAULT_HTTP_POLICY, type HttpPolicy, requestJsonObject } from '#shared/watchers/sources/http';
import { earliestWatch, PerAddressChecks, type WatchEntry } from '#shared/watchers/sources/per-address';
import type { IndexedSource, SourceHealthNote, Transfer } from '#shared/watchers/sources/port';

/**
 * TON and USDT on TON, read from toncenter's API v3 (the ton-indexer, github.com/toncenter/
 * ton-indexer, ton-index-go), without a key of ours: merchants give their own wallet, and an
 * invoice is told apart by the text comment its transfer carries (each invoice of a merchant
 * its own). The source follows the merchants' accounts, never one request per invoice:
 *
 * - per step, one `GET /api/v3/masterchainInfo` (the newest indexed masterchain block: how far
 *   the index has got, for the health and the watermark below);
 * - for the accounts watched in TON, `GET /api/v3/transactions` with many `account` parameters
 *   (the API takes a list: models.TransactionRequest), `start_utime`, `sort=asc`, `limit=1000`;
 * - for the owners watched in USDT_TON, `GET /api/v3/jetton/transfers` with many
 *   `owner_address`, `jetton_master=<USDT master>`, `direction=in`, the same window and order;
 * - the accounts go in batches of at most 100 and a bounded URL, sorted by how far back each
 *   must be read, so 2 or 1,000 open invoices over 50 merchants cost the same three requests.
 *
 * What pays (and what never does):
 *
 * - TON: an incoming internal message whose value stayed with the account: a credit phase, no
 *   bounce phase, not itself a bounced message, and a plain transfer's body (empty, or op 0
 *   and a UTF-8 comment, continued in refs: "snake"). Not `aborted`: a transfer to a wallet not
 *   deployed yet is aborted (no code to run) and still credited. The comment is read from the
 *   message body's BOC here (its hash checked against the answer's), not from the indexer's
 *   optional `decoded`. A jetton notification, an excess or any other op is not a payment.
 * - USDT: a jetton transfer record of the configured master (the indexer takes `jetton_master`
 *   from the sending jetton wallet's get_wallet_data and checks that the master's
 *   get_wallet_address names that wallet: tondb-scanner's JettonWalletDetector; a look-alike
 *   master is another master, and is never counted), not `transaction_aborted` (the record is
 *   the sending jetton wallet's transaction of the `transfer` op; the API leaves aborted ones out
 *   anyway: crud_jettons.go). The comment is the forward payload's op 0 text: the API gives it
 *   only when it is in a ref (`forward_payload`; an inline one is stored as null: the indexer
 *   reads the field with `fetch_maybe_ref`), so for a record without one, the transaction is
 *   read by hash (`GET /api/v3/transactions?hash=...`, one request for many) and the payload
 *   read from its `transfer` body. Whether the owner's transfer notification was aborted does
 *   not matter: the jettons moved.
 * - A transfer to a merchant's account is reported with its comment as it is, trimmed: the
 *   booking matches it against the invoices. One without a comment (or with one no invoice could
 *   have: not text, too long) is reported without a memo: a buyer who left it out paid the
 *   merchant all the same, and the watcher keeps it as unmatched for the merchant to see.
 * - Refunds (store/refund-watches.ts): a watch-list entry of kind `refund` names a buyer's
 *   address; what that address is credited in the entry's currency (TON as above, comment or
 *   not; USDT by a record to it as owner) is reported to it without a memo.
 *
 * Keys, unique forever: a TON payment is `<transaction hash>` (the receiving account's
 * transaction, 64 lowercase hex), a USDT payment `<hash>:jetton` (the sending jetton wallet's
 * transaction, as the record names it). The txid shown is that hash in hex (toncenter answers
 * it in base64; explorers take hex). No block is reported: the transaction names its
 * masterchain block's seqno but not that block's hash, and the index serves only transactions
 * of committed masterchain blocks, final when read (the booking takes them as final).
 *
 * Where each account is read from. The index orders a many-account answer by time (`now`),
 * logical time, then account; logical times of different shards say nothing of each other, and
 * a jetton record's is the sender's wallet's, so the per-account place is a time: everything
 * of that account (in that currency) before it is read and booked. It is kept in memory and
 * moved only once the watcher has booked the step ({@link TonTransfers.booked}): a step whose
 * booking failed reads the same again. A complete read moves it to the newest indexed
 * masterchain block's time less two minutes (a transaction indexed later was made in a shard
 * block a few seconds before the masterchain block that commits it), so each step reads the
 * last two minutes again: what was already booked is skipped by its key (kept in memory), and
 * what a cold process reads again is booked once by the same key. A page full to the limit
 * goes on from its last item's time (the index sorts jetton records by time alone: a page by
 * offset could skip an equal). Catching up (before those two minutes), a step reads at most
 * {@link PAGES_PER_STEP} pages and goes on next step from where it stopped (`more`); the last
 * two minutes are read to their end every step, so however busy an account is, each step gets
 * past them (their cost grows with payments, not with time or invoices).
 *
 * The watcher's cursor (index-cursors.ts) holds a watermark: the oldest place of the accounts
 * watched, in seconds: every transfer before it, to every watched account, was read and
 * booked. A cold process reads each account back to the later of the watermark and its oldest
 * watched invoice's creation less ten minutes (clocks); with no watermark, back to that
 * creation. It is written at most every ten minutes: a write per ten minutes while invoices are
 * watched, none while idle.
 *
 * Before anything, once per process, the API must be on TON mainnet: the newest masterchain
 * block's `global_id` (every block header carries its network's: -239 mainnet, -3 testnet) must
 * be the configured one (chain-check.ts), or the step fails `wrong_chain`. The API's v3 serves
 * no zero state to compare (masterchainInfo's `first` is the first block the index holds, which
 * depends on where that index began). Requests are spaced to stay inside toncenter's rate (1 a
 * second without a key, 10 with one; 429 past it), and tried again by requestText on 429/5xx.
 */

/** The networks' `global_id` as each block header writes it (block.tlb `global_id:int32`; the global config's). */
const TON_GLOBAL_ID = { mainnet: -239, testnet: -3 } as const;

/** What the chain check compares: the network's global id, as a string. */
const networkIdentity = (globalId: number): string => `global_id ${globalId}`;

/** The known networks by what the check reads, named in a wrong-chain error. */
const TON_NETWORKS: Readonly<Record<string, string>> = {
  [networkIdentity(TON_GLOBAL_ID.mainnet)]: 'mainnet',
  [networkIdentity(TON_GLOBAL_ID.testnet)]: 'testnet',
};

/** TON: nanotons; USDT: its jetton's 6 decimals. */
const TON_DECIMALS = 9;
const USDT_DECIMALS = 6;

/** The API's largest `limit`. */
const PAGE = 1000;
/** Pages one step reads at most (over all batches): its work, and its requests at 1 a second without a key. */
export const PAGES_PER_STEP = 10;
/** Accounts one request names at most, and how long its query may grow (a proxy's URL limit is often 8 KiB). */
const BATCH_ACCOUNTS = 100;
const MAX_QUERY_CHARS = 6000;
/** Hashes one look-up by hash names at most. */
const HASH_BATCH = 50;
/** How far before an invoice's creation its account is read back: the service's clock and the chain's differ. */
const SINCE_MARGIN_S = 600;
/** How far behind the newest indexed masterchain block's time a read counts as complete (see the module comment). */
const HEAD_MARGIN_S = 120;
/** The watermark moves at most this often: a cold start reads this much again, and the cursor is written no more often. */
const WATERMARK_EVERY_S = 600;
/** Keys booked, kept to skip what each step reads again (the last two minutes), and how long. */
const KEEP = 10_000;
const KEEP_MS = 3_600_000;
/**
 * The longest comment reported, in characters: an invoice's is far shorter, and a memo is part
 * of the address index's key (DynamoDB takes 2,048 bytes at most), so a longer one is no
 * invoice's and is not reported.
 */
const MAX_COMMENT_CHARS = 128;
/** Accounts whose places are further apart than this are read in requests of their own while one catches up (a new account's week is not read for all). */
const CATCH_UP_SPLIT_S = 600;
/** An answer larger than this is not one of ours (1,000 transactions are a few MB). */
const MAX_BODY_BYTES = 16_000_000;

/** TEP-74's ops: a jetton wallet's `transfer`. */
const JETTON_TRANSFER = 0x0f8a7ea5;

export interface ToncenterOptions {
  /** The API's base URL (TON_API_URL): https://toncenter.com, or a ton-indexer of one's own; `/api/v3` may be included. */
  url: string;
  /** TON_API_KEY, sent as X-API-Key: 10 requests a second instead of 1 (or how to read it: an SSM parameter, on first use). */
  apiKey?: string | (() => Promise<string>);
  /** The USDT jetton master (any form); its transfers are USDT_TON. */
  usdtMaster: string;
  /** The accounts watched (the run reads them from shared/store/watch-list.ts). */
  watched: (now: Date) => Promise<readonly TonWatched[]>;
  clock?: () => Date;
  timeoutMs?: number;
  attempts?: number;
  /** The network the API must serve: its blocks' global_id (mainnet's by default). */
  globalId?: number;
  /** The least time between two requests, ms (default: 1,100 without a key, 110 with one). */
  minIntervalMs?: number;
  /** Items a page asks (the API's largest, 1,000, by default; tests ask fewer). */
  pageSize?: number;
}

/**
 * What the source needs of a watch-list entry (the per-address list's WatchedAddress): the
 * merchant's canonical address (several invoices share it), TON or USDT_TON, when the invoice
 * was made, and `refund` for a buyer's address awaiting a refund.
 */
export interface TonWatched extends WatchEntry {
  kind?: string;
}

/** A transaction as the source reads it from an answer (checked). */
interface ReadTx {
  /** 64 lowercase hex. */
  hash: string;
  lt: bigint;
  now: number;
  /** Canonical; undefined for an account off the basechain. */
  account: string | undefined;
  /** A plain TON transfer credited to the account, with its comment. */
  credit?: { nanotons: bigint; comment?: string };
  /** The in-message's body when it is a jetton wallet's `transfer` (its forward payload may hold a comment). */
  jettonTransfer?: Cell;
  outMessages: number;
}

/** A jetton transfer record (checked). */
interface JettonRecord {
  /** The sending jetton wallet's transaction, 64 lowercase hex. */
  hash: string;
  now: number;
  aborted: boolean;
  master: string | undefined;
  /** The owner it pays, canonical. */
  destination: string | undefined;
  sourceWallet: string | undefined;
  units: bigint;
  /** The forward payload when the record has it (a ref); undefined: none, or inline. */
  payload?: Cell;
}

/** What a watched account is watched for in one currency. */
interface Watched {
  account: string;
  /** Read back to this time (s). */
  floor: number;
  /** A merchant's account (commented transfers pay its invoices). */
  invoice: boolean;
  /** A buyer's address awaiting a refund (whatever it is credited pays it). */
  refund: boolean;
}

/** What a step moves, applied once its transfers are booked. */
interface StepState {
  through: Map<string, number>;
  /** Reported: skipped when read again. */
  keys: Set<string>;
  offset: number;
}

/** The currencies this source reads. */
type Currency = 'TON' | 'USDT_TON';

class ToncenterClient {
  readonly source: string;
  private readonly base: string;
  private readonly http: HttpPolicy;
  private headers: Record<string, string> | undefined;
  private readonly key: ToncenterOptions['apiKey'];
  private readonly interval: number;
  private nextAt = 0;

  constructor(options: Pick<ToncenterOptions, 'url' | 'apiKey' | 'timeoutMs' | 'attempts' | 'minIntervalMs'>) {
    const url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RangeError(`TON API URL must be http(s), got "${url.protocol}"`);
    this.base = url
      .toString()
      .replace(/\/+$/, '')
      .replace(/\/api\/v3$/, '');
    this.source = `toncenter:${url.host}`;
    this.http = { ...DEFAULT_HTTP_POLICY, maxBodyBytes: MAX_BODY_BYTES, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.attempts ? { attempts: options.attempts } : {}) };
    this.key = options.apiKey;
    this.interval = options.minIntervalMs ?? (options.apiKey ? 110 : 1100);
  }

  /** `GET /api/v3/<path>?<params>` as JSON; undefined for a 404 where `notFound` allows one (adjacentTransactions answers 404 for none). */
  async get(path: string, params: readonly (readonly [string, string])[], notFound = false): Promise<Record<string, unknown> | undefined> {
    const query = new URLSearchParams(params.map(([name, value]) => [name, value]));
    await this.pace();
    return requestJsonObject(this.source, `${this.base}/api/v3/${path}?${query}`, { method: 'GET', headers: await this.requestHeaders() }, this.http, {
      name: path,
      ...(notFound ? { missing: [404] } : {}),
      detail: errorOf,
    });
  }

  /** The newest indexed masterchain block: its seqno, time and network (`GET /api/v3/masterchainInfo`). */
  async masterchainHead(): Promise<SourceHead & { globalId: number }> {
    const last = (await this.get('masterchainInfo', []))?.last as Record<string, unknown> | undefined;
    const seqno = last?.seqno;
    const time = last?.gen_utime;
    const globalId = last?.global_id;
    if (!last || last.workchain !== -1 || !Number.isSafeInteger(seqno) || typeof time !== 'string' || !/^\d{1,12}$/.test(time) || !Number.isSafeInteger(globalId)) {
      throw this.error('masterchainInfo did not answer its last block with seqno, gen_utime and global_id');
    }
    return { height: seqno as number, time: new Date(Number(time) * 1000), globalId: globalId as number };
  }

  error(message: string): SourceError {
    return new SourceError(this.source, message);
  }

  /** The headers of every request, the key read once (from SSM in AWS) on the first. */
  private async requestHeaders(): Promise<Record<string, string>> {
    if (!this.headers) {
      const key = typeof this.key === 'function' ? await this.key() : this.key;
      // The address book and the jettons' metadata are other look-ups of the index for each answer; nothing here reads them.
      this.headers = { accept: 'application/json', 'X-No-Address-Book': 'true', 'X-No-Metadata': 'true', ...(key ? { 'X-API-Key': key } : {}) };
    }
    return this.headers;
  }

  /** Spaces requests by the interval (toncenter answers 429 past its rate). */
  private async pace(): Promise<void> {
    const now = Date.now();
    const wait = this.nextAt - now;
    this.nextAt = Math.max(now, this.nextAt) + this.interval;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** The error message an answer carries (`{"error": "..."}`), shortened. */
function errorOf(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: unknown }).error;
    return typeof message === 'string' ? `: ${message.slice(0, 200)}` : '';
  } catch {
    return '';
  }
}

/**
 * The TON watcher's source: TON and USDT_TON payments to the watched accounts, from toncenter's
 * API v3 (see the module comment). Its cursor is the watermark (seconds).
 */
export class TonTransfers implements IndexedSource {
  readonly chain = 'TON';
  private readonly client: ToncenterClient;
  private readonly clock: () => Date;
  private readonly checks: PerAddressChecks;
  private readonly master: string;
  private readonly page: number;
  /** The newest masterchain block's time (s) at this step's start. */
  private headTime = 0;
  /** Per `<currency>:<account>`: everything before this time (s) is read and booked. */
  private through = new Map<string, number>();
  /** Keys booked lately: what a step reads again is not reported again. */
  private readonly bookedKeys = new ExpiringCache<string, true>({ maxEntries: KEEP, maxAgeMs: KEEP_MS });
  private staged: StepState | undefined;
  /** Where the next step starts among the batches when a step ran out of pages. */
  private offset = 0;

  constructor(private readonly options: ToncenterOptions) {
    const master = canonicalTonAddress(options.usdtMaster);
    if (master === undefined) throw new RangeError(`USDT master is not a mainnet basechain TON address: ${options.usdtMaster}`);
    this.master = master;
    this.page = options.pageSize ?? PAGE;
    if (!Number.isSafeInteger(this.page) || this.page < 1 || this.page > PAGE) throw new RangeError(`pageSize must be 1 to ${PAGE}, got ${this.page}`);
    this.client = new ToncenterClient(options);
    this.clock = options.clock ?? (() => new Date());
    this.checks = new PerAddressChecks('TON API', { genesisHash: networkIdentity(options.globalId ?? TON_GLOBAL_ID.mainnet) }, TON_NETWORKS, {
      // What stands for block 0 here is the network's id; no checkpoint (no block is sure to be in every index).
      hashAt: async (height) => (height === 0 ? networkIdentity((await this.client.masterchainHead()).globalId) : undefined),
      head: async () => {
        const head = await this.client.masterchainHead();
        this.headTime = Math.floor(head.time.getTime() / 1000);
        return head;
      },
    });
  }

  get source(): string {
    return this.client.source;
  }

  health(): SourceHealthNote {
    return this.checks.health();
  }

  /** The last step's transfers are booked: each account's place and the keys read are kept (see the module comment). */
  booked(): void {
    const staged = this.staged;
    this.staged = undefined;
    if (!staged) return;
    this.through = staged.through;
    for (const key of staged.keys) this.bookedKeys.set(key, true);
    this.offset = staged.offset;
  }

  async after(cursor: string | undefined, limit: number): Promise<{ transfers: Transfer[]; next: string | undefined; more: boolean }> {
    const now = this.clock();
    // Every step starts here, an idle one too: the network first (once passed, for good).
    await this.checks.ensure(now, { head: false });
    const watermark = cursor === undefined ? undefined : parseWatermark(cursor);
    const watched = await this.options.watched(now);
    this.staged = undefined;
    const groups = (['TON', 'USDT_TON'] as const).map((currency) => ({ currency, accounts: this.accountsOf(watched, currency, watermark) }));
    if (groups.every(({ accounts }) => accounts.length === 0)) {
      // Nothing can be ours: nothing is read and the cursor stays; whether the API sees now is asked at most once a minute.
      await this.checks.ensure(now);
      return { transfers: [], next: cursor, more: false };
    }
    await this.checks.readHead(now);
    const complete = Math.max(0, this.headTime - HEAD_MARGIN_S);
    const batches = groups.flatMap(({ currency, accounts }) => batchesOf(accounts).map((batch) => ({ currency, batch })));
    const step: StepState = { through: new Map(), keys: new Set(), offset: 0 };
    const found = new Map<string, Transfer>();
    const budget = { pages: PAGES_PER_STEP, transfers: Math.max(limit, 1) };
    const start = this.offset % batches.length;
    let more = false;
    for (const [index, { currency, batch }] of [...batches.slice(start), ...batches.slice(0, start)].entries()) {
      const floor = Math.min(...batch.map((account) => account.floor));
      const read = more ? { complete: false, readTo: floor } : await this.readBatch(currency, batch, floor, complete, budget, step, found);
      for (const account of batch) step.through.set(placeKey(currency, account.account), Math.max(account.floor, Math.min(read.readTo, complete)));
      if (!read.complete && !more) {
        more = true;
        step.offset = start + index + 1;
      }
    }
    for (const key of found.keys()) step.keys.add(key);
    this.staged = step;
    const transfers = [...found.values()].sort((a, b) => a.at!.getTime() - b.at!.getTime() || a.key.localeCompare(b.key));
    return { transfers, next: this.nextWatermark(watermark, step) ?? cursor, more };
  }

  /**
   * The TON and USDT transfers of one transaction (a merchant's reported refund: refund-check.ts),
   * keyed as the watcher books them; undefined when the API does not know it. `hash` in hex or
   * base64: the transaction that received the TON, or the sending jetton wallet's; the sender's
   * own wallet transaction (what a wallet's history links to) is followed to the transactions
   * its messages made. The API's network is checked first.
   */
  async transaction(hash: string): Promise<Transfer[] | undefined> {
    await this.checks.ensure(this.clock(), { head: false });
    const wanted = hashHex(hash.trim());
    if (wanted === undefined) return undefined;
    const [tx] = await this.byHash([wanted]);
    if (!tx) return undefined;
    const own = await this.transfersOf(tx);
    if (own.length > 0 || tx.outMessages === 0) return own;
    const children = await this.client.get(
      'adjacentTransactions',
      [
        ['hash', wanted],
        ['direction', 'out'],
      ],
      true,
    );
    const listed = children === undefined ? [] : this.transactions(children, 'adjacentTransactions');
    return (await Promise.all(listed.map((child) => this.transfersOf(child)))).flat();
  }

  /** The watched accounts of `currency`, each with how far back it must be read. */
  private accountsOf(watched: readonly TonWatched[], currency: Currency, watermark: number | undefined): Watched[] {
    const { entries, earliest } = earliestWatch(watched, currency, ({ address }) => canonicalTonAddress(address));
    const roles = new Map<string, { invoice: boolean; refund: boolean }>();
    for (const entry of entries) {
      const account = canonicalTonAddress(entry.address)!;
      const role = roles.get(account) ?? { invoice: false, refund: false };
      if (entry.kind === 'refund') role.refund = true;
      else role.invoice = true;
      roles.set(account, role);
    }
    return [...earliest].map(([account, { sinceMs }]) => {
      const place = this.through.get(placeKey(currency, account)) ?? Math.floor(sinceMs / 1000) - SINCE_MARGIN_S;
      return { account, floor: Math.max(place, watermark ?? 0, 0), ...roles.get(account)! };
    });
  }

  /** Reads one batch from `floor` on; complete when it read to the end of what the API has, else where it stopped. */
  private async readBatch(
    currency: Currency,
    batch: readonly Watched[],
    floor: number,
    complete: number,
    budget: { pages: number; transfers: number },
    step: StepState,
    found: Map<string, Transfer>,
  ): Promise<{ complete: boolean; readTo: number }> {
    const accounts = new Map(batch.map((account) => [account.account, account]));
    const names = batch.map(({ account }) => [currency === 'TON' ? 'account' : 'owner_address', account] as const);
    const window = (start: number, offset: number) =>
      [
        ['start_utime', String(start)],
        ['sort', 'asc'],
        ['limit', String(this.page)],
        ['offset', String(offset)],
      ] as const;
    if (currency === 'TON') {
      return this.pages(floor, complete, budget, async (start, offset) => {
        const txs = this.transactions(await this.client.get('transactions', [...names, ...window(start, offset)]), 'transactions');
        for (const tx of txs) this.bookTon(tx, accounts, found, budget);
        return txs;
      });
    }
    const filter = [
      ['jetton_master', this.master],
      ['direction', 'in'],
    ] as const;
    return this.pages(floor, complete, budget, async (start, offset) => {
      const records = this.jettonRecords(await this.client.get('jetton/transfers', [...names, ...filter, ...window(start, offset)]));
      const ours = records.filter((record) => this.paysUs(record, accounts) && !this.bookedKeys.get(`${record.hash}:jetton`));
      const payloads = await this.inlinePayloads(ours.filter((record) => record.payload === undefined));
      for (const record of ours) {
        const comment = commentOf(record.payload ?? payloads.get(record.hash));
        const transfer = this.jettonTransfer(record, accounts.get(record.destination!)!, comment);
        if (transfer) this.keep(found, transfer, budget);
      }
      return records;
    });
  }

  /**
   * Pages of one query from `floor` on, oldest first, each asked from the last one's newest
   * time (skipping what was already seen) and by offset only while a whole page shares one
   * second. `read` books a page's items and returns them. The step's budget stops a read that
   * is catching up (before `complete`, where a stop is a safe place to go on from); the last
   * two minutes are always read to their end, so a busy account cannot keep a step from
   * getting past them.
   */
  private async pages(
    floor: number,
    complete: number,
    budget: { pages: number; transfers: number },
    read: (start: number, offset: number) => Promise<readonly { hash: string; now: number }[]>,
  ): Promise<{ complete: boolean; readTo: number }> {
    let start = floor;
    let offset = 0;
    for (;;) {
      if ((budget.pages <= 0 || budget.transfers <= 0) && start < complete) return { complete: false, readTo: start };
      budget.pages -= 1;
      const items = await read(start, offset);
      if (items.length > this.page) throw this.client.error(`answered ${items.length} items, more than the limit ${this.page}`);
      let previous = start;
      for (const item of items) {
        // An answer out of time order, or before the window asked, would make the place below skip transfers.
        if (item.now < previous) throw this.client.error(`answered transaction ${item.hash} (${item.now}) out of time order or before start_utime ${start}`);
        previous = item.now;
      }
      if (items.length < this.page) return { complete: true, readTo: Number.POSITIVE_INFINITY };
      const last = items.at(-1)!.now;
      if (last > start) {
        start = last;
        offset = 0;
      } else offset += items.length;
    }
  }

  /**
   * A TON transaction of a watched account: a plain credit pays an invoice (by its comment) or a
   * refund (any). A credit to a merchant's wallet without a comment is reported too: a buyer who
   * left the comment out paid the merchant, and the watcher keeps it as unmatched.
   */
  private bookTon(tx: ReadTx, accounts: ReadonlyMap<string, Watched>, found: Map<string, Transfer>, budget: { transfers: number }): void {
    const watched = tx.account === undefined ? undefined : accounts.get(tx.account);
    if (!watched || !tx.credit || this.bookedKeys.get(tx.hash)) return;
    const { comment, nanotons } = tx.credit;
    const base = { key: tx.hash, txid: tx.hash, currency: 'TON', address: watched.account, amount: fromMinorUnits(nanotons, TON_DECIMALS), at: new Date(tx.now * 1000) };
    if (watched.invoice) this.keep(found, comment !== undefined ? { ...base, memo: comment } : base, budget);
    else if (watched.refund) this.keep(found, base, budget);
  }

  /** Whether a record is a transfer of the configured master to a watched owner that did not fail. */
  private paysUs(record: JettonRecord, accounts: ReadonlyMap<string, Watched>): boolean {
    return !record.aborted && record.master === this.master && record.destination !== undefined && accounts.has(record.destination) && record.units > 0n;
  }

  /** A USDT payment to a watched owner: an invoice's (by its comment; without one, kept as unmatched) or a refund's (any). */
  private jettonTransfer(record: JettonRecord, watched: Watched, comment: string | undefined): Transfer | undefined {
    const key = `${record.hash}:jetton`;
    const base = { key, txid: record.hash, currency: 'USDT_TON', address: watched.account, amount: fromMinorUnits(record.units, USDT_DECIMALS), at: new Date(record.now * 1000) };
    if (watched.invoice) return comment !== undefined ? { ...base, memo: comment } : base;
    return watched.refund ? base : undefined;
  }

  private keep(found: Map<string, Transfer>, transfer: Transfer, budget: { transfers: number }): void {
    if (found.has(transfer.key)) return;
    found.set(transfer.key, transfer);
    budget.transfers -= 1;
  }

  /** The forward payloads of records the API gave none for (an inline payload, or none at all), from their transactions' `transfer` bodies. */
  private async inlinePayloads(records: readonly JettonRecord[]): Promise<Map<string, Slice | undefined>> {
    const payloads = new Map<string, Slice | undefined>();
    const txs = new Map((await this.byHash(records.map((record) => record.hash))).map((tx) => [tx.hash, tx]));
    for (const record of records) {
      const tx = txs.get(record.hash);
      if (!tx?.jettonTransfer) throw this.client.error(`jetton transfer ${record.hash}'s transaction is not served with its transfer body`);
      if (tx.account !== record.sourceWallet) throw this.client.error(`jetton transfer ${record.hash} is not its jetton wallet's transaction`);
      // A body this reader cannot parse (the index's reader is lenient) carries no comment it can read.
      const body = transferBody(tx.jettonTransfer);
      if (body && (body.units !== record.units || body.destination !== record.destination)) throw this.client.error(`jetton transfer ${record.hash}'s body does not say what its record says`);
      payloads.set(record.hash, body?.payload);
    }
    return payloads;
  }

  /** Transactions by hash (hex), in requests of {@link HASH_BATCH}. */
  private async byHash(hashes: readonly string[]): Promise<ReadTx[]> {
    const txs: ReadTx[] = [];
    for (let at = 0; at < hashes.length; at += HASH_BATCH) {
      const batch = hashes.slice(at, at + HASH_BATCH);
      const answer = await this.client.get('transactions', [...batch.map((hash) => ['hash', hash] as const), ['limit', String(batch.length)]]);
      const wanted = new Set(batch);
      for (const tx of this.transactions(answer, 'transactions')) {
        if (!wanted.has(tx.hash)) throw this.client.error(`answered transaction ${tx.hash}, not one asked for`);
        txs.push(tx);
      }
    }
    return txs;
  }

  /** One transaction's transfers as the watcher keys them: a plain TON credit, or a USDT transfer of its jetton wallet. */
  private async transfersOf(tx: ReadTx): Promise<Transfer[]> {
    if (tx.account === undefined) return [];
    const at = new Date(tx.now * 1000);
    if (tx.credit) {
      const { nanotons, comment } = tx.credit;
      return [{ key: tx.hash, txid: tx.hash, currency: 'TON', address: tx.account, ...(comment !== undefined ? { memo: comment } : {}), amount: fromMinorUnits(nanotons, TON_DECIMALS), at }];
    }
    if (!tx.jettonTransfer) return [];
    const lt = String(tx.lt);
    const answer = await this.client.get('jetton/transfers', [
      ['jetton_wallet', tx.account],
      ['jetton_master', this.master],
      ['start_lt', lt],
      ['end_lt', lt],
      ['limit', '10'],
    ]);
    const record = this.jettonRecords(answer).find((candidate) => candidate.hash === tx.hash);
    if (!record || record.aborted || record.master !== this.master || record.destination === undefined) return [];
    const body = transferBody(tx.jettonTransfer);
    const comment = commentOf(record.payload ?? body?.payload);
    const key = `${record.hash}:jetton`;
    return [
      { key, txid: record.hash, currency: 'USDT_TON', address: record.destination, ...(comment !== undefined ? { memo: comment } : {}), amount: fromMinorUnits(record.units, USDT_DECIMALS), at },
    ];
  }

  /**
   * The watermark after a step: the oldest place among the accounts watched, once it moved far
   * enough. Written by the watcher only after the step's transfers are booked.
   */
  private nextWatermark(stored: number | undefined, step: StepState): string | undefined {
    if (step.through.size === 0) return undefined;
    const candidate = Math.min(...step.through.values());
    return stored === undefined || candidate >= stored + WATERMARK_EVERY_S ? String(candidate) : undefined;
  }

  /** An answer's `transactions`, each checked. */
  private transactions(answer: Record<string, unknown> | undefined, path: string): ReadTx[] {
    const list = answer?.transactions;
    if (!Array.isArray(list)) throw this.client.error(`${path} did not answer a list of transactions`);
    return list.map((raw) => this.transaction1(raw));
  }

  private transaction1(raw: unknown): ReadTx {
    const tx = (raw ?? {}) as Record<string, unknown>;
    const hash = hashHex(tx.hash);
    if (hash === undefined) throw this.client.error('a transaction has no valid hash');
    const where = `transaction ${hash}`;
    const lt = tx.lt;
    if (typeof lt !== 'string' || !/^\d{1,20}$/.test(lt)) throw this.client.error(`${where} has no valid lt`);
    if (!Number.isSafeInteger(tx.now) || (tx.now as number) < 0) throw this.client.error(`${where} has no valid now`);
    if (typeof tx.account !== 'string' || parseTonAddress(tx.account) === undefined) throw this.client.error(`${where} has no valid account`);
    const description = tx.description as Record<string, unknown> | undefined;
    if (!description || typeof description !== 'object' || typeof description.type !== 'string') throw this.client.error(`${where} has no description`);
    const outs = tx.out_msgs ?? [];
    if (!Array.isArray(outs)) throw this.client.error(`${where} out_msgs is not a list`);
    const account = canonicalTonAddress(tx.account);
    const read: ReadTx = { hash, lt: BigInt(lt), now: tx.now as number, account, outMessages: outs.length };
    const inMsg = tx.in_msg as Record<string, unknown> | null | undefined;
    if (!inMsg) return read;
    if (typeof inMsg !== 'object') throw this.client.error(`${where} in_msg is not an object`);
    // An external message (no source) carries no value: only internal ones can pay.
    if (inMsg.source === null || inMsg.source === undefined) return read;
    const body = this.body(inMsg, where);
    const slice = body.beginParse();
    const op = slice.remainingBits >= 32 ? slice.loadUint(32) : undefined;
    if (op === JETTON_TRANSFER) return { ...read, jettonTransfer: body };
    if (op !== undefined && op !== 0) return read;
    if (op === undefined && (slice.remainingBits > 0 || slice.remainingRefs > 0)) return read;
    const value = inMsg.value;
    if (typeof value !== 'string' || !/^\d{1,40}$/.test(value)) throw this.client.error(`${where} in_msg has no valid value`);
    // Credited and kept: a credit phase, no bounce phase, not a message that bounced back.
    const credit = (description.credit_ph as { credit?: unknown } | undefined)?.credit;
    const kept = description.type === 'ord' && inMsg.bounced !== true && (description.bounce === undefined || description.bounce === null) && credit !== undefined && credit !== null;
    if (!kept || BigInt(value) === 0n) return read;
    const comment = op === 0 ? textOf(slice) : undefined;
    return { ...read, credit: { nanotons: BigInt(value), ...(comment !== undefined ? { comment } : {}) } };
  }

  /** The in-message's body cell, its hash checked against the answer's. */
  private body(message: Record<string, unknown>, where: string): Cell {
    const content = message.message_content as { hash?: unknown; body?: unknown } | null | undefined;
    if (!content || typeof content.body !== 'string') throw this.client.error(`${where} in_msg has no body`);
    let cell: Cell;
    try {
      cell = Cell.fromBase64(content.body);
    } catch {
      throw this.client.error(`${where} in_msg body is not a BOC`);
    }
    if (hashHex(content.hash) !== cell.hash().toString('hex')) throw this.client.error(`${where} in_msg body does not have the hash the answer gives`);
    return cell;
  }

  /** An answer's `jetton_transfers`, each checked. */
  private jettonRecords(answer: Record<string, unknown> | undefined): JettonRecord[] {
    const list = answer?.jetton_transfers;
    if (!Array.isArray(list)) throw this.client.error('jetton/transfers did not answer a list of transfers');
    return list.map((raw) => {
      const record = (raw ?? {}) as Record<string, unknown>;
      const hash = hashHex(record.transaction_hash);
      if (hash === undefined) throw this.client.error('a jetton transfer has no valid transaction_hash');
      const where = `jetton transfer ${hash}`;
      const { transaction_now: now, transaction_aborted: aborted, amount, jetton_master: master, destination, source_wallet: wallet, forward_payload: payload } = record;
      if (!Number.isSafeInteger(now) || typeof aborted !== 'boolean') throw this.client.error(`${where} has no valid transaction_now or transaction_aborted`);
      if (typeof amount !== 'string' || !/^\d{1,40}$/.test(amount)) throw this.client.error(`${where} has no valid amount`);
      for (const address of [master, destination, wallet]) if (typeof address !== 'string' || parseTonAddress(address) === undefined) throw this.client.error(`${where} has an invalid address`);
      let cell: Cell | undefined;
      if (payload !== null && payload !== undefined) {
        if (typeof payload !== 'string') throw this.client.error(`${where} forward_payload is not a BOC`);
        try {
          cell = Cell.fromBase64(payload);
        } catch {
          throw this.client.error(`${where} forward_payload is not a BOC`);
        }
      }
      return {
        hash,
        now: now as number,
        aborted,
        master: canonicalTonAddress(master as string),
        destination: canonicalTonAddress(destination as string),
        sourceWallet: canonicalTonAddress(wallet as string),
        units: BigInt(amount),
        ...(cell ? { payload: cell } : {}),
      };
    });
  }
}

/** Where an account's place is kept. */
const placeKey = (currency: string, account: string): string => `${currency}:${account}`;

/**
 * Accounts in requests: sorted by how far back each is read (a batch reads from its oldest), at
 * most 100 and a bounded query each, and apart while their places are far apart (catching up).
 */
function batchesOf(accounts: readonly Watched[]): Watched[][] {
  const batches: Watched[][] = [];
  let current: Watched[] = [];
  let chars = 0;
  for (const account of [...accounts].sort((a, b) => a.floor - b.floor || a.account.localeCompare(b.account))) {
    // `owner_address=` and the address, each.
    const size = account.account.length + 16;
    const first = current[0];
    if (first && (current.length === BATCH_ACCOUNTS || chars + size > MAX_QUERY_CHARS || account.floor - first.floor > CATCH_UP_SPLIT_S)) {
      batches.push(current);
      current = [];
      chars = 0;
    }
    current.push(account);
    chars += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** A hash in hex (64) or base64 / base64url (44, as toncenter writes them) as 64 lowercase hex; undefined otherwise. */
function hashHex(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(value)) return value.replace(/^0x/, '').toLowerCase();
  if (!/^[A-Za-z0-9+/_-]{43}=$/.test(value)) return undefined;
  return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('hex');
}

/** The comment of a payload (op 0 and text), trimmed; undefined for none, another op, or only spaces. */
function commentOf(payload: Cell | Slice | undefined): string | undefined {
  if (payload === undefined) return undefined;
  const slice = payload instanceof Cell ? payload.beginParse() : payload;
  if (slice.remainingBits < 32 || slice.loadUint(32) !== 0) return undefined;
  return textOf(slice);
}

/**
 * A plain transfer's comment after its op 0 (snake text), trimmed. Anyone can send a merchant a
 * body that is no text (bits that are not whole bytes) or a very long one: such a transfer is no
 * invoice's, and is not reported (a failed step would stop the watcher for everyone).
 */
function textOf(slice: Slice): string | undefined {
  try {
    return trimmed(slice.loadStringTail());
  } catch {
    return undefined;
  }
}

const trimmed = (text: string): string | undefined => {
  const comment = text.trim();
  return comment === '' || comment.length > MAX_COMMENT_CHARS ? undefined : comment;
};

/**
 * A TEP-74 `transfer` body: `transfer#0f8a7ea5 query_id:uint64 amount:Coins destination:MsgAddress
 * response_destination:MsgAddress custom_payload:(Maybe ^Cell) forward_ton_amount:Coins
 * forward_payload:(Either Cell ^Cell)`; undefined when it is not one.
 */
function transferBody(cell: Cell): { units: bigint; destination: string | undefined; payload: Slice | undefined } | undefined {
  try {
    const slice = cell.beginParse();
    if (slice.loadUint(32) !== JETTON_TRANSFER) return undefined;
    slice.skip(64);
    const units = slice.loadCoins();
    const destination = slice.loadAddress();
    slice.loadAddressAny();
    slice.loadMaybeRef();
    slice.loadCoins();
    const payload = slice.remainingBits === 0 ? undefined : slice.loadBit() ? slice.loadRef().beginParse() : slice;
    return { units, destination: canonicalTonAddress(destination.toRawString()), payload };
  } catch {
    return undefined;
  }
}

/** The stored watermark: whole seconds. */
function parseWatermark(cursor: string): number {
  if (!/^\d{1,12}$/.test(cursor)) throw new Error(`TON: the stored cursor "${cursor}" is not a watermark in seconds`);
  return Number(cursor);
}
