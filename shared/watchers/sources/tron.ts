import { fromMinorUnits } from '#shared/domain/money';
import { hexToBytes } from '@noble/hashes/utils.js';
import { isTronAddress, tronAddressOfBytes } from '#shared/payments/addresses/tron';
import { TRON_GENESIS, TRON_NETWORKS } from '#shared/payments/tron-config';
import { ChainCheck } from '#shared/watchers/sources/chain-check';
import { DEFAULT_HTTP_POLICY, type HttpPolicy, requestText } from '#shared/watchers/sources/http';
import { SourceError } from '#shared/core/source-error';
import type { IndexedSource, SourceHealthNote, Transfer } from '#shared/watchers/sources/port';
import { type WatchedTarget, WatchedSchedule } from '#shared/watchers/sources/watched-schedule';
import { HeadCheck, type SourceHead } from '#shared/watchers/sources/head-check';

/**
 * USDT (TRC-20) on TRON, read from a TronGrid-compatible API (REFERENCE "More networks"):
 *
 * - first, once per process, the network: block 0's `blockID` (`POST /wallet/getblockbynum`
 *   `{"num":0}`) must be mainnet's (chain-check.ts): an API on Shasta or Nile would show
 *   transfers of a worthless USDT;
 * - what an invoice address received: `GET /v1/accounts/{address}/transactions/trc20` with
 *   `only_confirmed=true` (solidified: built on by 19 of 27 super representatives, never rolled
 *   back), `only_to=true`, `contract_address` (the USDT contract), `min_timestamp` (the
 *   invoice's creation) and `limit=200`, following `meta.fingerprint` for more pages;
 * - then, for each transaction that index names, its solidified receipt
 *   (`POST /walletsolidity/gettransactioninfobyid`): it must say `SUCCESS`, and the amount
 *   booked is the sum of the USDT contract's own `Transfer` event logs in it that pay the
 *   address. So the index is a hint; what counts is the contract's log: a row for another
 *   token, another recipient or a failed call books nothing.
 *
 * The payment's key is `<transaction id>:<address>` (one transaction paying two invoices is two
 * payments; two transfers to one address in one transaction add up to one). The time booked
 * is the block's. Every answer is checked field by field; anything else is a {@link SourceError}.
 */

/** keccak256("Transfer(address,address,uint256)"), as TRON writes topics (no 0x). */
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface TronGridOptions {
  /** The API's base URL (https://api.trongrid.io or a compatible one). */
  url: string;
  /** TronGrid's `TRON-PRO-API-KEY` header, when the API wants one. */
  apiKey?: string;
  /** The TRC-20 contract (base58, TR7N... for USDT). */
  contract: string;
  /** The pay currency of its transfers. */
  currency: string;
  /** The token's decimals (6 for USDT). */
  decimals: number;
  http?: HttpPolicy;
  /** Pages of 200 read per address and step at most. Default 5. */
  maxPages?: number;
  /** The network the API must serve: its block 0's `blockID` (mainnet's by default). */
  genesisHash?: string;
}

/** One row of the TRC-20 transfer index, checked. */
export interface Trc20Row {
  txid: string;
  from: string;
  to: string;
  contract: string;
  value: bigint;
  timestamp: number;
}

/** A transaction's solidified receipt, as far as the watcher needs it. */
export interface TronTransactionInfo {
  txid: string;
  success: boolean;
  blockNumber: number;
  blockTimestamp: number;
  /** The TRC-20 Transfer logs: the emitting contract and the recipient (base58), and the value. */
  transfers: { contract: string; to: string; value: bigint }[];
}

export class TronGridClient {
  readonly source: string;
  private readonly base: string;
  private readonly http: HttpPolicy;
  private readonly headers: Record<string, string>;

  constructor(private readonly options: Pick<TronGridOptions, 'url' | 'apiKey' | 'http' | 'maxPages'>) {
    const url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RangeError(`TronGrid URL must be http(s), got "${url.protocol}"`);
    this.base = url.toString().replace(/\/+$/, '');
    this.source = `trongrid:${url.host}`;
    this.http = options.http ?? DEFAULT_HTTP_POLICY;
    this.headers = { accept: 'application/json', ...(options.apiKey ? { 'TRON-PRO-API-KEY': options.apiKey } : {}) };
  }

  /** The `blockID` of block `num`, or undefined when the node has none there (it answers {}). */
  async blockId(num: number): Promise<string | undefined> {
    const { status, body } = await requestText(
      this.source,
      `${this.base}/wallet/getblockbynum`,
      { method: 'POST', headers: { ...this.headers, 'content-type': 'application/json' }, body: JSON.stringify({ num }) },
      this.http,
    );
    if (status !== 200) throw this.error(`getblockbynum: HTTP ${status}`);
    const block = this.json(body) as { blockID?: unknown; block_header?: { raw_data?: { number?: unknown } } } | null;
    if (!block || typeof block !== 'object' || Array.isArray(block)) throw this.error('getblockbynum did not answer an object');
    if (Object.keys(block).length === 0) return undefined;
    // Protobuf's JSON leaves zero fields out: block 0's header has no number.
    const number = block.block_header?.raw_data?.number ?? 0;
    if (typeof block.blockID !== 'string' || !/^[0-9a-f]{64}$/.test(block.blockID) || number !== num) throw this.error(`getblockbynum ${num} did not answer that block with its blockID`);
    return block.blockID;
  }

