import { createHash } from 'node:crypto';
import { ExpiringCache } from '#shared/core/cache';
import { SourceError } from '#shared/core/source-error';
import { fromMinorUnits } from '#shared/domain/money';
import { isMemoId, isStellarAccount, parseMuxed } from '#shared/payments/addresses/stellar';
import type { SourceHead } from '#shared/watchers/sources/head-check';
import { DEFAULT_HTTP_POLICY, type HttpPolicy, requestJsonObject } from '#shared/watchers/sources/http';
import { earliestWatch, PerAddressChecks, type WatchEntry } from '#shared/watchers/sources/per-address';
import type { IndexedSource, SourceHealthNote, Transfer } from '#shared/watchers/sources/port';

/**
 * USDC on Stellar (USDC_XLM), seen from a Horizon server without holding a key
 * (docs/merchant-guide.md "USDC on Stellar"). A merchant gives its own account (`G...`); each invoice has a 64-bit id, paid either
 * to the muxed address of the account and the id (SEP-23 `M...`: Horizon shows the id as the
 * payment's `to_muxed_id`) or to the plain account with the id as the transaction's MEMO_ID.
 *
 * ## How the network is read: one global cursor, not one per merchant
 *
 * The requests must not grow with open invoices, must fit SDF's public Horizon (3,600 requests
 * an hour per IP, 1 a second) with 50 merchants holding open invoices, and must see a payment
 * within 10 s (p50). Stellar closes a ledger every ~5.5 s: 655 ledgers an hour.
 *
 * - Per merchant account (`/accounts/{G}/payments?cursor=`, one request per account a step):
 *   50 accounts polled every S seconds cost 50 x 3,600 / S requests an hour; under 3,600 only
 *   with S >= 50 s, so a payment waits ~25 s (p50) for its account's turn. Too slow, and it
 *   grows with merchants. An SSE stream per account is one request per connection, but a
 *   Lambda invoked per step holds no connection.
 * - Chosen: the whole network's payments in order, `/payments?cursor=<paging token>&order=asc
 *   &limit=200` (Horizon's largest page), one cursor for every merchant. Each page's records
 *   are matched here, in memory, against the watched accounts: the requests depend on the
 *   network's traffic only, not on merchants or invoices. Horizon leaves failed transactions
 *   out of this list by default (`include_failed=false`), and it holds only payment-class
 *   operations (create_account, payment, both path payments, account_merge, and contract
 *   calls that moved an asset), not offers or the rest.
 *
 * The arithmetic, with P successful payment-class operations per ledger and a step every S s:
 * a step reads P x S / 5.5 records, in full pages of 200 and one partial page (the one that
 * says it is caught up), so requests an hour ~ 655 x P / 200 + 3,600 / S, plus the root once a
 * minute (60) for the head check. Mainnet's classic ledgers take at most 1,000 operations
 * (surge-priced; in busy ledgers most are offers and failed arbitrage, which this list does not
 * hold) and Soroban's 100 transactions; P is estimated at 200 to 400 in ordinary hours (a
 * figure to measure: each ledger's `successful_transaction_count` and `operation_count`). With
 * S = 8 s (450 steps an hour):
 *
 * | P per ledger | requests an hour | share of 3,600 |
 * |---|---|---|
 * | 200 | 655 + 450 + 60 = 1,165 | 32 % |
 * | 400 | 1,310 + 450 + 60 = 1,820 | 51 % |
 * | 700 | 2,293 + 450 + 60 = 2,803 | 78 % |
 * | 945 | 3,094 + 450 + 60 = 3,604 | 100 % |
 *
 * A payment is then seen ~1 s (Horizon's ingestion) + S / 2 + a request after its ledger
 * closes: ~5.5 s at S = 8 (p50). Only ledgers full of successful payments would exceed the
 * public limit (no design that reads every payment fits them); the watcher then falls behind
 * and catches up after, and Horizon's 429s are tried again (http.ts) like any other. The same
 * figures hold for 2 or 1,000 open invoices over 50 merchants, or 5,000 merchants.
 *
 * Memos: a payment to a muxed address carries its id in the record (`to_muxed_id`). One to a
 * plain watched account needs its transaction's memo: for a page with one such transaction it
 * is read alone (`/transactions/{hash}`), for a page with more the page is read again with
 * `join=transactions` (the transactions embedded): at most one request more per page that pays
 * a watched account, never one per invoice. Pages are not always joined: a joined page carries
 * every transaction's envelope, result and meta XDR, several times the plain page's bytes.
 *
 * ## The cursor
 *
 * The cursor is the paging token (the operation id, Horizon's TOID: ledger << 32 | transaction
 * << 12 | operation) of the last record read; the indexed watcher stores it (index-cursors.ts)
 * only after booking what the step found, so a restart reads again from the last booked place
 * and nothing is missed; booking is idempotent by the operation id, so what is read twice is
 * booked once. No place is kept in memory. Where reading starts:
 *
 * - no cursor (the first run): at the later of `now` less {@link COLD_START_MARGIN_MS} and the
 *   oldest watched invoice's creation (less {@link SINCE_MARGIN_MS} for clocks), never at the
 *   network's first ledger;
 * - a cursor left behind by an idle spell (nothing watched, so nothing read): at the oldest
 *   watched invoice's creation when that is later (nothing before it can pay one);
 * - otherwise right after the cursor.
 *
 * A time is turned into a ledger from the head (the root's latest ledger and its close time)
 * at one ledger per 5 s at most (so the estimate is not later than the time), then checked
 * with that ledger's `closed_at` (`/ledgers/{seq}`), stepping back while it is later.
 *
 * The watch list is read at the start of a step (is anything watched, and since when) and again
 * after the pages are read, before they are matched: a payment exists only after its invoice
 * was shown, so every invoice a page's payment can pay is on the second read (watch-list.ts).
 *
 * ## What counts
 *
 * `payment`, `path_payment_strict_receive` and `path_payment_strict_send` records of successful
 * transactions (`transaction_successful`, checked although the list leaves failed ones out)
 * whose asset is `credit_alphanum4` USDC of the configured issuer, to a watched account (its
 * `to`: a muxed destination's base account). The amount is the record's `amount`: what the
 * destination received (a strict-send path payment's is taken from its result, a
 * strict-receive's is the amount asked; its `source_amount` is what the payer spent). A
 * contract call (`invoke_host_function`: a smart wallet paying through USDC's Stellar Asset
 * Contract) counts by its `asset_balance_changes`: each `transfer` or `mint` of USDC to a
 * watched account, its `destination_muxed_id` as the muxed id. Another issuer's "USDC", XLM
 * and every other operation are not ours. A refund's watch (`kind` refund) names the buyer's
 * account: what it receives in USDC is reported to it the same way.
 *
 * The payment's key is the operation id (unique forever: one payment operation pays one
 * destination; a contract call's balance change is `<operation id>-<its index>`), its txid the
 * transaction hash, its memo the muxed id, else the transaction's MEMO_ID, else a MEMO_TEXT
 * that is digits only (trimmed; exchanges often send the id as text), as a canonical decimal;
 * the block is the ledger (its sequence; the hash is not in the record, so it is left empty) and
 * the time the ledger's close.
 *
 * ## The network
 *
 * Once per process, Horizon's root (`GET /`) must say the configured `network_passphrase`: a
 * Horizon of the test network would show payments of a worthless USDC. It is checked as the
 * other per-address sources check their genesis (chain-check.ts through per-address.ts), with
 * the network id, SHA-256 of the passphrase, as the hash: what every transaction's signature
 * commits to, and from which stellar-core makes the network's genesis (its root account's key).
 * A mismatch is a WrongChainError (`wrong_chain` in the health). The head (the root's latest
 * ingested ledger and its close time) is looked at once a minute, so a Horizon that stopped
 * ingesting is seen (head-check.ts); a step that stops {@link MAX_BEHIND_LEDGERS} or more
 * ledgers behind that head (catching up after an outage, or more traffic than the request
 * budget reads) reports the source not caught up as well, so its lag is seen and counted.
 *
 * Horizon's JSON as its source writes it (stellar/go-stellar-sdk protocols/horizon: Root,
 * Transaction, Account, Balance, Ledger; operations/main.go: Base, Payment, PathPayment,
 * PathPaymentStrictSend; stellar/stellar-horizon internal/resourceadapter/operations.go,
 * transaction.go, root.go; internal/ingest/processors/operations_processor.go for what `amount`
 * holds; internal/actions/operation.go for `include_failed` and `join`; internal/db2/history
 * transaction_batch_insert_builder.go for how memos are written). Every answer is checked field
 * by field; anything else is a {@link SourceError}.
 */

