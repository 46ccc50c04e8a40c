/**
 * BTC and LTC through the Esplora REST API (Blockstream/esplora API.md; served by
 * Blockstream's and mempool.space-style servers and self-hosted electrs/esplora). Amounts are
 * satoshis (integers); addresses come as `scriptpubkey_address`.
 *
 * - the chain: `GET /block-height/0` (the genesis) and, for BTC, the block after the BCH fork,
 *   once per process (chain-check.ts): a server for testnet or another coin is refused.
 * - tip: `GET /blocks/tip/hash`, then `GET /block/:hash` for its height and time (one consistent
 *   pair; the time tells a server that stopped following the chain, chains/tip-age.ts).
 * - a block: `GET /block-height/:height` -> hash, `GET /block/:hash` (height,
 *   previousblockhash, tx_count), then its transactions 25 at a time from
 *   `GET /block/:hash/txs/:start_index`, a few pages in parallel. Every answer is checked
 *   (hash and txid shapes, the page sizes adding up to tx_count) before anything is booked.
 * - the mempool: `GET /mempool/txids`, then `GET /tx/:txid` for ids not examined before, at
 *   most `mempoolLimit` per call (the rest next time).
 */
import { fromMinorUnits } from '#shared/domain/money';
import { DEFAULT_HTTP_POLICY, type HttpPolicy, requestText } from '#shared/watchers/sources/http';
import { SourceError } from '#shared/core/source-error';
import type { ChainIdentity } from '#shared/chains/identity';
import { MAINNET_IDENTITIES, type UtxoChainCode } from '#shared/chains/utxo';
import { type Block, type BlockRef, type BlockSource, type SourceHealthNote, type Transfer } from '#shared/watchers/sources/port';
import { ChainCheck } from '#shared/watchers/sources/chain-check';

export interface EsploraOptions {
  /** BTC or LTC. */
  chain: string;
  /** The API's base, e.g. https://blockstream.info/api (no trailing slash needed). */
  baseUrl: string;
  http?: HttpPolicy;
  /** Block pages (25 transactions each) fetched at once. */
  pageConcurrency?: number;
  /** New mempool transactions fetched per call at most. */
  mempoolLimit?: number;
  /** The chain the server must serve (its genesis, a block after a fork): mainnet's by default. */
  identity?: ChainIdentity;
}

/** Esplora's page size for /block/:hash/txs/:start_index. */
export const ESPLORA_PAGE = 25;

const HASH = /^[0-9a-f]{64}$/;

type Json = Record<string, unknown>;

export class EsploraSource implements BlockSource {
  readonly chain: string;
  private readonly base: string;
  private readonly http: HttpPolicy;
  private readonly pageConcurrency: number;
  private readonly mempoolLimit: number;
  private readonly check: ChainCheck;

  constructor(options: EsploraOptions) {
    this.chain = options.chain;
    this.base = options.baseUrl.replace(/\/+$/, '');
    this.http = options.http ?? DEFAULT_HTTP_POLICY;
    this.pageConcurrency = options.pageConcurrency ?? 4;
    this.mempoolLimit = options.mempoolLimit ?? 500;
    const identity = options.identity ?? MAINNET_IDENTITIES[options.chain as UtxoChainCode];
    if (!identity) throw new Error(`Esplora: no chain identity for ${options.chain}`);
    this.check = new ChainCheck(`${this.chain} Esplora`, identity);
  }

  /** Every step starts here: the chain check first (once passed, for good). */
  async tip(): Promise<BlockRef> {
    await this.check.ensure((height) => this.hashAt(height));
    const hash = this.hash(await this.text('/blocks/tip/hash'), 'tip hash');
    const header = await this.header(hash);
    // The header read for the height has the time: how old the server's view is, for nothing more.
    return { height: header.height, hash, time: header.time };
  }

  async blockHash(height: number): Promise<string> {
    return this.hash(await this.text(`/block-height/${height}`), `hash of block ${height}`);
  }

  health(): SourceHealthNote {
    return { chainOk: this.check.chainOk, currencyErrors: {} };
  }

  /** The hash at `height`, undefined where the server has no block (404: not that far yet). */
  private async hashAt(height: number): Promise<string | undefined> {
    const answer = await requestText(this.chain, `${this.base}/block-height/${height}`, {}, this.http);
    if (answer.status === 404) return undefined;
    if (answer.status !== 200) throw this.garbage(`/block-height/${height}: HTTP ${answer.status}`);
    return this.hash(answer.body.trim(), `hash of block ${height}`);
  }

