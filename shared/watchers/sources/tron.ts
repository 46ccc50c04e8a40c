import { fromMinorUnits } from '#shared/domain/money';
import { hexToBytes } from '@noble/hashes/utils.js';
import { isTronAddress, tronAddressOfBytes, tronHex } from '#shared/payments/addresses/tron';
import { DEFAULT_MAX_BLOCK_RANGE, TRON_GENESIS, TRON_NETWORKS } from '#shared/chains/tron';
import { ExpiringCache } from '#shared/core/cache';
import { DEFAULT_HTTP_POLICY, endpoint, type HttpPolicy, requestText } from '#shared/watchers/sources/http';
import { JsonRpcClient, JsonRpcError } from '#shared/watchers/sources/json-rpc';
import { SourceError } from '#shared/core/source-error';
import type { IndexedSource, SourceHealthNote, Transfer } from '#shared/watchers/sources/port';
import type { SourceHead } from '#shared/watchers/sources/head-check';
import { earliestWatch, PerAddressChecks, type WatchEntry } from '#shared/watchers/sources/per-address';

/**
 * USDT (TRC-20) on TRON, read by block from a TronGrid-compatible API (merchant-guide.md "USDT on
 * TRON"; operator-guide.md "Providers and their plans"), so a provider's request budget is spent
 * per block, not per open invoice:
 *
 * - first, once per process, the network: block 0's `blockID` (`POST /wallet/getblockbynum`
 *   `{"num":0}`) must be mainnet's (chain-check.ts): an API on Shasta or Nile would show
 *   transfers of a worthless USDT;
 * - each step with an address to watch, the newest solidified block (`POST
 *   /walletsolidity/getnowblock`: built on by 19 of 27 super representatives, never rolled
 *   back), then every `Transfer` event of the USDT contract in the solid blocks after the cursor,
 *   by java-tron's JSON-RPC (`POST /jsonrpc` `eth_getLogs`, `address` the contract, topic 0
 *   `Transfer`), in ranges of at most `maxBlockRange` blocks: one request per range whatever the
 *   number of invoices. Recipients are matched here against the watch list (open invoices and
 *   those in their late window alike), not in the request: a topic list of recipients would grow
 *   with the list (java-tron takes 1,000 at most), the whole contract's logs do not. eth_getLogs,
 *   not TronGrid's `/v1/contracts/{contract}/events`: any java-tron node and hosted provider
 *   serves it, and a range is one answer, where the events API pages 200 events at a time;
 * - then, for each transfer to a watched address, its solidified receipt (`POST
 *   /walletsolidity/gettransactioninfobyid`): it must say `SUCCESS`, and the amount booked is the
 *   sum of the USDT contract's own `Transfer` logs in it that pay the address. So the event list
 *   is a hint; what counts is the receipt: another token, another recipient or a failed call
 *   books nothing.
 *
 * The cursor (the last solid block scanned, in the table through the indexed watcher's
 * conditional write) survives restarts; a solid block never rolls back, so it needs no hash.
 * The payment's key is `<transaction id>:<address>`, as when TRON was read per address (one
 * transaction paying two invoices is two payments; two transfers to one address in one
 * transaction add up to one), so nothing booked before is booked again. The time booked is the
 * block's. Every answer is checked field by field; anything else is a {@link SourceError}.
 */

/** keccak256("Transfer(address,address,uint256)"), as TRON writes topics (no 0x). */
const TRANSFER_TOPIC = 'ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** TRON makes at most one block per 3 s slot (a missed slot makes none). */
const BLOCK_MS = 3000;

/** Ranges one step reads at most (the bound on its work); a watcher behind steps again at once. */
const RANGES_PER_STEP = 10;

/** A payment a minute before its invoice still counts (clocks differ); earlier cannot be one. */
const SINCE_MARGIN_MS = 60_000;

export interface TronGridOptions {
  /** The API's base URL (https://api.trongrid.io or a compatible one); its JSON-RPC is at `/jsonrpc`. */
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
  /** The network the API must serve: its block 0's `blockID` (mainnet's by default). */
  genesisHash?: string;
}

/** A block's header, as far as the watcher needs it: its id, number and time (ms). */
export interface TronBlockHeader {
  id: string;
  number: number;
  time: number;
}

