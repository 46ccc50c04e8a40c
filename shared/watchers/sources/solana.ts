import { fromMinorUnits } from '#shared/domain/money';
import { ExpiringCache } from '#shared/core/cache';
import { SourceError } from '#shared/core/source-error';
import { isSolanaAddress } from '#shared/payments/addresses/solana';
import { associatedTokenAddress, TOKEN_PROGRAM_ID } from '#shared/payments/addresses/solana-token-account';
import { SOLANA_CLUSTERS } from '#shared/chains/solana';
import { JsonRpcClient, type JsonRpcOptions } from '#shared/watchers/sources/json-rpc';
import type { IndexedSource, SourceHealthNote, Transfer } from '#shared/watchers/sources/port';
import type { SourceHead } from '#shared/watchers/sources/head-check';
import { earliestWatch, PerAddressChecks, type WatchEntry } from '#shared/watchers/sources/per-address';

/**
 * USDC and PYUSD on Solana, paid as a Solana Pay transfer request (docs/merchant-guide.md
 * "Networks"): each invoice has a unique reference key that the buyer's wallet adds to its
 * transfer to the merchant's wallet, i.e. to the wallet's associated token account (ATA) of the
 * mint, derived with the mint's token program (USDC: the SPL Token program; PYUSD: Token-2022,
 * whose accounts are other addresses). One source watches every configured token; each token
 * balance counts only in its own mint under its own program (`programId`), so another
 * Token-2022 mint, or a token of the classic program, pays nothing. The
 * watcher follows the receiving accounts, not the references, over the standard JSON-RPC API
 * at `finalized` commitment, so its requests grow with merchants and payments, not with open
 * invoices:
 *
 * - per step, for each distinct receiving account with a watched reference (open or in its
 *   late window: both cost the same now), one `getSignaturesForAddress(account, {until: the
 *   newest signature already read})`, paged with `before` when a page is full;
 * - `getTransaction(signature, {encoding: "json"})` once per new successful signature: it must
 *   have succeeded (`meta.err` null), and each watched reference among its account keys (static
 *   and loaded) is paid what the reference's wallet gained in the configured mint
 *   (`meta.preTokenBalances` / `postTokenBalances`, owner, mint and decimals), as @solana/pay's
 *   validateTransfer checks it; another mint, another wallet or a failed transaction books
 *   nothing, a short amount is booked as it is (the lifecycle judges it). A transaction that
 *   names no watched reference is the merchant's other money: counted ({@link notOurs}), never
 *   booked nor kept as unmatched.
 *
 * A refund (store/refund-watches.ts) is paid to the buyer's wallet with no reference: its
 * watch-list entry names the wallet (`kind` refund), whose associated token account is read the
 * same way while the refund waits (one more account a step: the one cost that grows with
 * waiting refunds), and what the wallet gains in the mint in a successful transaction is
 * reported to the wallet, keyed `<signature>:<wallet>`.
 *
 * The newest signature read per account is kept in memory, and moves only once the watcher
 * has booked what the step found ({@link SolanaTransfers.booked}): a step whose booking failed
 * is read again. Restarts: that place is lost with the process. The watcher's cursor
 * (index-cursors.ts, a conditional write) holds one time instead, a watermark: every finalized
 * transfer made before it, to every watched account, was read and booked. A cold process reads
 * each account back to the later of the watermark and its oldest watched invoice's creation
 * (less a margin for block clocks); with no watermark (the first run, or an upgrade from the
 * per-reference version), back to that creation. Booking is idempotent by the payment's key
 * `<signature>:<reference>`, the same as the per-reference version's, so what is read twice is
 * booked once. The watermark is the finalized head's block time (asked before the step's reads)
 * less two minutes (a load-balanced endpoint's nodes differ by a few slots), moved only after a
 * step that read every account to its end, and at most every ten minutes: a write per ten
 * minutes while invoices are watched, none while idle, and a cold start re-reads ten minutes.
 *
 * Before anything, once per process, the node's `getGenesisHash` must be the configured
 * cluster's (mainnet-beta; chain-check.ts): a node on devnet would show payments that are worth
 * nothing, and is reported `wrong_chain`. The time booked is the block's.
 */

