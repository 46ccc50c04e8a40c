/**
 * BTC, LTC and BCH through the JSON-RPC interface bitcoind, litecoind and Bitcoin Cash Node
 * share (Bitcoin Core RPC docs): `getblockchaininfo` (tip: `blocks`, `bestblockhash`, and `time`
 * on Bitcoin Core 23+, else `getblockheader` once per new tip: how old the node's view is; `chain`
 * for the chain check's message), `getblockhash 0` and, for BTC and BCH, the hash of the block
 * after their fork, once per process (chain-check.ts: a node on testnet, regtest or the
 * other coin is refused),
 * `getblockhash height`, `getblock hash 2` (verbosity 2: every transaction with its outputs,
 * `value` in coins, `n`, `scriptPubKey.address` or, on older nodes and BCHN,
 * `scriptPubKey.addresses`), `getrawmempool` and `getrawtransaction txid true` (sent as one
 * JSON-RPC batch for the mempool's new transactions).
 *
 * Requests are JSON-RPC 1.0 as `bitcoin-cli` sends them, with HTTP basic auth from the URL's
 * user and password. Values are read from the JSON text exactly (lossless-json): a coin amount
 * never passes through a float. BCH nodes must show CashAddr addresses (BCHN's default).
 */
import { isLosslessNumber, parse } from 'lossless-json';
import { decimalPlaces, type Decimal, isPositive, parseDecimal, ZERO, compare } from '#shared/domain/money';
import { DEFAULT_HTTP_POLICY, type HttpPolicy, requestText } from '#shared/watchers/sources/http';
import { SourceError } from '#shared/core/source-error';
import type { ChainIdentity } from '#shared/chains/identity';
import { MAINNET_IDENTITIES, type UtxoChainCode } from '#shared/chains/utxo';
import { type Block, type BlockRef, type BlockSource, type SourceHealthNote, type Transfer } from '#shared/watchers/sources/port';
import { ChainCheck } from '#shared/watchers/sources/chain-check';

export interface CoreRpcOptions {
  /** BTC, LTC or BCH. */
  chain: string;
  /** The node's RPC endpoint with credentials: http://user:password@host:8332/ */
  url: string;
  http?: HttpPolicy;
  /** New mempool transactions fetched per call at most. */
  mempoolLimit?: number;
  /** The chain the node must be on (its genesis, a block after a fork): mainnet's by default. */
  identity?: ChainIdentity;
}

const HASH = /^[0-9a-f]{64}$/;
/** getrawtransaction calls in one batch request. */
const BATCH = 100;
/** RPC_IN_WARMUP: the node is starting; asked again later. */
const WARMING_UP = -28;
/** RPC_INVALID_ADDRESS_OR_KEY: e.g. a transaction that left the mempool meanwhile. */
const NO_SUCH_TRANSACTION = -5;

type Json = Record<string, unknown>;

interface RpcAnswer {
  result?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
  id?: unknown;
}

export class CoreRpcSource implements BlockSource {
  readonly chain: string;
  private readonly endpoint: string;
  private readonly authorization: string | undefined;
  private readonly http: HttpPolicy;
  private readonly mempoolLimit: number;
  private nextId = 1;
  private readonly check: ChainCheck;
  /** The last tip whose time getblockheader gave. */
  private tipHeader: { hash: string; time: Date } | undefined;

  constructor(options: CoreRpcOptions) {
    this.chain = options.chain;
    const url = new URL(options.url);
    // fetch refuses URLs with credentials: they travel as the Authorization header instead.
    this.authorization = url.username || url.password ? `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}` : undefined;
    url.username = '';
    url.password = '';
    this.endpoint = url.toString();
    this.http = options.http ?? DEFAULT_HTTP_POLICY;
    this.mempoolLimit = options.mempoolLimit ?? 500;
    const identity = options.identity ?? MAINNET_IDENTITIES[options.chain as UtxoChainCode];
    if (!identity) throw new Error(`Core RPC: no chain identity for ${options.chain}`);
    this.check = new ChainCheck(`${this.chain} RPC`, identity);
  }