  /** The newest solidified block (`POST /walletsolidity/getnowblock`): its number and time. */
  async solidHead(): Promise<SourceHead> {
    const { status, body } = await requestText(
      this.source,
      `${this.base}/walletsolidity/getnowblock`,
      { method: 'POST', headers: { ...this.headers, 'content-type': 'application/json' }, body: '{}' },
      this.http,
    );
    if (status !== 200) throw this.error(`getnowblock: HTTP ${status}`);
    const block = this.json(body) as { block_header?: { raw_data?: { number?: unknown; timestamp?: unknown } } } | null;
    const header = block?.block_header?.raw_data;
    if (!header || !Number.isSafeInteger(header.number) || !Number.isSafeInteger(header.timestamp)) throw this.error('getnowblock did not answer a block with its number and timestamp');
    return { height: header.number as number, time: new Date(header.timestamp as number) };
  }

  /** The solidified TRC-20 transfers of `contract` to `address` since `sinceMs`, every page. */
  async incoming(address: string, contract: string, sinceMs: number): Promise<Trc20Row[]> {
    const rows: Trc20Row[] = [];
    let fingerprint: string | undefined;
    for (let page = 0; page < (this.options.maxPages ?? 5); page += 1) {
      const query = new URLSearchParams({
        only_confirmed: 'true',
        only_to: 'true',
        contract_address: contract,
        min_timestamp: String(Math.max(0, Math.floor(sinceMs))),
        limit: '200',
        ...(fingerprint ? { fingerprint } : {}),
      });
      const body = await this.get(`/v1/accounts/${encodeURIComponent(address)}/transactions/trc20?${query}`);
      const { data, meta, success } = body as { data?: unknown; meta?: { fingerprint?: unknown }; success?: unknown };
      if (success !== true || !Array.isArray(data)) throw this.error('transactions/trc20 did not answer success and a data list');
      rows.push(...data.map((row) => this.row(row)));
      fingerprint = typeof meta?.fingerprint === 'string' && meta.fingerprint !== '' ? meta.fingerprint : undefined;
      if (!fingerprint) return rows;
    }
    throw this.error(`${address} received more than ${(this.options.maxPages ?? 5) * 200} transfers since ${new Date(sinceMs).toISOString()}`);
  }

  /** The transaction's solidified receipt, or undefined while it is not solidified (the node answers {}). */
  async transactionInfo(txid: string): Promise<TronTransactionInfo | undefined> {
    const { status, body } = await requestText(
      this.source,
      `${this.base}/walletsolidity/gettransactioninfobyid`,
      { method: 'POST', headers: { ...this.headers, 'content-type': 'application/json' }, body: JSON.stringify({ value: txid }) },
      this.http,
    );
    if (status !== 200) throw this.error(`gettransactioninfobyid: HTTP ${status}`);
    const info = this.json(body) as Record<string, unknown>;
    if (!info || typeof info !== 'object' || Array.isArray(info)) throw this.error('gettransactioninfobyid did not answer an object');
    if (Object.keys(info).length === 0) return undefined;
    const receipt = info.receipt as { result?: unknown } | undefined;
    if (info.id !== txid) throw this.error(`gettransactioninfobyid answered for ${String(info.id)}, asked for ${txid}`);
    if (!Number.isSafeInteger(info.blockNumber) || !Number.isSafeInteger(info.blockTimeStamp)) throw this.error(`${txid} has no valid blockNumber or blockTimeStamp`);
    const logs = info.log ?? [];
    if (!Array.isArray(logs)) throw this.error(`${txid} log is not a list`);
    const transfers = logs.flatMap((log: unknown) => {
      const { address, topics, data } = (log ?? {}) as { address?: unknown; topics?: unknown; data?: unknown };
      if (typeof address !== 'string' || !/^[0-9a-f]{40}$/i.test(address) || !Array.isArray(topics)) throw this.error(`${txid} has a malformed log`);
      if (topics[0] !== TRANSFER_TOPIC || topics.length !== 3 || typeof data !== 'string' || !/^[0-9a-f]{64}$/i.test(data)) return [];
      const to = typeof topics[2] === 'string' && /^0{24}[0-9a-f]{40}$/i.test(topics[2]) ? topics[2].slice(24) : undefined;
      if (!to) return [];
      return [{ contract: hexAccount(address), to: hexAccount(to), value: BigInt(`0x${data}`) }];
    });
    return {
      txid,
      success: receipt?.result === 'SUCCESS',
      blockNumber: info.blockNumber as number,
      blockTimestamp: info.blockTimeStamp as number,
      transfers,
    };
  }