/** A token the source watches: its pay currency, mint, decimals and token program. */
export interface SolanaToken {
  /** USDC_SOL, PYUSD. */
  currency: string;
  /** The token mint (USDC: EPjF...; PYUSD: 2b1k...). */
  mint: string;
  /** Its decimals (6 for both). */
  decimals: number;
  /** The token program that owns the mint (default the SPL Token program; PYUSD's is Token-2022). */
  program?: string;
}

export interface SolanaSourceOptions extends Pick<JsonRpcOptions, 'url' | 'timeoutMs' | 'attempts' | 'backoffMs' | 'maxBodyBytes'> {
  /** The tokens watched (at least one), each its own pay currency. */
  tokens: readonly SolanaToken[];
  /** The cluster the node must be on (its genesis hash). */
  genesisHash: string;
  /** The references to look for and the wallets they pay (the run reads them from shared/store/watch-list.ts). */
  watched: (now: Date) => Promise<SolanaWatched[]>;
  clock?: () => Date;
}

/** What the source needs of a watched reference: the invoice's reference (base58, its `address`), currency, creation and wallet. */
export interface SolanaWatched extends WatchEntry {
  /** The wallet it pays. */
  recipient?: string;
  /** `refund`: a buyer's wallet awaiting a refund (its address is the wallet, no reference): whatever it gains in the mint pays it. */
  kind?: string;
}

const COMMITMENT = 'finalized';
/** getSignaturesForAddress's largest page. */
const PAGE = 1000;
/** How far before an invoice's creation its account is read back: block times are validators' estimates. */
const SINCE_MARGIN_S = 600;
/** How far the watermark stays behind the finalized head's time (nodes behind one endpoint differ by a few slots). */
const HEAD_MARGIN_S = 120;
/** The watermark moves at most this often: a cold start re-reads this much, and a step writes the cursor no more often. */
const WATERMARK_EVERY_S = 600;
/**
 * How long a transaction naming no watched reference is looked at again: longer than block
 * clocks are off, and no longer than {@link HEAD_MARGIN_S}, so the watermark never passes one
 * (a cold start reads it again).
 */
const SETTLE_S = HEAD_MARGIN_S;
/** Bounds on what a process keeps in memory (derived accounts, transactions read). */
const KEEP = 10_000;

/** One signature as getSignaturesForAddress lists it. */
interface Listed {
  signature: string;
  slot: number;
  failed: boolean;
  /** Seconds; null where the node does not know it. */
  blockTime: number | null;
}

/** The step's watched references by key, the refund wallets by `<currency>:<wallet>`, and when its watch list was read (s). */
interface Watched {
  references: ReadonlyMap<string, SolanaWatched>;
  refunds: ReadonlyMap<string, SolanaWatched>;
  listedAt: number;
}

/** A watched token with its program known. */
type Token = Required<SolanaToken>;

/** Recent transactions that named no watched reference (see {@link SolanaTransfers.booked}). */
type Unsettled = Map<string, ReadTransaction & { blockTime: number }>;

/** What a step moves, applied only once its transfers are booked ({@link SolanaTransfers.booked}). */
interface StepState {
  newest: Map<string, Listed>;
  unsettled: Unsettled;
  foreign: number;
  offset: number;
}

/** What the source keeps of a finalized transaction it read (it never changes). */
interface ReadTransaction {
  ok: boolean;
  accounts: Set<string>;
  blockTime: unknown;
  pre: unknown;
  post: unknown;
}

export class SolanaTransfers implements IndexedSource {
  readonly chain = 'SOLANA';
  private readonly rpc: JsonRpcClient;
  private readonly clock: () => Date;
  private readonly checks: PerAddressChecks;
  /** The finalized head's block time (s) at the last head check. */
  private headTime: number | undefined;
  /** Per receiving account, the newest signature read and booked with everything before it. */
  private readonly newest = new Map<string, Listed>();
  /** What the last step read, until the watcher says its transfers are booked. */
  private staged: StepState | undefined;
  /** The watched tokens by pay currency. */
  private readonly tokens: ReadonlyMap<string, Token>;
  /** `<mint>:<wallet>` -> the wallet's associated token account of the mint (a derivation is a few hundred hashes at worst). */
  private readonly receiving = new ExpiringCache<string, string>({ maxEntries: KEEP, maxAgeMs: Number.POSITIVE_INFINITY });
  /** Transactions read: signature -> what counts of it (re-read only when a step stopped before its end). */
  private readonly read = new ExpiringCache<string, ReadTransaction>({ maxEntries: KEEP, maxAgeMs: Number.POSITIVE_INFINITY });
  /** Where the next step starts among the accounts when a step ran out of its budget. */
  private offset = 0;
  private foreign = 0;
  /**
   * Recent transactions that named no watched reference, by signature: a checkout acknowledged
   * just after this step's watch list was read may be paid before the step reads its account,
   * so they are looked at again (from memory) until they are older than the list by
   * {@link SETTLE_S}, then counted as not ours.
   */
  private unsettled: Unsettled = new Map();