  /** Every step starts here: the chain check first (once passed, for good). */
  async tip(): Promise<BlockRef> {
    const info = this.object(await this.call('getblockchaininfo', []), 'getblockchaininfo');
    const height = this.count(info.blocks, 'getblockchaininfo.blocks');
    // A height above the node's tip has no block yet (getblockhash would answer RPC error -8).
    await this.check.ensure((at) => (at > height ? Promise.resolve(undefined) : this.blockHash(at)), typeof info.chain === 'string' ? info.chain : undefined);
    const hash = this.hash(info.bestblockhash, 'getblockchaininfo.bestblockhash');
    return { height, hash, time: info.time === undefined ? await this.headerTime(hash) : this.seconds(info.time, 'getblockchaininfo.time') };
  }

  /**
   * The time of the tip `hash` where getblockchaininfo does not say it (Bitcoin Core before 23,
   * Litecoin Core, Bitcoin Cash Node): `getblockheader`, asked once per tip (a new block), not
   * per step.
   */
  private async headerTime(hash: string): Promise<Date> {
    if (this.tipHeader?.hash === hash) return this.tipHeader.time;
    const header = this.object(await this.call('getblockheader', [hash, true]), `getblockheader ${hash}`);
    if (header.hash !== hash) throw this.garbage(`getblockheader ${hash} answered block ${String(header.hash)}`);
    const time = this.seconds(header.time, `getblockheader ${hash}.time`);
    this.tipHeader = { hash, time };
    return time;
  }

  private seconds(value: unknown, what: string): Date {
    return new Date(this.count(value, what) * 1000);
  }

  health(): SourceHealthNote {
    return { chainOk: this.check.chainOk, currencyErrors: {} };
  }

  async blockHash(height: number): Promise<string> {
    return this.hash(await this.call('getblockhash', [height]), `getblockhash ${height}`);
  }

  async block(height: number): Promise<Block> {
    const hash = await this.blockHash(height);
    const block = this.object(await this.call('getblock', [hash, 2]), `getblock ${hash}`);
    if (block.hash !== hash) throw this.garbage(`getblock ${hash} answered block ${String(block.hash)}`);
    const reported = this.count(block.height, `getblock ${hash}.height`);
    if (reported !== height) throw this.garbage(`block ${hash} says height ${reported}, asked for ${height}`);
    const previous = block.previousblockhash;
    const previousHash = previous === undefined ? '' : this.hash(previous, `parent of ${hash}`);
    const time = this.count(block.time, `getblock ${hash}.time`);
    if (!Array.isArray(block.tx) || block.tx.length === 0) throw this.garbage(`getblock ${hash} has no transactions (verbosity 2?)`);
    const ref = { height, hash };
    const transfers: Transfer[] = [];
    const txids = new Set<string>();
    for (const tx of block.tx) {
      const parsed = this.parse(tx, ref);
      if (txids.has(parsed.txid)) throw this.garbage(`block ${hash} lists ${parsed.txid} twice`);
      txids.add(parsed.txid);
      transfers.push(...parsed.transfers);
    }
    return { height, hash, previousHash, time: new Date(time * 1000), transfers };
  }

  async mempool(known: ReadonlySet<string>): Promise<Transfer[]> {
    const ids = await this.call('getrawmempool', []);
    if (!Array.isArray(ids)) throw this.garbage('getrawmempool is not an array');
    const fresh = ids.filter((id): id is string => typeof id === 'string' && HASH.test(id) && !known.has(id)).slice(0, this.mempoolLimit);
    const transfers: Transfer[] = [];
    for (let start = 0; start < fresh.length; start += BATCH) {
      const chunk = fresh.slice(start, start + BATCH);
      const answers = await this.batch(chunk.map((txid) => ({ method: 'getrawtransaction', params: [txid, true] })));
      answers.forEach((answer, i) => {
        if (answer.error) {
          // Mined or evicted since getrawmempool (without -txindex the node no longer finds it): nothing to see.
          if (answer.error.code === NO_SUCH_TRANSACTION || (isLosslessNumber(answer.error.code) && Number(answer.error.code.value) === NO_SUCH_TRANSACTION)) return;
          throw this.garbage(`getrawtransaction ${chunk[i]}: ${String(answer.error.message)}`);
        }
        const tx = this.object(answer.result, `getrawtransaction ${chunk[i]}`);
        if (tx.blockhash !== undefined) return; // mined meanwhile: the block scan books it
        const parsed = this.parse(tx, undefined);
        if (parsed.txid !== chunk[i]) throw this.garbage(`getrawtransaction ${chunk[i]} answered ${parsed.txid}`);
        transfers.push(...parsed.transfers);
      });
    }
    return transfers;
  }