/** Horizon's largest page. */
const PAGE = 200;
/** Pages one step reads at most (the bound on its work); a watcher behind steps again at once. */
const PAGES_PER_STEP = 10;
/** A payment a minute before its invoice was made still counts (clocks differ); earlier cannot be one. */
const SINCE_MARGIN_MS = 60_000;
/** With no cursor, reading starts this long before now at the earliest. */
const COLD_START_MARGIN_MS = 10 * 60_000;
/** Stellar closes a ledger every ~5.5 s, never sooner than every 5 s: a time's ledger estimated with 5 s is not later than it. */
const LEDGER_MIN_MS = 5000;
/** A stored cursor at most this many ledgers before the oldest watched invoice is read on from (cheaper than finding the ledger). */
const SKIP_SLACK_LEDGERS = 12;
/** The largest answer taken (a plain page of 200 payments is ~300 kB; a joined one a few MB). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
/**
 * A step that stops this many ledgers (~3 minutes) or more behind the head reports the source
 * as not caught up (as head-check.ts does for a head that old): payments are being seen late.
 */
const MAX_BEHIND_LEDGERS = 33;
/** Transactions whose memo was read, kept per process (a transaction never changes). */
const KEEP = 10_000;

const HASH = /^[0-9a-f]{64}$/;
const TOKEN = /^\d{1,19}$/;
/** Horizon writes every amount with 7 decimals (amount.String; a contract's balance change as an i128, amount.String128). */
const AMOUNT = /^(\d{1,32})\.(\d{7})$/;
const PAYMENT_TYPES = new Set(['payment', 'path_payment_strict_receive', 'path_payment_strict_send']);