  constructor(private readonly options: SolanaSourceOptions) {
    if (options.tokens.length === 0) throw new RangeError('the Solana source needs a token to watch');
    this.tokens = new Map(options.tokens.map((token) => [token.currency, { program: TOKEN_PROGRAM_ID, ...token }]));
    this.rpc = new JsonRpcClient({ ...options, label: 'solana-rpc' });
    this.clock = options.clock ?? (() => new Date());
    this.checks = new PerAddressChecks('SOLANA RPC', { genesisHash: options.genesisHash }, SOLANA_CLUSTERS, {
      // Block 0 only: Solana's clusters share no genesis with a fork.
      hashAt: () => this.genesisHash(),
      head: () => this.finalizedHead(),
    });
  }

  get source(): string {
    return this.rpc.source;
  }

  /**
   * The last step's transfers are booked: its place in each account is kept. Until then (a step
   * whose booking failed, then another), the next step reads again from the place before it
   * (the transactions from memory), so nothing read is lost with a failed booking.
   */
  booked(): void {
    const staged = this.staged;
    this.staged = undefined;
    if (!staged) return;
    for (const [account, listed] of staged.newest) this.newest.set(account, listed);
    this.unsettled = staged.unsettled;
    this.foreign += staged.foreign;
    this.offset = staged.offset;
  }

  /** Successful transactions to a watched account that named no watched reference: the merchant's other money, not ours. */
  get notOurs(): number {
    return this.foreign;
  }

  health(): SourceHealthNote {
    return this.checks.health();
  }

  /**
   * The transfers to the watched references since the last step; `cursor` is the watermark
   * (seconds), `limit` bounds the transactions read (the step's work): past it, the next step
   * goes on from where this one stopped, starting with the accounts it did not reach.
   */
  async after(cursor: string | undefined, limit: number): Promise<{ transfers: Transfer[]; next: string | undefined }> {
    const now = this.clock();
    // Every step starts here, an idle one too (nothing watched): the cluster first (once passed,
    // for good), then whether the node sees it now (at most once a minute): its newest finalized slot's time.
    await this.checks.ensure(now);
    const watermark = cursor === undefined ? undefined : parseWatermark(cursor);
    // Checkout writes a wallet and an ISO time; an entry without them (a damaged item) is left out rather than read back to the account's first transfer.
    const list = await this.options.watched(now);
    const entries: SolanaWatched[] = [];
    const earliest = new Map<string, { sinceMs: number }>();
    const refunds = new Map<string, SolanaWatched>();
    for (const token of this.tokens.values()) {
      const watches = earliestWatch(list, token.currency, ({ recipient }) => (recipient !== undefined && isSolanaAddress(recipient) ? this.accountOf(recipient, token) : undefined));
      entries.push(...watches.entries);
      // Token accounts differ by mint: no account is another token's.
      for (const [account, { sinceMs }] of watches.earliest) earliest.set(account, { sinceMs });
      for (const entry of watches.entries) if (entry.kind === 'refund') refunds.set(`${token.currency}:${entry.recipient!}`, entry);
    }
    this.staged = undefined;
    if (entries.length === 0) return { transfers: [], next: cursor };
    const references = new Map(entries.filter((entry) => entry.kind !== 'refund').map((entry) => [entry.address, entry]));
    // Each receiving account with how far back it must be read: its oldest invoice, or the watermark.
    const order = [...earliest].map(([account, { sinceMs }]): [string, number] => [account, Math.max(watermark ?? 0, Math.floor(sinceMs / 1000) - SINCE_MARGIN_S)]);
    const start = this.offset % order.length;
    const step: StepState = { newest: new Map(), unsettled: new Map(), foreign: 0, offset: 0 };
    const budget = { left: Math.max(limit, 1) };
    const found = new Map<string, Transfer>();
    const listedAt = Math.floor(now.getTime() / 1000);
    for (const [signature, tx] of this.unsettled) this.book(signature, tx, { references, refunds, listedAt }, step, found);
    let complete = true;
    for (const [index, [account, floor]] of [...order.slice(start), ...order.slice(0, start)].entries()) {
      if (!(await this.readAccount(account, floor, { references, refunds, listedAt }, budget, step, found))) {
        complete = false;
        step.offset = start + index + 1;
        break;
      }
    }
    this.staged = step;
    return { transfers: [...found.values()], next: complete ? (this.nextWatermark(watermark, listedAt) ?? cursor) : cursor };
  }