  /**
   * One transaction's transfers (`getrawtransaction txid true`: the node needs -txindex for a
   * mined one not in its wallet), in its block when that block is on the best chain
   * (`getblockheader`: confirmations -1 off it); undefined when the node does not know the id.
   * A merchant's reported refund (refund-check.ts).
   */
  async transaction(txid: string): Promise<Transfer[] | undefined> {
    if (!HASH.test(txid)) return undefined;
    const [answer] = await this.batch([{ method: 'getrawtransaction', params: [txid, true] }]);
    if (!answer) throw this.garbage(`getrawtransaction ${txid}: no answer`);
    if (answer.error) {
      if (answer.error.code === NO_SUCH_TRANSACTION || (isLosslessNumber(answer.error.code) && Number(answer.error.code.value) === NO_SUCH_TRANSACTION)) return undefined;
      throw this.garbage(`getrawtransaction ${txid}: ${String(answer.error.message)}`);
    }
    const tx = this.object(answer.result, `getrawtransaction ${txid}`);
    let block: BlockRef | undefined;
    if (tx.blockhash !== undefined) {
      const hash = this.hash(tx.blockhash, `block of ${txid}`);
      const header = this.object(await this.call('getblockheader', [hash, true]), `getblockheader ${hash}`);
      if (header.hash !== hash) throw this.garbage(`getblockheader ${hash} answered block ${String(header.hash)}`);
      const confirmations = header.confirmations;
      const onBest = !(typeof confirmations === 'number' && confirmations < 0) && !(isLosslessNumber(confirmations) && Number(confirmations.value) < 0);
      if (onBest) block = { height: this.count(header.height, `getblockheader ${hash}.height`), hash };
    }
    const parsed = this.parse(tx, block);
    if (parsed.txid !== txid) throw this.garbage(`getrawtransaction ${txid} answered ${parsed.txid}`);
    return parsed.transfers;
  }

  /** The outputs of one transaction that pay an address. */
  private parse(value: unknown, block: BlockRef | undefined): { txid: string; transfers: Transfer[] } {
    const tx = this.object(value, 'transaction');
    const txid = this.hash(tx.txid, 'txid');
    if (!Array.isArray(tx.vout)) throw this.garbage(`transaction ${txid} has no vout list`);
    const transfers: Transfer[] = [];
    tx.vout.forEach((entry, position) => {
      const output = this.object(entry, `output ${txid}:${position}`);
      const n = this.count(output.n, `output ${txid}:${position}.n`);
      if (n !== position) throw this.garbage(`output ${txid}:${position} says n=${n}`);
      const amount = this.coins(output.value, `output ${txid}:${n}`);
      const script = this.object(output.scriptPubKey, `output ${txid}:${n}.scriptPubKey`);
      const address = this.address(script, `${txid}:${n}`);
      if (address === undefined) return;
      transfers.push({ key: `${txid}:${n}`, txid, currency: this.chain, address, amount, ...(block ? { block } : {}) });
    });
    return { txid, transfers };
  }

  /** `address` (Core 22+), or the one entry of `addresses` (older nodes, BCHN); none for OP_RETURN and bare multisig. */
  private address(script: Json, where: string): string | undefined {
    const single = script.address;
    const list = script.addresses;
    let address: unknown = single;
    if (address === undefined && Array.isArray(list)) {
      if (list.length !== 1) return undefined; // bare multisig: no one address is paid
      address = list[0];
    }
    if (address === undefined) return undefined;
    if (typeof address !== 'string' || address.length === 0 || address.length > 100) throw this.garbage(`output ${where} has a malformed address`);
    return address;
  }