/** The network id of a passphrase (SHA-256), as hex. */
const stellarNetworkId = (passphrase: string): string => createHash('sha256').update(passphrase, 'utf8').digest('hex');

/** Stellar's public networks by their id, named in a wrong-network error. */
const KNOWN_NETWORKS: Readonly<Record<string, string>> = {
  'Public Global Stellar Network ; September 2015': 'mainnet',
  'Test SDF Network ; September 2015': 'testnet',
  'Test SDF Future Network ; October 2022': 'futurenet',
};

/** The cursor before every operation of ledger `ledger` (its TOID with transaction and operation 0). */
const ledgerCursor = (ledger: number): string => (BigInt(ledger) << 32n).toString();

/** The ledger of a paging token (an operation's TOID). */
const ledgerOfToken = (token: string): number => Number(BigInt(token) >> 32n);

/** How Horizon is reached. */
export interface HorizonOptions {
  /** Horizon's base URL (STELLAR_HORIZON_URL). */
  url: string;
  /** The USDC issuer (Circle's on mainnet). */
  issuer: string;
  /** The network Horizon must serve (its root's `network_passphrase`). */
  networkPassphrase: string;
  timeoutMs?: number;
  attempts?: number;
}

/**
 * What the source needs of a watch list entry (shared/store/watch-list.ts WatchedAddress): the
 * account paid (the merchant's, or a buyer's awaiting a refund), the currency and since when.
 */
export interface StellarWatched extends WatchEntry {
  /** `refund`: a buyer's account awaiting a refund (reported the same way); `ended`: no longer watched. */
  kind?: string;
}

export interface StellarPaymentsOptions extends HorizonOptions {
  currency: 'USDC_XLM';
  /** USDC's decimals on Stellar (7, as every Stellar amount). */
  decimals: 7;
  /** The watched accounts (the run reads them from shared/store/watch-list.ts). */
  watched: (now: Date) => Promise<readonly StellarWatched[]>;
  clock?: () => Date;
}

/** What a merchant's account (or a buyer's) can receive: it must exist and trust Circle's USDC. */
export type AccountCheck = { ok: true } | { ok: false; reason: 'ACCOUNT_NOT_FOUND' | 'NO_USDC_TRUSTLINE' };

/** A payment-class record of Horizon's, checked. */
interface PaymentRecord {
  token: string;
  type: string;
  successful: boolean;
  txHash: string;
  at: Date;
  /** What it credited to accounts: a payment's destination, or a contract call's asset balance changes (transfers and mints). */
  credits: Credit[];
  /** With join=transactions: the transaction's memo. */
  memo?: Memo;
}

/** One account credited by a record: its key (unique forever), the account, the muxed id it was paid with, the asset and the amount received. */
interface Credit {
  key: string;
  to: string;
  muxedId?: string;
  asset: { type: string; code?: string; issuer?: string };
  amount: string;
}

/** A transaction's memo as the service reads it: the invoice id, or none. */
type Memo = { id: string | undefined };

/** Horizon over HTTP: one GET per call, its JSON checked; a 404 is undefined where asked. */
class HorizonClient {
  readonly source: string;
  private readonly base: string;
  private readonly http: HttpPolicy;