/** One `Transfer` event of the contract, checked: the recipient as 40 lowercase hex (its account bytes). */
export interface TronTransferLog {
  txid: string;
  block: number;
  to: string;
  value: bigint;
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

/**
 * Whether the JSON-RPC's error refuses the range's size: java-tron's "exceed max block range: N"
 * (-32602) and "query returned more than 10000 results" (-32005), and hosted plans' own words
 * for a cap.
 */
const refusesRange = (error: JsonRpcError): boolean => error.code === -32005 || /range|too many|too large|exceed|limit|results/i.test(error.rpcMessage);

const HEX_QUANTITY = /^0x[0-9a-f]{1,13}$/i;
const quantity = (n: number): string => `0x${n.toString(16)}`;

export class TronGridClient {
  readonly source: string;
  private readonly base: string;
  private readonly http: HttpPolicy;
  private readonly headers: Record<string, string>;
  /** java-tron's JSON-RPC at `/jsonrpc` (eth_getLogs). */
  private readonly rpc: JsonRpcClient;

  constructor(options: Pick<TronGridOptions, 'url' | 'apiKey' | 'http'>) {
    const { url, host, headers } = endpoint(options.url, 'TronGrid');
    this.base = url.replace(/\/+$/, '');
    this.source = `trongrid:${host}`;
    this.http = options.http ?? DEFAULT_HTTP_POLICY;
    const auth = { ...headers, ...(options.apiKey ? { 'TRON-PRO-API-KEY': options.apiKey } : {}) };
    this.headers = { accept: 'application/json', 'content-type': 'application/json', ...auth };
    // Hosted plans answer a refused range with HTTP 400 and a JSON-RPC error object: read it as the answer.
    this.rpc = new JsonRpcClient({ url: `${this.base}/jsonrpc`, label: 'trongrid', headers: auth, answerStatuses: [200, 400], ...this.http });
  }

  /** The `blockID` of block `num`, or undefined when the node has none there (it answers {}). */
  async blockId(num: number): Promise<string | undefined> {
    return (await this.block(num))?.id;
  }

  /** Block `num`'s header (`POST /wallet/getblockbynum`), or undefined when the node has none there (it answers {}). */
  async block(num: number): Promise<TronBlockHeader | undefined> {
    const block = (await this.post('/wallet/getblockbynum', { num })) as { blockID?: unknown; block_header?: { raw_data?: { number?: unknown; timestamp?: unknown } } } | null;
    if (!block || typeof block !== 'object' || Array.isArray(block)) throw this.error('getblockbynum did not answer an object');
    if (Object.keys(block).length === 0) return undefined;
    // Protobuf's JSON leaves zero fields out: block 0's header has no number and no timestamp.
    const number = block.block_header?.raw_data?.number ?? 0;
    const time = block.block_header?.raw_data?.timestamp ?? 0;
    if (typeof block.blockID !== 'string' || !/^[0-9a-f]{64}$/.test(block.blockID) || number !== num || !Number.isSafeInteger(time)) {
      throw this.error(`getblockbynum ${num} did not answer that block with its blockID and timestamp`);
    }
    return { id: block.blockID, number, time: time as number };
  }

  /** The newest solidified block (`POST /walletsolidity/getnowblock`): its number and time. */
  async solidHead(): Promise<SourceHead> {
    const block = (await this.post('/walletsolidity/getnowblock', {})) as { block_header?: { raw_data?: { number?: unknown; timestamp?: unknown } } } | null;
    const header = block?.block_header?.raw_data;
    if (!header || !Number.isSafeInteger(header.number) || !Number.isSafeInteger(header.timestamp)) throw this.error('getnowblock did not answer a block with its number and timestamp');
    return { height: header.number as number, time: new Date(header.timestamp as number) };
  }

  /**
   * The `Transfer` events `contract` emitted in blocks `from`..`to` (java-tron's `eth_getLogs`:
   * the contract as 0x + its 20 bytes, topic 0 the event), in the chain's order. A log of another
   * contract or event, or outside the range, is a lying source; a `removed` one does not count.
   */
  async transferLogs(contract: string, from: number, to: number): Promise<TronTransferLog[]> {
    const address = `0x${tronHex(contract).slice(2).toLowerCase()}`;
    const result = await this.rpc.call('eth_getLogs', [{ fromBlock: quantity(from), toBlock: quantity(to), address, topics: [`0x${TRANSFER_TOPIC}`] }]);
    if (!Array.isArray(result)) throw this.error('eth_getLogs did not answer a list of logs');
    return result.flatMap((raw: unknown) => this.transferLog(raw, address, from, to));
  }