  private row(raw: unknown): Trc20Row {
    const row = (raw ?? {}) as Record<string, unknown>;
    const token = (row.token_info ?? {}) as Record<string, unknown>;
    const txid = row.transaction_id;
    const where = `row ${String(txid)}`;
    if (typeof txid !== 'string' || !/^[0-9a-f]{64}$/.test(txid)) throw this.error(`${where} has no valid transaction_id`);
    if (typeof row.value !== 'string' || !/^\d{1,78}$/.test(row.value)) throw this.error(`${where} has no valid value`);
    if (!Number.isSafeInteger(row.block_timestamp)) throw this.error(`${where} has no valid block_timestamp`);
    for (const field of [row.from, row.to, token.address]) {
      if (typeof field !== 'string' || !isTronAddress(field)) throw this.error(`${where} has a from, to or token_info.address that is not a TRON address`);
    }
    return { txid, from: row.from as string, to: row.to as string, contract: token.address as string, value: BigInt(row.value), timestamp: row.block_timestamp as number };
  }

  private async get(path: string): Promise<unknown> {
    const { status, body } = await requestText(this.source, `${this.base}${path}`, { headers: this.headers }, this.http);
    if (status !== 200) throw this.error(`${path.split('?')[0]}: HTTP ${status}`);
    return this.json(body);
  }

  private json(body: string): unknown {
    try {
      return JSON.parse(body);
    } catch {
      throw this.error('answer is not JSON');
    }
  }

  private error(message: string): SourceError {
    return new SourceError(this.source, message);
  }
}

/** A base58 address from the 20-byte hex TRON's logs write. */
const hexAccount = (hex: string): string => tronAddressOfBytes(hexToBytes(hex.toLowerCase()));

export interface TronTransfersOptions extends TronGridOptions {
  /** The addresses to ask about (the run reads them from shared/store/watch-list.ts). */
  watched: (now: Date) => Promise<WatchedTarget[]>;
  /** How often an address past its invoice's expiry (but within the late window) is asked again. Default 600 s. */
  lateEverySeconds?: number;
  clock?: () => Date;
}

/**
 * The TRON watcher's source: each step asks about every open invoice's address, and about the
 * expired ones still in their late window every `lateEverySeconds`; reports what paid them.
 * It has no cursor of its own (`next` stays undefined): every step reads an address's transfers
 * since its invoice was made, and booking is idempotent by the payment's key. A transaction is
 * verified once per process (its solidified receipt never changes).
 */
export class TronTransfers implements IndexedSource {
  readonly chain = 'TRON';
  private readonly client: TronGridClient;
  private readonly clock: () => Date;
  private readonly verified = new Map<string, TronTransactionInfo>();
  private readonly schedule: WatchedSchedule;
  private readonly check: ChainCheck;
  private readonly head = new HeadCheck();

  constructor(private readonly options: TronTransfersOptions) {
    if (!isTronAddress(options.contract)) throw new RangeError(`${options.currency} contract is not a TRON address: ${options.contract}`);
    this.client = new TronGridClient(options);
    this.clock = options.clock ?? (() => new Date());
    this.schedule = new WatchedSchedule(options.lateEverySeconds);
    this.check = new ChainCheck('TRON API', { genesisHash: options.genesisHash ?? TRON_GENESIS.mainnet }, TRON_NETWORKS);
  }

  get source(): string {
    return this.client.source;
  }

  health(): SourceHealthNote {
    return { chainOk: this.check.chainOk, currencyErrors: {}, ...this.head.note() };
  }

  async after(_cursor: string | undefined, limit: number): Promise<{ transfers: Transfer[]; next: string | undefined }> {
    // Every step starts here, an idle one too (nothing watched): the network first (once passed,
    // for good), then whether the API sees the chain now (at most once a minute).
    await this.check.ensure((height) => this.client.blockId(height));
    const now = this.clock();
    await this.head.ensure(now, () => this.client.solidHead());
    const due = this.schedule.due(await this.options.watched(now), this.options.currency, now, limit);
    const transfers: Transfer[] = [];
    for (const entry of due) {
      // A minute before the invoice: clocks differ, and a payment before its invoice cannot be one.
      const rows = await this.client.incoming(entry.address, this.options.contract, Date.parse(entry.since) - 60_000);
      const txids = [...new Set(rows.filter((row) => row.to === entry.address && row.contract === this.options.contract).map((row) => row.txid))];
      for (const txid of txids) {
        const info = await this.info(txid);
        if (!info?.success) continue;
        const units = info.transfers
          .filter((log) => log.contract === this.options.contract && log.to === entry.address)
          .reduce((sum, log) => sum + log.value, 0n);
        if (units === 0n) continue;
        transfers.push({
          key: `${txid}:${entry.address}`,
          txid,
          currency: this.options.currency,
          address: entry.address,
          amount: fromMinorUnits(units, this.options.decimals),
          at: new Date(info.blockTimestamp),
        });
      }
    }
    return { transfers, next: undefined };
  }

  private async info(txid: string): Promise<TronTransactionInfo | undefined> {
    const known = this.verified.get(txid);
    if (known) return known;
    const info = await this.client.transactionInfo(txid);
    if (info) {
      if (this.verified.size >= 10_000) this.verified.delete(this.verified.keys().next().value as string);
      this.verified.set(txid, info);
    }
    return info;
  }
}