  constructor(options: Pick<HorizonOptions, 'url' | 'timeoutMs' | 'attempts'>) {
    const url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RangeError(`Horizon URL must be http(s), got "${url.protocol}"`);
    this.base = url.toString().replace(/\/+$/, '');
    this.source = `horizon:${url.host}`;
    this.http = {
      ...DEFAULT_HTTP_POLICY,
      maxBodyBytes: MAX_BODY_BYTES,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.attempts !== undefined ? { attempts: options.attempts } : {}),
    };
  }

  /** The root: the network's passphrase and the newest ledger Horizon ingested, with its close time. */
  async root(): Promise<{ passphrase: string; head: SourceHead }> {
    const root = (await this.get('/'))!;
    const { network_passphrase: passphrase, history_latest_ledger: latest, history_latest_ledger_closed_at: closedAt } = root;
    if (typeof passphrase !== 'string' || passphrase.length === 0) throw this.error('the root has no network_passphrase');
    if (!Number.isSafeInteger(latest) || (latest as number) < 1) throw this.error('the root has no history_latest_ledger');
    return { passphrase, head: { height: latest as number, time: this.time(closedAt, 'the root history_latest_ledger_closed_at') } };
  }

  /** A ledger's close time, or undefined when Horizon has no such ledger (not yet, or before its history). */
  async ledgerClosedAt(sequence: number): Promise<Date | undefined> {
    const ledger = await this.get(`/ledgers/${sequence}`, [404, 410]);
    if (!ledger) return undefined;
    if (ledger.sequence !== sequence) throw this.error(`/ledgers/${sequence} answered ledger ${String(ledger.sequence)}`);
    return this.time(ledger.closed_at, `ledger ${sequence} closed_at`);
  }

  /** One page of the network's successful payments after `cursor`, oldest first. */
  async payments(cursor: string, join = false): Promise<PaymentRecord[]> {
    const path = `/payments?cursor=${cursor}&order=asc&limit=${PAGE}&include_failed=false${join ? '&join=transactions' : ''}`;
    const records = this.records(await this.get(path), '/payments');
    let previous = BigInt(cursor);
    return records.map((raw) => {
      const record = this.record(raw, join);
      // Ascending from the cursor: each later than the one before (a source that repeats or reorders would lose payments).
      if (BigInt(record.token) <= previous) throw this.error(`/payments answered ${record.token} after ${previous.toString()}: not in order after the cursor`);
      previous = BigInt(record.token);
      return record;
    });
  }

  /** A transaction: whether it succeeded, its ledger and memo; undefined when Horizon does not know it. */
  async transaction(txHash: string): Promise<{ successful: boolean; ledger: number; memo: Memo } | undefined> {
    const tx = await this.get(`/transactions/${txHash}`, [404]);
    if (!tx) return undefined;
    return this.transactionOf(tx, txHash);
  }

  /** A transaction's payment-class operations, failed ones too (Horizon gives them all for one transaction). */
  async transactionPayments(txHash: string): Promise<PaymentRecord[]> {
    // At most 100 operations a transaction: one page.
    const records = this.records(await this.get(`/transactions/${txHash}/payments?order=asc&limit=${PAGE}`), `/transactions/${txHash}/payments`);
    return records.map((raw) => {
      const record = this.record(raw, false);
      if (record.txHash !== txHash) throw this.error(`/transactions/${txHash}/payments answered an operation of ${record.txHash}`);
      return record;
    });
  }

  /** An account's balances (asset type, code and issuer, and whether it is authorized), or undefined when it does not exist. */
  async balances(account: string): Promise<{ type: string; code?: string; issuer?: string; authorized?: boolean }[] | undefined> {
    const answer = await this.get(`/accounts/${account}`, [404]);
    if (!answer) return undefined;
    if (answer.account_id !== account || !Array.isArray(answer.balances)) throw this.error(`/accounts/${account} is not that account with its balances`);
    return answer.balances.map((raw: unknown) => {
      const balance = (raw ?? {}) as Record<string, unknown>;
      if (typeof balance.asset_type !== 'string') throw this.error(`/accounts/${account} has a balance without asset_type`);
      const authorized = balance.is_authorized;
      if (authorized !== undefined && typeof authorized !== 'boolean') throw this.error(`/accounts/${account} has a malformed is_authorized`);
      return {
        type: balance.asset_type,
        ...(typeof balance.asset_code === 'string' ? { code: balance.asset_code } : {}),
        ...(typeof balance.asset_issuer === 'string' ? { issuer: balance.asset_issuer } : {}),
        ...(authorized !== undefined ? { authorized } : {}),
      };
    });
  }

  /** `_embedded.records` of a page. */
  private records(page: Record<string, unknown> | undefined, what: string): unknown[] {
    const records = (page?._embedded as { records?: unknown } | undefined)?.records;
    if (!Array.isArray(records) || records.length > PAGE) throw this.error(`${what} is not a page of records`);
    return records;
  }

  /** One payment-class record, checked; the payment fields only for the payment types. */
  private record(raw: unknown, join: boolean): PaymentRecord {
    const record = (raw ?? {}) as Record<string, unknown>;
    const { id, paging_token: token, type, transaction_successful: successful, transaction_hash: txHash } = record;
    if (typeof token !== 'string' || !TOKEN.test(token) || id !== token) throw this.error(`a payment record has no valid id and paging_token (${String(token)})`);
    const where = `operation ${token}`;
    if (typeof type !== 'string' || typeof successful !== 'boolean') throw this.error(`${where} has no type or transaction_successful`);
    if (typeof txHash !== 'string' || !HASH.test(txHash)) throw this.error(`${where} has no valid transaction_hash`);
    const payment: PaymentRecord = { token, type, successful, txHash, at: this.time(record.created_at, `${where} created_at`), credits: [] };
    if (join) {
      const tx = record.transaction as Record<string, unknown> | undefined;
      if (!tx || typeof tx !== 'object') throw this.error(`${where} has no transaction although joined`);
      payment.memo = this.transactionOf(tx, txHash).memo;
    }
    if (PAYMENT_TYPES.has(type)) {
      const { to, to_muxed: toMuxed, to_muxed_id: muxedId } = record;
      if (typeof to !== 'string' || !isStellarAccount(to)) throw this.error(`${where} has no valid to`);
      const credit: Credit = { key: token, to, ...this.assetAmount(record, where) };
      if (toMuxed !== undefined || muxedId !== undefined) {
        // The id is written as a string (JSON numbers lose 64 bits); it must be the muxed address's own.
        const muxed = typeof toMuxed === 'string' ? parseMuxed(toMuxed) : undefined;
        if (!muxed || muxed.account !== to || muxedId !== muxed.id) throw this.error(`${where} has a to_muxed and to_muxed_id that do not agree with to`);
        credit.muxedId = muxed.id;
      }
      payment.credits.push(credit);
    } else if (type === 'invoke_host_function') {
      // A contract call listed as a payment moved an asset through its Stellar Asset Contract (a smart wallet paying):
      // each transfer or mint to an account (G...) is a credit; to a contract (C...), a burn or a clawback, none.
      const changes = record.asset_balance_changes ?? [];
      if (!Array.isArray(changes)) throw this.error(`${where} has malformed asset_balance_changes`);
      for (const [index, raw] of changes.entries()) {
        const change = (raw ?? {}) as Record<string, unknown>;
        const { type: kind, to, destination_muxed_id: muxedId } = change;
        if (typeof kind !== 'string' || (to !== undefined && typeof to !== 'string') || (muxedId !== undefined && (typeof muxedId !== 'string' || !isMemoId(muxedId)))) {
          throw this.error(`${where} has a malformed asset balance change`);
        }
        // A negative amount would be a debit written as a credit: not a payment to `to`.
        if ((kind !== 'transfer' && kind !== 'mint') || to === undefined || !isStellarAccount(to) || String(change.amount).startsWith('-')) continue;
        payment.credits.push({ key: `${token}-${index}`, to, ...this.assetAmount(change, where), ...(muxedId !== undefined ? { muxedId } : {}) });
      }
    }
    return payment;
  }

  /** A record's (or balance change's) asset and amount, checked. */
  private assetAmount(fields: Record<string, unknown>, where: string): Pick<Credit, 'asset' | 'amount'> {
    const { asset_type: type, asset_code: code, asset_issuer: issuer, amount } = fields;
    if (typeof type !== 'string' || (code !== undefined && typeof code !== 'string') || (issuer !== undefined && typeof issuer !== 'string')) {
      throw this.error(`${where} has a malformed asset`);
    }
    if (typeof amount !== 'string' || !AMOUNT.test(amount)) throw this.error(`${where} has a malformed amount`);
    return { asset: { type, ...(code !== undefined ? { code } : {}), ...(issuer !== undefined ? { issuer } : {}) }, amount };
  }

  /** A transaction resource's success, ledger and memo. */
  private transactionOf(tx: Record<string, unknown>, txHash: string): { successful: boolean; ledger: number; memo: Memo } {
    if (tx.hash !== txHash || typeof tx.successful !== 'boolean' || !Number.isSafeInteger(tx.ledger)) throw this.error(`transaction ${txHash} is not that transaction with its ledger and status`);
    return { successful: tx.successful, ledger: tx.ledger as number, memo: this.memo(tx.memo_type, tx.memo, txHash) };
  }

  /**
   * The invoice id a memo carries: a MEMO_ID (Horizon writes it in decimal), or a MEMO_TEXT of
   * digits only once trimmed (as a canonical decimal uint64); none for the rest.
   */
  private memo(type: unknown, value: unknown, txHash: string): Memo {
    switch (type) {
      case 'none':
      case 'hash':
      case 'return':
        return { id: undefined };
      case 'id':
        if (typeof value !== 'string' || !isMemoId(value)) throw this.error(`transaction ${txHash} has a malformed MEMO_ID`);
        return { id: value };
      case 'text': {
        // Horizon leaves an empty text memo out.
        const text = typeof value === 'string' ? value.trim() : '';
        if (!/^\d{1,20}$/.test(text)) return { id: undefined };
        const id = BigInt(text).toString();
        return { id: isMemoId(id) ? id : undefined };
      }
      default:
        throw this.error(`transaction ${txHash} has an unknown memo_type ${String(type)}`);
    }
  }

  private time(value: unknown, what: string): Date {
    const ms = typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value) ? Date.parse(value) : Number.NaN;
    if (!Number.isFinite(ms)) throw this.error(`${what} is not a time`);
    return new Date(ms);
  }

  /** GET `path`: its JSON object; undefined for a status in `missing`. */
  private async get(path: string, missing: readonly number[] = []): Promise<Record<string, unknown> | undefined> {
    return requestJsonObject(this.source, `${this.base}${path}`, { headers: { accept: 'application/hal+json, application/json' } }, this.http, { name: path.split('?')[0]!, missing });
  }

  error(message: string): SourceError {
    return new SourceError(this.source, message);
  }
}