  /**
   * What a finalized transaction paid `wallet` in the mint of `currency` (its gain over all its
   * token accounts), and whether it succeeded: a merchant's reported refund (refund-check.ts).
   * Undefined while the node does not serve it as finalized (unknown, or not final yet). The
   * node's cluster is checked first.
   */
  async paidBy(signature: string, wallet: string, currency: string): Promise<{ success: boolean; units: bigint } | undefined> {
    const token = this.tokens.get(currency);
    if (!token) throw new RangeError(`the Solana source does not watch ${currency}`);
    await this.checks.ensure(this.clock(), { head: false });
    if (!/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(signature)) return undefined;
    const tx = await this.transaction(signature, { left: 1 });
    if (tx === null) return undefined;
    return { success: tx.ok, units: this.gain(tx, wallet, token, signature) };
  }

  /**
   * The watermark after a step that read every account to its end: the finalized head's time
   * (or the step's, if earlier: a cluster clock ahead of ours) less the margin, once it moved
   * far enough.
   */
  private nextWatermark(stored: number | undefined, listedAt: number): string | undefined {
    if (this.headTime === undefined) return undefined;
    const candidate = Math.min(this.headTime, listedAt) - HEAD_MARGIN_S;
    return stored === undefined || candidate >= stored + WATERMARK_EVERY_S ? String(candidate) : undefined;
  }

  private accountOf(wallet: string, token: Token): string {
    const key = `${token.mint}:${wallet}`;
    let account = this.receiving.get(key);
    if (account === undefined) this.receiving.set(key, (account = associatedTokenAddress(wallet, token.mint, token.program)));
    return account;
  }

  /**
   * Reads one account's new signatures (back to the newest already read, or to `floor`), then
   * their transactions oldest first; false when it stopped before the end (the budget spent, or
   * a listed transaction this node does not serve yet): the account is read again from the
   * newest signature whose slot, and every one before it, was read.
   */
  private async readAccount(account: string, floor: number, watched: Watched, budget: { left: number }, step: StepState, found: Map<string, Transfer>): Promise<boolean> {
    const known = this.newest.get(account);
    const fresh: Listed[] = [];
    for (let before: string | undefined, more = true; more; ) {
      const page = await this.signatures(account, known?.signature, before);
      for (const item of page) {
        // Older than what was read (a node behind the last one did not know `until`), or than what can pay a watched invoice.
        if ((known !== undefined && item.slot <= known.slot) || (item.blockTime !== null && item.blockTime < floor)) {
          more = false;
          break;
        }
        fresh.push(item);
      }
      if (page.length < PAGE) more = false;
      before = page.at(-1)?.signature;
    }
    const processed: Listed[] = [];
    for (const item of fresh.reverse()) {
      if (!item.failed) {
        const tx = await this.transaction(item.signature, budget);
        if (tx === null) {
          // Stopped here: keep only what was read to the end of its slot (transactions share slots).
          const whole = processed.filter((read) => read.slot < item.slot).at(-1);
          if (whole !== undefined) step.newest.set(account, whole);
          return false;
        }
        this.book(item.signature, tx, watched, step, found);
      }
      processed.push(item);
    }
    const newest = processed.at(-1);
    if (newest !== undefined) step.newest.set(account, newest);
    return true;
  }