  /** The transaction's solidified receipt, or undefined while it is not solidified (the node answers {}). */
  async transactionInfo(txid: string): Promise<TronTransactionInfo | undefined> {
    const info = (await this.post('/walletsolidity/gettransactioninfobyid', { value: txid })) as Record<string, unknown>;
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

  private transferLog(raw: unknown, contract: string, from: number, to: number): TronTransferLog[] {
    const log = (raw ?? {}) as Record<string, unknown>;
    const { address, topics, data, blockNumber, transactionHash, removed } = log;
    const where = `log ${String(transactionHash)}`;
    if (typeof transactionHash !== 'string' || !/^0x[0-9a-f]{64}$/i.test(transactionHash)) throw this.error(`${where} has no valid transactionHash`);
    if (typeof blockNumber !== 'string' || !HEX_QUANTITY.test(blockNumber)) throw this.error(`${where} has no valid blockNumber`);
    const block = Number.parseInt(blockNumber.slice(2), 16);
    if (block < from || block > to) throw this.error(`${where} is in block ${block}, outside the range asked (${from}-${to})`);
    if (typeof address !== 'string' || address.toLowerCase() !== contract) throw this.error(`${where} is not the contract's (${String(address)}, asked for ${contract})`);
    if (!Array.isArray(topics) || typeof topics[0] !== 'string' || topics[0].toLowerCase() !== `0x${TRANSFER_TOPIC}`) throw this.error(`${where} is not a Transfer event`);
    if (typeof data !== 'string' || (removed !== undefined && typeof removed !== 'boolean')) throw this.error(`${where} has no valid data or removed`);
    if (removed === true) return [];
    // An ERC-20 Transfer: from and to indexed (two topics after the event's), the value in data.
    const recipient = topics.length === 3 && typeof topics[2] === 'string' ? /^0x0{24}([0-9a-f]{40})$/i.exec(topics[2]) : null;
    if (!recipient || !/^0x[0-9a-f]{64}$/i.test(data)) return [];
    return [{ txid: transactionHash.slice(2).toLowerCase(), block, to: recipient[1]!.toLowerCase(), value: BigInt(data) }];
  }

  private async post(path: string, body: unknown): Promise<unknown> {
    const { status, body: text } = await requestText(this.source, `${this.base}${path}`, { method: 'POST', headers: this.headers, body: JSON.stringify(body) }, this.http);
    if (status !== 200) throw this.error(`${path.split('/').at(-1)}: HTTP ${status}`);
    return this.json(text);
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
  /**
   * The addresses watched (the run reads them from shared/store/watch-list.ts): open invoices
   * and those in their late window alike; a transfer more than a minute before an invoice was
   * made cannot pay it.
   */
  watched: (now: Date) => Promise<readonly WatchEntry[]>;
  /** Blocks one `eth_getLogs` asks at most (TRON_MAX_BLOCK_RANGE). Default {@link DEFAULT_MAX_BLOCK_RANGE}; lowered for the process to the range the API takes, and halved for a while after a large range fails. */
  maxBlockRange?: number;
  clock?: () => Date;
}

/** A watched recipient: its address and the earliest time a payment to it may have (ms). */
interface Recipient {
  address: string;
  sinceMs: number;
}

/**
 * The TRON watcher's source. Its cursor is the last solid block scanned. With nothing watched a
 * step reads no transfer and leaves the cursor (asking the solid head once a minute, for the
 * health); otherwise it reads the solid head and the contract's Transfer events of the blocks
 * after the cursor, and reports those paying a watched address whose receipt says so. A
 * transaction is verified once per process (its solidified receipt never changes).
 *
 * Where a scan starts without a cursor (a first start, the upgrade from reading per address),
 * or after a cursor left far behind (an idle spell): at the block of the oldest watched
 * invoice's creation less a minute. It is estimated from the solid head (at most a block per
 * 3 s, so the estimate is never late) and checked against that block's timestamp (stepping back
 * while it is later). From there the blocks are read in bounded ranges over as many steps as
 * needed, so a payment made while nothing read the chain is still found.
 */
export class TronTransfers implements IndexedSource {
  readonly chain = 'TRON';
  private readonly client: TronGridClient;
  private readonly clock: () => Date;
  /** Receipts read (a solidified one never changes): each transaction once per process. */
  private readonly verified = new ExpiringCache<string, TronTransactionInfo>({ maxEntries: 10_000, maxAgeMs: Number.POSITIVE_INFINITY });
  private readonly checks: PerAddressChecks;
  /** Blocks the next eth_getLogs asks at most: halved when a large range fails, doubled back after each success up to `ceiling`. */
  private range: number;
  /** The setting, or the largest range the API took once it refused a larger one. */
  private ceiling: number;
  /** The watched addresses' account hex as of the last step (null: not a TRON address). */
  private accounts = new Map<string, string | null>();

  constructor(private readonly options: TronTransfersOptions) {
    if (!isTronAddress(options.contract)) throw new RangeError(`${options.currency} contract is not a TRON address: ${options.contract}`);
    const range = options.maxBlockRange ?? DEFAULT_MAX_BLOCK_RANGE;
    if (!Number.isSafeInteger(range) || range < 1) throw new RangeError(`maxBlockRange must be a positive integer, got ${range}`);
    this.range = range;
    this.ceiling = range;
    this.client = new TronGridClient(options);
    this.clock = options.clock ?? (() => new Date());
    this.checks = new PerAddressChecks('TRON API', { genesisHash: options.genesisHash ?? TRON_GENESIS.mainnet }, TRON_NETWORKS, {
      hashAt: (height) => this.client.blockId(height),
      head: () => this.client.solidHead(),
    });
  }

  get source(): string {
    return this.client.source;
  }

  /** Blocks one `eth_getLogs` asks now (lower than the setting once the API refused a range). */
  get maxBlockRange(): number {
    return this.range;
  }

  health(): SourceHealthNote {
    return this.checks.health();
  }

  async after(cursor: string | undefined, limit: number): Promise<{ transfers: Transfer[]; next: string | undefined; more: boolean }> {
    const now = this.clock();
    // Every step starts here, an idle one too: the network first (once passed, for good).
    await this.checks.ensure(now, { head: false });
    const recipients = this.recipients(await this.options.watched(now));
    if (recipients.size === 0) {
      // Nothing can be ours: no transfer is read and the cursor stays (a later start is found
      // from the invoices then watched); whether the API sees now is asked at most once a minute.
      await this.checks.ensure(now);
      return { transfers: [], next: cursor, more: false };
    }
    const head = await this.checks.readHead(now);
    const from = await this.start(cursor, recipients, head);
    const transfers: Transfer[] = [];
    let scanned = from - 1;
    for (let ranges = 0; scanned < head.height && ranges < RANGES_PER_STEP && transfers.length < limit; ranges += 1) {
      const { logs, to } = await this.logs(scanned + 1, Math.min(head.height, scanned + this.range));
      const found = await this.paid(logs, recipients);
      transfers.push(...found.transfers);
      // The receipt API does not have that block yet (another node behind a load balancer): read it again next step.
      if (found.unsolidAt !== undefined) return { transfers, next: String(found.unsolidAt - 1), more: false };
      scanned = to;
    }
    return { transfers, next: String(scanned), more: scanned < head.height };
  }

  /**
   * What a solidified transaction paid `address` in the contract's token, and whether it
   * succeeded (a merchant's reported refund, refund-check.ts): undefined while the API has no
   * solidified receipt of it (unknown, or not solid yet). The API's network is checked first.
   */
  async paidBy(txid: string, address: string): Promise<{ success: boolean; units: bigint } | undefined> {
    await this.checks.ensure(this.clock(), { head: false });
    if (!/^[0-9a-f]{64}$/.test(txid)) return undefined;
    const info = await this.info(txid);
    if (!info) return undefined;
    const units = info.transfers.filter((transfer) => transfer.contract === this.options.contract && transfer.to === address).reduce((sum, transfer) => sum + transfer.value, 0n);
    return { success: info.success, units };
  }

  /** The watched addresses of this currency by their account hex, each with its earliest invoice's time less the margin. */
  private recipients(watched: readonly WatchEntry[]): Map<string, Recipient> {
    // Decoding base58check costs two SHA-256: each address once while it is watched, not every step (a week's late window is many).
    const accounts = new Map<string, string | null>();
    const { earliest } = earliestWatch(watched, this.options.currency, ({ address }) => {
      let hex = accounts.get(address) ?? this.accounts.get(address);
      if (hex === undefined) hex = isTronAddress(address) ? tronHex(address).slice(2).toLowerCase() : null;
      accounts.set(address, hex);
      return hex ?? undefined;
    });
    this.accounts = accounts;
    return new Map([...earliest].map(([hex, { entry, sinceMs }]) => [hex, { address: entry.address, sinceMs: sinceMs - SINCE_MARGIN_MS }]));
  }

  /** The first block to read: after the cursor, or at the oldest watched invoice when the cursor is none or far older. */
  private async start(cursor: string | undefined, recipients: ReadonlyMap<string, Recipient>, head: SourceHead): Promise<number> {
    if (cursor !== undefined && !/^\d{1,15}$/.test(cursor)) throw new Error(`TRON: the stored cursor "${cursor}" is not a block number`);
    const after = cursor === undefined ? undefined : Number(cursor) + 1;
    let earliest = Number.POSITIVE_INFINITY;
    for (const recipient of recipients.values()) earliest = Math.min(earliest, recipient.sinceMs);
    // No later than the block at `earliest`: TRON makes at most a block per slot.
    const estimate = Math.max(1, head.height - Math.ceil(Math.max(0, head.time.getTime() - earliest) / BLOCK_MS) - 1);
    // Close enough: reading the few blocks in between costs less than checking the estimate.
    if (after !== undefined && estimate <= after + this.range) return after;
    return Math.max(after ?? 0, await this.blockNoLaterThan(estimate, earliest));
  }

  /** `estimate`, or an earlier block, whose timestamp is not after `time` (an API whose head time is off is caught here). */
  private async blockNoLaterThan(estimate: number, time: number): Promise<number> {
    let number = estimate;
    let back = 1;
    for (let tries = 0; tries < 40 && number > 1; tries += 1) {
      const block = await this.client.block(number);
      if (!block) throw new SourceError(this.source, `has no block ${number} although its solid head is later`);
      if (block.time <= time) return number;
      back = Math.max(back * 2, Math.ceil((block.time - time) / BLOCK_MS) + 1);
      number = Math.max(1, number - back);
    }
    return number;
  }

  /**
   * The range's logs. A range the API refuses for its size is halved (for the process: the
   * API's cap) until it is taken. A large range that fails otherwise (a timeout, a 5xx: a
   * provider slow on ~75 logs a block while catching up) fails the step and the next asks half;
   * each success doubles the range back, so an outage does not leave it small.
   */
  private async logs(from: number, to: number): Promise<{ logs: TronTransferLog[]; to: number }> {
    for (;;) {
      const span = to - from + 1;
      try {
        const logs = await this.client.transferLogs(this.options.contract, from, to);
        this.range = Math.min(this.ceiling, Math.max(this.range, span * 2));
        return { logs, to };
      } catch (error) {
        if (!(error instanceof SourceError) || span === 1) throw error;
        this.range = Math.ceil(span / 2);
        if (!(error instanceof JsonRpcError) || !refusesRange(error)) throw error;
        this.ceiling = this.range;
        to = from + this.range - 1;
      }
    }
  }

  /**
   * The payments among `logs` to watched addresses, each checked by its solidified receipt; stops
   * at the first transaction whose receipt the API does not have yet (`unsolidAt`, its block).
   */
  private async paid(logs: readonly TronTransferLog[], recipients: ReadonlyMap<string, Recipient>): Promise<{ transfers: Transfer[]; unsolidAt?: number }> {
    const transfers: Transfer[] = [];
    const seen = new Set<string>();
    for (const log of logs) {
      const recipient = recipients.get(log.to);
      if (!recipient) continue;
      const key = `${log.txid}:${recipient.address}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const info = await this.info(log.txid);
      if (!info) return { transfers, unsolidAt: log.block };
      if (info.blockNumber !== log.block) throw new SourceError(this.source, `${log.txid} is in block ${info.blockNumber} by its receipt, ${log.block} by its log`);
      // A failed call, or a transfer before the invoice was made (an address shown again later), pays nothing.
      if (!info.success || info.blockTimestamp < recipient.sinceMs) continue;
      const units = info.transfers.filter((transfer) => transfer.contract === this.options.contract && transfer.to === recipient.address).reduce((sum, transfer) => sum + transfer.value, 0n);
      if (units === 0n) continue;
      transfers.push({
        key,
        txid: log.txid,
        currency: this.options.currency,
        address: recipient.address,
        amount: fromMinorUnits(units, this.options.decimals),
        at: new Date(info.blockTimestamp),
      });
    }
    return { transfers };
  }

  private info(txid: string): Promise<TronTransactionInfo | undefined> {
    return this.verified.getOrLoad(txid, () => this.client.transactionInfo(txid));
  }
}