/** Whether `balances` hold an authorized trustline to USDC of `issuer`. */
function trustsUsdc(balances: readonly { type: string; code?: string; issuer?: string; authorized?: boolean }[], issuer: string): boolean {
  // An unauthorized trustline (the issuer revoked it) cannot receive either.
  return balances.some((balance) => balance.type === 'credit_alphanum4' && balance.code === 'USDC' && balance.issuer === issuer && balance.authorized !== false);
}

/** Horizon's network, checked once per process, and its head once a minute (per-address.ts). */
function networkChecks(client: HorizonClient, passphrase: string, onHead: (head: SourceHead) => void = () => undefined): PerAddressChecks {
  // Named in the error: the public networks, and whatever passphrase the Horizon says (added when it answers).
  const networks: Record<string, string> = {};
  for (const [known, name] of Object.entries(KNOWN_NETWORKS)) networks[stellarNetworkId(known)] = `${name}, "${known}"`;
  networks[stellarNetworkId(passphrase)] ??= `"${passphrase}"`;
  // The root answers both checks: the head check right after the network's takes that answer instead of asking again.
  let network: { head: SourceHead; atMs: number } | undefined;
  return new PerAddressChecks('STELLAR Horizon', { genesisHash: stellarNetworkId(passphrase) }, networks, {
    hashAt: async (height) => {
      if (height !== 0) return undefined;
      const { passphrase: served, head } = await client.root();
      network = { head, atMs: Date.now() };
      onHead(head);
      const id = stellarNetworkId(served);
      networks[id] ??= `"${served}"`;
      return id;
    },
    head: async () => {
      const recent = network !== undefined && Date.now() - network.atMs < 1000 ? network.head : undefined;
      network = undefined;
      const head = recent ?? (await client.root()).head;
      onHead(head);
      return head;
    },
  });
}