  /** One page of an account's signatures, newest first, after `until` and before `before` (both exclusive). */
  private async signatures(account: string, until: string | undefined, before: string | undefined): Promise<Listed[]> {
    const options = { commitment: COMMITMENT, limit: PAGE, ...(until !== undefined ? { until } : {}), ...(before !== undefined ? { before } : {}) };
    const answer = await this.rpc.call('getSignaturesForAddress', [account, options]);
    if (!Array.isArray(answer) || answer.length > PAGE) throw this.error('getSignaturesForAddress did not answer a list');
    return answer.map((item) => {
      const { signature, slot, err, blockTime } = (item ?? {}) as { signature?: unknown; slot?: unknown; err?: unknown; blockTime?: unknown };
      if (typeof signature !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(signature)) throw this.error('a signature is not base58');
      if (!Number.isSafeInteger(slot) || (slot as number) < 0) throw this.error(`signature ${signature} has no slot`);
      if (blockTime !== null && blockTime !== undefined && !Number.isSafeInteger(blockTime)) throw this.error(`signature ${signature} has a malformed blockTime`);
      return { signature, slot: slot as number, failed: err !== null && err !== undefined, blockTime: (blockTime ?? null) as number | null };
    });
  }
  /** The newest finalized slot and its block's time (`getSlot`, `getBlockTime`). */
  private async finalizedHead(): Promise<SourceHead> {
    const slot = await this.rpc.call('getSlot', [{ commitment: COMMITMENT }]);
    if (!Number.isSafeInteger(slot) || (slot as number) < 0) throw this.error('getSlot did not answer a slot');
    const time = await this.rpc.call('getBlockTime', [slot]);
    if (!Number.isSafeInteger(time)) throw this.error(`getBlockTime ${String(slot)} did not answer a time`);
    this.headTime = time as number;
    return { height: slot as number, time: new Date((time as number) * 1000) };
  }

  /** The cluster's genesis hash (the check asks for block 0 only: Solana's clusters share no genesis with a fork). */
  private async genesisHash(): Promise<string> {
    const hash = await this.rpc.call('getGenesisHash', []);
    if (typeof hash !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(hash)) throw this.error('getGenesisHash did not answer a base58 hash');
    return hash;
  }