  /** A coin amount as the node wrote it (8 decimals at most, not negative). */
  private coins(value: unknown, where: string): Decimal {
    if (!isLosslessNumber(value)) throw this.garbage(`${where} has no numeric value`);
    let amount: Decimal;
    try {
      amount = parseDecimal(value.value);
    } catch {
      throw this.garbage(`${where} has a malformed value`);
    }
    if (decimalPlaces(amount) > 8 || (compare(amount, ZERO) !== 0 && !isPositive(amount))) throw this.garbage(`${where} has value ${value.value}`);
    return amount;
  }

  private async call(method: string, params: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    const answer = this.answer(await this.post(JSON.stringify({ jsonrpc: '1.0', id, method, params }), method), method);
    if (Array.isArray(answer)) throw this.garbage(`${method} answered a batch`);
    if (answer.error) {
      const code = isLosslessNumber(answer.error.code) ? Number(answer.error.code.value) : answer.error.code;
      throw this.garbage(`${method}: RPC error ${String(code)} ${String(answer.error.message)}${code === WARMING_UP ? ' (node warming up)' : ''}`);
    }
    if (answer.id !== undefined && !(isLosslessNumber(answer.id) && Number(answer.id.value) === id)) throw this.garbage(`${method} answered another request's id`);
    return answer.result;
  }

  private async batch(requests: { method: string; params: unknown[] }[]): Promise<RpcAnswer[]> {
    const first = this.nextId;
    this.nextId += requests.length;
    const body = JSON.stringify(requests.map((request, i) => ({ jsonrpc: '1.0', id: first + i, ...request })));
    const answers = this.answer(await this.post(body, requests[0]?.method ?? 'batch'), 'batch');
    if (!Array.isArray(answers) || answers.length !== requests.length) throw this.garbage('a batch answer does not match its requests');
    // Batch answers may come in any order: put them back in the requests' order by id.
    const byId = new Map(answers.map((answer) => [isLosslessNumber(answer.id) ? Number(answer.id.value) : NaN, answer]));
    return requests.map((_, i) => {
      const answer = byId.get(first + i);
      if (!answer) throw this.garbage(`the batch answer lacks request ${first + i}`);
      return answer;
    });
  }

  private async post(body: string, what: string): Promise<string> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.authorization) headers.authorization = this.authorization;
    // Legacy JSON-RPC answers RPC errors with HTTP 500 and the error in the body: read it, do not retry it.
    const answer = await requestText(this.chain, this.endpoint, { method: 'POST', headers, body }, this.http, (status, text) => status === 500 && text.includes('"error"'));
    if (answer.status === 401 || answer.status === 403) throw this.garbage(`${what}: the node refused the credentials (HTTP ${answer.status})`);
    if (answer.status !== 200 && answer.status !== 500 && answer.status !== 404) throw this.garbage(`${what}: HTTP ${answer.status}`);
    return answer.body;
  }

  private answer(text: string, what: string): RpcAnswer | RpcAnswer[] {
    let parsed: unknown;
    try {
      parsed = parse(text);
    } catch {
      throw this.garbage(`${what} is not JSON`);
    }
    if (Array.isArray(parsed)) return parsed.map((entry) => this.object(entry, what) as RpcAnswer);
    return this.object(parsed, what) as RpcAnswer;
  }

  private object(value: unknown, what: string): Json {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || isLosslessNumber(value)) throw this.garbage(`${what} is not an object`);
    return value as Json;
  }

  private count(value: unknown, what: string): number {
    const number = isLosslessNumber(value) ? Number(value.value) : NaN;
    if (!Number.isSafeInteger(number) || number < 0 || !/^\d+$/.test(isLosslessNumber(value) ? value.value : '')) throw this.garbage(`${what} is not a count`);
    return number;
  }

  private hash(value: unknown, what: string): string {
    if (typeof value !== 'string' || !HASH.test(value)) throw this.garbage(`${what} is not a 64-digit hex hash`);
    return value;
  }

  private garbage(message: string): SourceError {
    return new SourceError(`${this.chain} RPC`, message);
  }
}