/**
 * Whether `account` can receive USDC_XLM (a merchant setting its wallet, a buyer's refund
 * account): it must exist (`/accounts/{G}`) and hold an authorized trustline to USDC of the
 * issuer. Horizon's network is checked first (an account on the test network says nothing of
 * mainnet): a WrongChainError otherwise.
 *
 * @throws RangeError when `account` is not a `G...` account (check it with isStellarAccount first).
 */
export async function accountCheck(options: HorizonOptions, account: string): Promise<AccountCheck> {
  const client = new HorizonClient(options);
  await networkChecks(client, options.networkPassphrase).ensure(new Date(), { head: false });
  return checkAccount(client, options.issuer, account);
}

async function checkAccount(client: HorizonClient, issuer: string, account: string): Promise<AccountCheck> {
  if (!isStellarAccount(account)) throw new RangeError(`not a Stellar account: ${account}`);
  const balances = await client.balances(account);
  if (!balances) return { ok: false, reason: 'ACCOUNT_NOT_FOUND' };
  return trustsUsdc(balances, issuer) ? { ok: true } : { ok: false, reason: 'NO_USDC_TRUSTLINE' };
}

/** The watched accounts of a step: each with the earliest time a payment to it can count (ms). */
type Watched = Map<string, number>;

/** A credit to a watched account found on a page. */
interface Found {
  page: number;
  record: PaymentRecord;
  credit: Credit;
}

export class StellarPayments implements IndexedSource {
  readonly chain = 'STELLAR';
  private readonly client: HorizonClient;
  private readonly clock: () => Date;
  private readonly checks: PerAddressChecks;
  /** The newest head read (the root's latest ledger and its close time). */
  private head: SourceHead | undefined;
  /** Whether the last step stopped far behind the head (an outage caught up, or more traffic than a step reads). */
  private behind = false;
  /** Transactions' memos read (a transaction never changes). */
  private readonly memos = new ExpiringCache<string, Memo>({ maxEntries: KEEP, maxAgeMs: Number.POSITIVE_INFINITY });