  /** A finalized transaction (read once; a read costs the step's budget); null once the budget is spent, or while this node does not serve it yet. */
  private async transaction(signature: string, budget: { left: number }): Promise<ReadTransaction | null> {
    const known = this.read.get(signature);
    if (known) return known;
    if (budget.left <= 0) return null;
    budget.left -= 1;
    const raw = await this.rpc.call('getTransaction', [signature, { commitment: COMMITMENT, encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    if (raw === null) return null;
    const tx = raw as { blockTime?: unknown; transaction?: { signatures?: unknown; message?: { accountKeys?: unknown } }; meta?: Record<string, unknown> | null };
    const keys = tx.transaction?.message?.accountKeys;
    const signatures = tx.transaction?.signatures;
    if (!Array.isArray(keys) || !Array.isArray(signatures) || signatures[0] !== signature || !tx.meta) throw this.error(`transaction ${signature} is not a transaction with its meta`);
    const loaded = (tx.meta.loadedAddresses ?? {}) as { writable?: unknown[]; readonly?: unknown[] };
    const read: ReadTransaction = {
      ok: tx.meta.err === null || tx.meta.err === undefined,
      accounts: new Set([...keys, ...(loaded.writable ?? []), ...(loaded.readonly ?? [])].filter((key): key is string => typeof key === 'string')),
      blockTime: tx.blockTime,
      pre: tx.meta.preTokenBalances,
      post: tx.meta.postTokenBalances,
    };
    this.read.set(signature, read);
    return read;
  }

  /**
   * What a successful transaction paid each watched reference it names: its wallet's gain in
   * the mint. One that names none is kept to be looked at again while it is recent (see
   * {@link unsettled}), then counted as not ours.
   */
  private book(signature: string, tx: ReadTransaction, { references, refunds, listedAt }: Watched, step: StepState, found: Map<string, Transfer>): void {
    if (!tx.ok) return;
    const named = [...tx.accounts].map((key) => references.get(key)).filter((entry) => entry !== undefined);
    if (this.bookRefunds(signature, tx, refunds, found) === 0 && named.length === 0) {
      if (!Number.isSafeInteger(tx.blockTime)) throw this.error(`transaction ${signature} has no blockTime`);
      const blockTime = tx.blockTime as number;
      if (blockTime >= listedAt - SETTLE_S && step.unsettled.size < KEEP) step.unsettled.set(signature, { ...tx, blockTime });
      else step.foreign += 1;
      return;
    }
    for (const entry of named) {
      const token = this.tokens.get(entry.currency)!;
      const units = this.gain(tx, entry.recipient!, token, signature);
      if (units <= 0n) continue;
      if (!Number.isSafeInteger(tx.blockTime)) throw this.error(`transaction ${signature} has no blockTime`);
      const key = `${signature}:${entry.address}`;
      found.set(key, {
        key,
        txid: signature,
        currency: token.currency,
        address: entry.recipient!,
        memo: entry.address,
        amount: fromMinorUnits(units, token.decimals),
        at: new Date((tx.blockTime as number) * 1000),
      });
    }
  }

  /**
   * What a successful transaction paid each refund wallet it credits in the refund's mint (a
   * refund is paid to the buyer's wallet, with no reference): the wallet's gain, if the
   * transaction is not older than the refund's address (less a minute: clocks). The payment's
   * key is `<signature>:<wallet>`. Returns how many it found.
   */
  private bookRefunds(signature: string, tx: ReadTransaction, refunds: ReadonlyMap<string, SolanaWatched>, found: Map<string, Transfer>): number {
    if (refunds.size === 0 || !Array.isArray(tx.post)) return 0;
    // Any token account the wallet owns in the refund's mint (under its program) may receive it.
    const owners = new Set<string>();
    for (const item of tx.post) {
      const { mint, owner, programId } = (item ?? {}) as { mint?: unknown; owner?: unknown; programId?: unknown };
      const token = [...this.tokens.values()].find((candidate) => candidate.mint === mint && candidate.program === (programId ?? TOKEN_PROGRAM_ID));
      if (token && typeof owner === 'string') owners.add(`${token.currency}:${owner}`);
    }
    let count = 0;
    for (const owned of owners) {
      const entry = refunds.get(owned);
      if (!entry) continue;
      const token = this.tokens.get(entry.currency)!;
      const units = this.gain(tx, entry.recipient!, token, signature);
      if (units <= 0n) continue;
      if (!Number.isSafeInteger(tx.blockTime)) throw this.error(`transaction ${signature} has no blockTime`);
      if ((tx.blockTime as number) * 1000 < Date.parse(entry.since) - 60_000) continue;
      const key = `${signature}:${entry.recipient!}`;
      found.set(key, { key, txid: signature, currency: token.currency, address: entry.recipient!, amount: fromMinorUnits(units, token.decimals), at: new Date((tx.blockTime as number) * 1000) });
      count += 1;
    }
    return count;
  }

  /** What the wallet gained in the token over the transaction (its balances after less before). */
  private gain(tx: ReadTransaction, owner: string, token: Token, signature: string): bigint {
    return this.balance(tx.post, owner, token, signature) - this.balance(tx.pre, owner, token, signature);
  }

  /**
   * The wallet's balance in the token over all its token accounts, in base units, from a token
   * balance list: only balances of the token's mint under the token's program count (a node
   * names each balance's program; one that does not is of the classic program, the only one
   * older nodes knew).
   */
  private balance(list: unknown, owner: string, token: Token, signature: string): bigint {
    if (list === undefined || list === null) return 0n;
    if (!Array.isArray(list)) throw this.error(`transaction ${signature} token balances are not a list`);
    let sum = 0n;
    for (const item of list) {
      const entry = (item ?? {}) as { mint?: unknown; owner?: unknown; programId?: unknown; uiTokenAmount?: { amount?: unknown; decimals?: unknown } };
      if (entry.mint !== token.mint || entry.owner !== owner || (entry.programId ?? TOKEN_PROGRAM_ID) !== token.program) continue;
      const amount = entry.uiTokenAmount?.amount;
      if (typeof amount !== 'string' || !/^\d{1,20}$/.test(amount) || entry.uiTokenAmount?.decimals !== token.decimals) {
        throw this.error(`transaction ${signature} has a malformed token balance`);
      }
      sum += BigInt(amount);
    }
    return sum;
  }

  private error(message: string): SourceError {
    return new SourceError(this.rpc.source, message);
  }
}

/** The stored watermark: whole seconds. */
function parseWatermark(cursor: string): number {
  if (!/^\d{1,12}$/.test(cursor)) throw new Error(`SOLANA: the stored cursor "${cursor}" is not a watermark in seconds`);
  return Number(cursor);
}