  async block(height: number): Promise<Block> {
    const hash = await this.blockHash(height);
    const header = await this.header(hash);
    if (header.height !== height) throw this.garbage(`block ${hash} says height ${header.height}, asked for ${height}`);
    const starts: number[] = [];
    for (let start = 0; start < header.txCount; start += ESPLORA_PAGE) starts.push(start);
    const pages = await mapLimited(starts, this.pageConcurrency, (start) => this.page(hash, start, header.txCount));
    const ref = { height, hash };
    const transfers: Transfer[] = [];
    const txids = new Set<string>();
    for (const tx of pages.flat()) {
      const parsed = this.transaction(tx, ref);
      if (txids.has(parsed.txid)) throw this.garbage(`block ${hash} lists ${parsed.txid} twice`);
      txids.add(parsed.txid);
      transfers.push(...parsed.transfers);
    }
    return { height, hash, previousHash: header.previousHash, time: header.time, transfers };
  }

  async mempool(known: ReadonlySet<string>): Promise<Transfer[]> {
    const ids = this.json(await this.text('/mempool/txids'), '/mempool/txids');
    if (!Array.isArray(ids)) throw this.garbage('/mempool/txids is not an array');
    const fresh = ids.filter((id): id is string => typeof id === 'string' && HASH.test(id) && !known.has(id)).slice(0, this.mempoolLimit);
    const found = await mapLimited(fresh, this.pageConcurrency, async (txid) => {
      const answer = await requestText(this.chain, `${this.base}/tx/${txid}`, {}, this.http);
      // Mined or evicted since the list was made: the block scan (or nobody) has it now.
      if (answer.status === 404) return [];
      if (answer.status !== 200) throw this.garbage(`/tx/${txid}: HTTP ${answer.status}`);
      const tx = this.json(answer.body, `/tx/${txid}`) as Json;
      const status = tx.status as Json | undefined;
      if (status?.confirmed === true) return [];
      const parsed = this.transaction(tx, undefined);
      if (parsed.txid !== txid) throw this.garbage(`/tx/${txid} answered ${parsed.txid}`);
      return parsed.transfers;
    });
    return found.flat();
  }

  private async header(hash: string): Promise<{ height: number; previousHash: string; time: Date; txCount: number }> {
    const block = this.json(await this.text(`/block/${hash}`), `/block/${hash}`) as Json;
    if (block.id !== hash) throw this.garbage(`/block/${hash} answered block ${String(block.id)}`);
    const height = block.height;
    const txCount = block.tx_count;
    const timestamp = block.timestamp;
    if (!isCount(height) || !isCount(txCount) || txCount < 1 || !isCount(timestamp)) throw this.garbage(`/block/${hash} lacks height, tx_count or timestamp`);
    // The genesis block has none; every other block names its parent.
    const previous = block.previousblockhash;
    const previousHash = previous === null || previous === undefined ? '' : this.hash(previous, `parent of ${hash}`);
    return { height, previousHash, time: new Date(timestamp * 1000), txCount };
  }

  private async page(hash: string, start: number, txCount: number): Promise<Json[]> {
    const path = `/block/${hash}/txs/${start}`;
    const page = this.json(await this.text(path), path);
    const expected = Math.min(ESPLORA_PAGE, txCount - start);
    if (!Array.isArray(page) || page.length !== expected) throw this.garbage(`${path} has ${Array.isArray(page) ? page.length : 'no'} transactions, expected ${expected}`);
    return page as Json[];
  }

  /** One transaction's outputs that pay an address, as transfers (in `block` when confirmed). */
  private transaction(tx: Json, block: BlockRef | undefined): { txid: string; transfers: Transfer[] } {
    const txid = this.hash(tx.txid, 'txid');
    if (!Array.isArray(tx.vout)) throw this.garbage(`transaction ${txid} has no vout list`);
    const transfers: Transfer[] = [];
    tx.vout.forEach((output: Json, vout) => {
      const value = output?.value;
      if (!isCount(value)) throw this.garbage(`output ${txid}:${vout} has no satoshi value`);
      const address = output.scriptpubkey_address;
      // OP_RETURN, bare multisig and other scripts without an address pay no invoice.
      if (address === undefined || address === null) return;
      if (typeof address !== 'string' || address.length === 0 || address.length > 100) throw this.garbage(`output ${txid}:${vout} has a malformed address`);
      transfers.push({
        key: `${txid}:${vout}`,
        txid,
        currency: this.chain,
        address,
        amount: fromMinorUnits(BigInt(value), 8),
        ...(block ? { block } : {}),
      });
    });
    return { txid, transfers };
  }

  private async text(path: string): Promise<string> {
    const answer = await requestText(this.chain, `${this.base}${path}`, {}, this.http);
    if (answer.status !== 200) throw this.garbage(`${path}: HTTP ${answer.status}`);
    return answer.body.trim();
  }

  private json(text: string, what: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      throw this.garbage(`${what} is not JSON`);
    }
  }

  private hash(value: unknown, what: string): string {
    if (typeof value !== 'string' || !HASH.test(value)) throw this.garbage(`${what} is not a 64-digit hex hash`);
    return value;
  }

  private garbage(message: string): SourceError {
    return new SourceError(`${this.chain} Esplora`, message);
  }
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** `fn` over `items`, at most `limit` at a time, results in order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