  constructor(private readonly options: StellarPaymentsOptions) {
    if (!isStellarAccount(options.issuer)) throw new RangeError(`${options.currency} issuer is not a Stellar account: ${options.issuer}`);
    // Horizon writes every amount with 7 decimals: another precision would misread them.
    if (options.decimals !== 7) throw new RangeError(`Stellar amounts have 7 decimals, got ${String(options.decimals)}`);
    this.client = new HorizonClient(options);
    this.clock = options.clock ?? (() => new Date());
    this.checks = networkChecks(this.client, options.networkPassphrase, (head) => (this.head = head));
  }

  get source(): string {
    return this.client.source;
  }

  /** The network check, the head's age, and whether the source keeps up with the head. */
  health(): SourceHealthNote {
    const note = this.checks.health();
    return this.behind ? { ...note, caughtUp: false } : note;
  }

  /**
   * The USDC payments to watched accounts after `cursor` (a paging token), oldest first, at most
   * `limit`; `next` is the paging token of the last record read, `more` whether the network has
   * more already (a full last page, or a step's bound reached).
   */
  async after(cursor: string | undefined, limit: number): Promise<{ transfers: Transfer[]; next: string | undefined; more: boolean }> {
    if (cursor !== undefined && !TOKEN.test(cursor)) throw new Error(`STELLAR: the stored cursor "${cursor}" is not a paging token`);
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    const now = this.clock();
    // Every step starts here, an idle one too: the network first (once passed, for good), then the head at most once a minute.
    await this.checks.ensure(now);
    const first = this.watches(await this.options.watched(now));
    // Nothing can be ours: nothing is read and the cursor stays (a later start is found from the invoices then watched).
    if (first.size === 0) return { transfers: [], next: cursor, more: false };
    const start = await this.start(cursor, first, now);
    const pages: { cursor: string; records: PaymentRecord[] }[] = [];
    let at = start;
    let more = false;
    // Pages are read until the network is caught up, the step's bound, or enough payments for the step (by the first read: the second only adds).
    for (let candidates = 0; ; ) {
      if (pages.length === PAGES_PER_STEP || candidates >= limit) {
        more = true;
        break;
      }
      const records = await this.client.payments(at);
      pages.push({ cursor: at, records });
      candidates += records.reduce((sum, record) => sum + this.paid(record, first).length, 0);
      if (records.length > 0) at = records.at(-1)!.token;
      if (records.length < PAGE) break;
    }
    // Read again after the pages: every invoice their payments can pay is on it (see the module's comment).
    const watched = this.watches(await this.options.watched(this.clock()), first);
    const found: Found[] = [];
    let next = start;
    stop: for (const [page, { records }] of pages.entries()) {
      for (const record of records) {
        if (found.length >= limit) {
          more = true;
          break stop;
        }
        next = record.token;
        for (const credit of this.paid(record, watched)) found.push({ page, record, credit });
      }
    }
    await this.readMemos(found, pages);
    const transfers = found.map(({ record, credit }) => this.transfer(record, credit, credit.muxedId ?? this.memos.get(record.txHash)?.id));
    this.behind = more && this.head !== undefined && ledgerOfToken(next) + MAX_BEHIND_LEDGERS <= this.head.height;
    return { transfers, next, more };
  }

  /**
   * The USDC payments of one transaction, to any account (a merchant's reported refund,
   * refund-check.ts), keyed as {@link after} keys them; none for a failed transaction, undefined
   * when Horizon does not know it. The network is checked first.
   */
  async transaction(txHash: string): Promise<Transfer[] | undefined> {
    await this.checks.ensure(this.clock(), { head: false });
    const normalized = typeof txHash === 'string' ? txHash.toLowerCase() : '';
    if (!HASH.test(normalized)) return undefined;
    const tx = await this.client.transaction(normalized);
    if (!tx) return undefined;
    if (!tx.successful) return [];
    this.memos.set(normalized, tx.memo);
    const records = await this.client.transactionPayments(normalized);
    return records.flatMap((record) => (record.successful ? record.credits.filter((credit) => this.isUsdc(credit)) : []).map((credit) => this.transfer(record, credit, credit.muxedId ?? tx.memo.id)));
  }

  /** {@link accountCheck} through this source's Horizon (its network already checked once). */
  async accountCheck(account: string): Promise<AccountCheck> {
    await this.checks.ensure(this.clock(), { head: false });
    return checkAccount(this.client, this.options.issuer, account);
  }

  /** The watched accounts of this currency (a muxed address counts as its account), each with its oldest invoice's time less the margin. */
  private watches(entries: readonly StellarWatched[], also?: Watched): Watched {
    const { earliest } = earliestWatch(entries, this.options.currency, ({ address, kind }) => {
      if (kind === 'ended') return undefined;
      return isStellarAccount(address) ? address : parseMuxed(address)?.account;
    });
    const watched: Watched = new Map(also);
    for (const [account, { sinceMs }] of earliest) watched.set(account, Math.min(watched.get(account) ?? Number.POSITIVE_INFINITY, sinceMs - SINCE_MARGIN_MS));
    return watched;
  }

  /** Where this step reads from: after the cursor, or at the ledger of the oldest watched invoice when the cursor is none or far older. */
  private async start(cursor: string | undefined, watched: Watched, now: Date): Promise<string> {
    const floor = Math.min(...watched.values());
    if (cursor === undefined) return ledgerCursor(await this.ledgerNoLaterThan(Math.max(now.getTime() - COLD_START_MARGIN_MS, floor)));
    if (!this.head || this.estimate(floor) <= ledgerOfToken(cursor) + SKIP_SLACK_LEDGERS) return cursor;
    const skipped = ledgerCursor(await this.ledgerNoLaterThan(floor));
    return BigInt(skipped) > BigInt(cursor) ? skipped : cursor;
  }

  /** The ledger at `time` by the head, at most one a {@link LEDGER_MIN_MS}: not later than `time`'s. */
  private estimate(time: number): number {
    const head = this.head!;
    return Math.max(1, head.height - Math.ceil(Math.max(0, head.time.getTime() - time) / LEDGER_MIN_MS));
  }

  /** A ledger that closed no later than `time` (the estimate, checked with its close time, stepping back while it is later). */
  private async ledgerNoLaterThan(time: number): Promise<number> {
    let ledger = this.estimate(time);
    for (let back = 1, tries = 0; tries < 20 && ledger > 1; tries += 1) {
      const closedAt = await this.client.ledgerClosedAt(ledger);
      // Before Horizon's history (an ascending read then starts at its oldest ledger), or not ingested yet (reading from there finds nothing more).
      if (closedAt === undefined || closedAt.getTime() <= time) return ledger;
      back = Math.max(back * 2, Math.ceil((closedAt.getTime() - time) / LEDGER_MIN_MS) + 1);
      ledger = Math.max(1, ledger - back);
    }
    return ledger;
  }

  private isUsdc({ asset }: Credit): boolean {
    return asset.type === 'credit_alphanum4' && asset.code === 'USDC' && asset.issuer === this.options.issuer;
  }

  /** What a successful record credited in USDC to watched accounts, made no earlier than their oldest invoice (less the margin). */
  private paid(record: PaymentRecord, watched: Watched): Credit[] {
    if (!record.successful) return [];
    return record.credits.filter((credit) => {
      const since = watched.get(credit.to);
      return since !== undefined && this.isUsdc(credit) && record.at.getTime() >= since;
    });
  }

  /**
   * The memos of the found payments to plain accounts: a page with one such transaction reads it
   * alone, a page with more is read again with its transactions joined (one request for all).
   */
  private async readMemos(found: readonly Found[], pages: readonly { cursor: string; records: PaymentRecord[] }[]): Promise<void> {
    const needed = new Map<number, Set<string>>();
    for (const { page, record, credit } of found) {
      if (credit.muxedId !== undefined || this.memos.get(record.txHash) !== undefined) continue;
      needed.set(page, (needed.get(page) ?? new Set()).add(record.txHash));
    }
    for (const [page, hashes] of needed) {
      if (hashes.size === 1) {
        const txHash = [...hashes][0]!;
        const tx = await this.client.transaction(txHash);
        if (!tx) throw this.client.error(`transaction ${txHash} of a listed payment is unknown`);
        this.memos.set(txHash, tx.memo);
        continue;
      }
      const joined = await this.client.payments(pages[page]!.cursor, true);
      for (const record of joined) if (hashes.has(record.txHash)) this.memos.set(record.txHash, record.memo!);
      for (const txHash of hashes) if (this.memos.get(txHash) === undefined) throw this.client.error(`the joined page did not hold transaction ${txHash} again`);
    }
  }

  private transfer(record: PaymentRecord, credit: Credit, memo: string | undefined): Transfer {
    const [, whole, fraction] = AMOUNT.exec(credit.amount)!;
    return {
      key: credit.key,
      txid: record.txHash,
      currency: this.options.currency,
      address: credit.to,
      ...(memo !== undefined ? { memo } : {}),
      amount: fromMinorUnits(BigInt(`${whole}${fraction}`), this.options.decimals),
      block: { height: ledgerOfToken(record.token), hash: '' },
      at: record.at,
    };
  }
}
