import { currency as currencyInfo } from '#shared/domain/currencies';
import type { EvmNetworkConfig } from '#shared/chains/evm';
import { fromMinorUnits } from '#shared/domain/money';
import { SourceError, WrongChainError } from '#shared/core/source-error';
import { type Block, type BlockRef, type BlockSource, type SourceHealthNote, type Transfer, type TransferFilter } from '#shared/watchers/sources/port';
import {
  address,
  data,
  DECIMALS_SELECTOR,
  fixedData,
  quantity,
  smallQuantity,
  toQuantity,
  topicAddress,
  TRANSFER_TOPIC,
  word,
} from '#shared/watchers/sources/ethereum/codec';
import { JsonRpcClient, JsonRpcError, type JsonRpcOptions, type RpcCall } from '#shared/watchers/sources/json-rpc';

/** An ERC-20 token the service is paid in: its pay currency and its contract. */
export interface TokenContract {
  /** USDT_ERC20, USDC_ERC20. */
  currency: string;
  /** The contract address (any case). */
  contract: string;
}

export interface EthereumSourceOptions extends JsonRpcOptions {
  /** The watcher's chain (ETH, ARBITRUM, BASE, ...): its cursor's name. Default ETH. */
  chain?: string;
  /** The chain the node must be on (eth_chainId): 1 for mainnet. A node on another chain is refused. */
  chainId: number;
  /**
   * The pay currency of the network's own coin (ETH, ETH_ARB, ETH_BASE), default ETH on ETH;
   * none: the coin is not a pay currency there (Polygon, BNB Smart Chain, Celo) and only the
   * tokens' logs are read.
   */
  native?: string;
  tokens: readonly TokenContract[];
  /** Receipts (and block headers) asked for in one JSON-RPC batch. Default 100. */
  batchSize?: number;
  /**
   * Blocks one range read covers at most ({@link EthereumBlockSource.blocks}: the `eth_getLogs`
   * range). Default {@link DEFAULT_BLOCK_RANGE}; a provider that refuses a range makes the
   * source halve it, so a plan's lower cap costs a refused call now and then (see RANGE_REGROW_READS).
   */
  blockRange?: number;
  /** Full blocks (with their transactions) asked for in one JSON-RPC batch. Default 20 (an Ethereum block is up to a few MB). */
  blocksPerBatch?: number;
}

/**
 * The default range: above what one 10 s step of the fastest network needs (Arbitrum's 40
 * blocks), within paid plans' caps (QuickNode 10,000 blocks, Infura 10,000 logs: about 100
 * blocks of mainnet USDT and USDC); free plans' lower caps (QuickNode's 5) are learned or set.
 */
export const DEFAULT_BLOCK_RANGE = 100;

const WEI_DECIMALS = 18;
/**
 * Full-length reads at a halved range after which the source tries it doubled (up to the
 * configured one): a refusal may be passing (a provider's node behind the tip refusing a range
 * past its head, a burst of logs over a results cap), and a range kept small for good would
 * cost requests for good. Against a real cap, one refused call in this many reads.
 */
const RANGE_REGROW_READS = 32;
/** How long a token whose contract did not answer is left out before it is asked again. */
const TOKEN_RETRY_MS = 60_000;

interface Token {
  currency: string;
  /** Lowercase, as logs carry it. */
  contract: string;
  decimals: number;
}

interface RawTransaction {
  hash: string;
  to: string | undefined;
  value: bigint;
}

/** A block's header fields the watcher needs. */
interface Header {
  height: number;
  hash: string;
  parentHash: string;
  timestamp: number;
}

/** An ERC-20 Transfer log of a watched contract, checked field by field. */
interface TokenLog {
  txHash: string;
  logIndex: number;
  blockHash: string | undefined;
  blockNumber: number | undefined;
  removed: boolean;
  token: Token;
  to: string;
  units: bigint;
  where: string;
}

/**
 * The chain changed while a range was read: a log, a receipt or a block of another branch than
 * the headers read (a reorganisation under way, or a provider's nodes out of step). The range is
 * read again once; a second time it fails the step, which the next step retries.
 */
class RangeChangedError extends SourceError {}

/**
 * Ethereum (and its ERC-20 tokens) read over the standard JSON-RPC API, block by block:
 *
 * - native ETH: the block's transactions (`eth_getBlockByNumber(n, true)`) that send value to
 *   an address; each one's receipt (`eth_getTransactionReceipt`, in one batch) must say it
 *   succeeded, since a reverted transaction moves no ether. Key: the transaction hash.
 * - tokens: the block's ERC-20 `Transfer` logs of the configured contracts
 *   (`eth_getLogs` by the block's hash, so logs and block are the same block even while the
 *   chain reorganises). Logs exist only for successful transactions. Key: `txhash:logIndex`.
 * - mempool: the node's pending block (`eth_getBlockByNumber("pending", true)`), native
 *   transfers only: a token payment's key needs its log index, which only a block gives it,
 *   so tokens are first seen in their block. A node without a pending view gives none.
 *
 * Range reads ({@link EthereumBlockSource.blocks}, what the watcher uses): the blocks of a range
 * (full where the coin is paid in, else their headers) and one `eth_getLogs` over the range in
 * one JSON-RPC batch (split in batches of `blocksPerBatch`), every log tied to the header read
 * for its number; then the watcher's open-address list keeps the transfers that may pay an
 * invoice, and only those native ones have their receipt read. So a step costs a few requests
 * whatever the blocks' traffic, and the receipts grow with payments to us, not with the chain.
 *
 * Ether moved by contracts (internal transfers) and validator withdrawals are not
 * transactions and are not seen: invoices ask for a plain transfer.
 *
 * Amounts are exact: wei and token units over 10^decimals, the decimals read from each
 * contract (`decimals()`) on first use, up to 18 (BNB Smart Chain's USDT, Celo's cUSD). A token
 * whose decimals are not those the service books its currency in is refused: its payment URIs
 * would name amounts a factor of ten off, and finer units would have to be rounded. Every answer is checked field by field; any
 * deviation is a {@link SourceError}.
 */
export class EthereumBlockSource implements BlockSource {
  readonly chain: string;
  /** The coin's pay currency, or undefined where the coin is not paid in. */
  private readonly coin: string | undefined;
  private readonly rpc: JsonRpcClient;
  private readonly batchSize: number;
  private tokensReady: Promise<Token[]> | undefined;
  /** Tokens whose contract could not be read, with why; asked again after TOKEN_RETRY_MS. */
  private readonly failingTokens = new Map<string, string>();
  private tokensReadAt = 0;
  private chainOk: boolean | undefined;
  private pendingUnsupported = false;
  /** Blocks a range read covers now: the configured range, halved each time the provider refused one. */
  private rangeCap: number;
  private readonly rangeLimit: number;
  /** Full-length reads since the range was last halved or doubled. */
  private readsAtCap = 0;
  private readonly blocksPerBatch: number;

  constructor(private readonly options: EthereumSourceOptions) {
    this.rpc = new JsonRpcClient({ ...options, label: options.label ?? 'eth-rpc' });
    this.chain = options.chain ?? 'ETH';
    this.coin = options.native ?? (this.chain === 'ETH' ? 'ETH' : undefined);
    this.batchSize = options.batchSize ?? 100;
    this.rangeLimit = this.rangeCap = options.blockRange ?? DEFAULT_BLOCK_RANGE;
    this.blocksPerBatch = options.blocksPerBatch ?? 20;
    if (!Number.isInteger(this.rangeCap) || this.rangeCap < 1) throw new RangeError(`blockRange must be a positive integer, got ${this.rangeCap}`);
    for (const token of options.tokens) {
      if (!fixedData(token.contract, 20)) throw new RangeError(`${token.currency} contract is not an address: ${token.contract}`);
    }
  }

  async tip(): Promise<BlockRef> {
    // The chain check and the tokens' decimals come first (read once): a node on another chain
    // is known at the first look, not at the first block with a payment.
    await this.tokens();
    const header = await this.header('latest');
    if (!header) throw this.error('node has no latest block');
    // Its time tells a node that stopped following the chain (chains/tip-age.ts).
    return { height: header.height, hash: header.hash, time: new Date(header.timestamp * 1000) };
  }

  async blockHash(height: number): Promise<string> {
    const header = await this.header(toQuantity(height));
    if (!header) throw this.error(`no block at height ${height}`);
    if (header.height !== height) throw this.error(`asked for block ${height}, got ${header.height}`);
    return header.hash;
  }

  async block(height: number): Promise<Block> {
    const tokens = await this.tokens();
    const raw = await this.rpc.call('eth_getBlockByNumber', [toQuantity(height), true]);
    if (raw === null) throw this.error(`no block at height ${height}`);
    const header = this.readHeader(raw);
    if (header.height !== height) throw this.error(`asked for block ${height}, got ${header.height}`);
    const ref: BlockRef = { height, hash: header.hash };
    const transactions = this.readTransactions(raw, header.hash);
    const paying = this.coin === undefined ? [] : transactions.filter((tx) => tx.to !== undefined && tx.value > 0n);

    // One round trip for the logs and the receipts (more for blocks with many paying transactions).
    const calls: RpcCall[] = paying.map((tx) => ({ method: 'eth_getTransactionReceipt', params: [tx.hash] }));
    if (tokens.length > 0) {
      calls.unshift({
        method: 'eth_getLogs',
        params: [{ blockHash: header.hash, address: tokens.map((t) => t.contract), topics: [TRANSFER_TOPIC] }],
      });
    }
    const results: unknown[] = [];
    for (let start = 0; start < calls.length; start += this.batchSize) {
      results.push(...(await this.rpc.batch(calls.slice(start, start + this.batchSize))));
    }
    const logs = tokens.length > 0 ? results.shift() : [];

    const transfers: Transfer[] = [];
    paying.forEach((tx, i) => {
      if (this.succeeded(results[i], tx.hash, header.hash)) {
        transfers.push(this.native(tx, ref));
      }
    });
    for (const log of this.tokenLogs(logs, tokens)) {
      if (log.removed || log.blockHash !== header.hash) throw this.error(`${log.where} is not in block ${header.hash}`);
      if (log.units !== 0n) transfers.push(this.tokenTransfer(log, ref));
    }
    return { ...ref, previousHash: header.parentHash, time: new Date(header.timestamp * 1000), transfers };
  }

  /**
   * The blocks from `from` up to at most `to` (the range cap): see the class's comment. A
   * provider refusing the `eth_getLogs` range (its cap on blocks or on results) makes the range
   * half as long (tried doubled again after {@link RANGE_REGROW_READS} reads); a range whose
   * parts disagree (a reorganisation while it was read) is read again once.
   */
  async blocks(from: number, to: number, listed: TransferFilter): Promise<Block[]> {
    if (!Number.isInteger(from) || !Number.isInteger(to) || to < from) throw new RangeError(`no blocks from ${from} to ${to}`);
    const tokens = await this.tokens();
    let reread = false;
    for (;;) {
      const last = Math.min(to, from + this.rangeCap - 1);
      try {
        const blocks = await this.readRange(from, last, tokens, listed);
        if (last - from + 1 === this.rangeCap && this.rangeCap < this.rangeLimit && ++this.readsAtCap >= RANGE_REGROW_READS) {
          this.rangeCap = Math.min(this.rangeLimit, this.rangeCap * 2);
          this.readsAtCap = 0;
        }
        return blocks;
      } catch (error) {
        if (error instanceof JsonRpcError && error.method === 'eth_getLogs' && last > from) {
          this.rangeCap = Math.max(1, Math.floor((last - from + 1) / 2));
          this.readsAtCap = 0;
          continue;
        }
        if (error instanceof RangeChangedError && !reread) {
          reread = true;
          continue;
        }
        throw error;
      }
    }
  }

  /** One range read: the blocks and the logs in one batch, the candidates filtered, the kept native ones' receipts. */
  private async readRange(from: number, last: number, tokens: readonly Token[], listed: TransferFilter): Promise<Block[]> {
    const full = this.coin !== undefined;
    const blockCalls: RpcCall[] = [];
    for (let height = from; height <= last; height += 1) blockCalls.push({ method: 'eth_getBlockByNumber', params: [toQuantity(height), full] });
    const logsCall: RpcCall[] =
      tokens.length === 0
        ? []
        : [
            {
              method: 'eth_getLogs',
              params: [{ fromBlock: toQuantity(from), toBlock: toQuantity(last), address: tokens.map((t) => t.contract), topics: [TRANSFER_TOPIC] }],
            },
          ];
    // The logs ride with the first blocks: one request for a step's range on most networks.
    const perBatch = full ? this.blocksPerBatch : this.batchSize;
    const answers: unknown[] = [];
    for (let start = 0; start < blockCalls.length; start += perBatch) {
      answers.push(...(await this.rpc.batch([...(start === 0 ? logsCall : []), ...blockCalls.slice(start, start + perBatch)])));
    }
    const rawLogs = logsCall.length > 0 ? answers.shift() : [];

    const headers: Header[] = [];
    const natives: Transfer[] = [];
    for (const [i, raw] of answers.entries()) {
      const height = from + i;
      // A node behind the one that gave the tip (a provider's nodes out of step): the range ends before.
      if (raw === null) {
        if (i === 0) throw this.error(`no block at height ${height}`);
        break;
      }
      const header = this.readHeader(raw);
      if (header.height !== height) throw this.error(`asked for block ${height}, got ${header.height}`);
      if (i > 0 && header.parentHash !== headers[i - 1]!.hash) throw this.changed(`block ${height} does not follow block ${height - 1}`);
      headers.push(header);
      if (!full) continue;
      const ref = { height, hash: header.hash };
      for (const tx of this.readTransactions(raw, header.hash)) if (tx.to !== undefined && tx.value > 0n) natives.push(this.native(tx, ref));
    }
    const end = from + headers.length - 1;
    const tokenTransfers: Transfer[] = [];
    for (const log of this.tokenLogs(rawLogs, tokens)) {
      if (log.blockNumber === undefined) throw this.error(`${log.where} has no valid blockNumber`);
      if (log.blockNumber < from || log.blockNumber > last) throw this.error(`${log.where} is in block ${log.blockNumber}, outside ${from}-${last}`);
      if (log.blockNumber > end) continue; // in a block this read does not return: read with it next time
      const header = headers[log.blockNumber - from]!;
      if (log.removed || log.blockHash !== header.hash) throw this.changed(`${log.where} is not in block ${header.hash}`);
      if (log.units !== 0n) tokenTransfers.push(this.tokenTransfer(log, { height: header.height, hash: header.hash }));
    }

    // Only now, with the blocks read, the open-address list; then receipts only for the kept native payments.
    const kept = new Set(await listed([...natives, ...tokenTransfers]));
    const paying = natives.filter((transfer) => kept.has(transfer));
    const receipts: unknown[] = [];
    for (let start = 0; start < paying.length; start += this.batchSize) {
      receipts.push(
        ...(await this.rpc.batch(paying.slice(start, start + this.batchSize).map((transfer) => ({ method: 'eth_getTransactionReceipt', params: [transfer.txid] })))),
      );
    }
    const succeeded = new Set(paying.filter((transfer, i) => this.succeeded(receipts[i], transfer.txid, transfer.block!.hash, true)));
    return headers.map((header) => ({
      height: header.height,
      hash: header.hash,
      previousHash: header.parentHash,
      time: new Date(header.timestamp * 1000),
      transfers: [
        ...natives.filter((transfer) => succeeded.has(transfer) && transfer.block!.height === header.height),
        ...tokenTransfers.filter((transfer) => kept.has(transfer) && transfer.block!.height === header.height),
      ],
    }));
  }

  async mempool(known: ReadonlySet<string>): Promise<Transfer[]> {
    if (this.pendingUnsupported || this.coin === undefined) return [];
    let raw: unknown;
    try {
      raw = await this.rpc.call('eth_getBlockByNumber', ['pending', true]);
    } catch (error) {
      // The node refused the call itself (no pending view): no mempool, blocks still work.
      if (!(error instanceof JsonRpcError)) throw error;
      this.pendingUnsupported = true;
      return [];
    }
    if (raw === null) return [];
    const transactions = this.readTransactions(raw, undefined);
    return transactions
      .filter((tx) => tx.to !== undefined && tx.value > 0n && !known.has(tx.hash))
      .map((tx) => this.native(tx, undefined));
  }

  health(): SourceHealthNote {
    return { chainOk: this.chainOk, currencyErrors: Object.fromEntries(this.failingTokens) };
  }

  /**
   * The configured tokens that answer, with their decimals, read once; a token whose contract
   * does not answer (a node of another network without it) is left out, and asked again a
   * minute later, while ETH and the other tokens go on. A node on another chain stops it all.
   */
  private tokens(): Promise<Token[]> {
    if (this.tokensReady && this.failingTokens.size > 0 && Date.now() - this.tokensReadAt > TOKEN_RETRY_MS) this.tokensReady = undefined;
    this.tokensReady ??= this.readTokens().catch((error: unknown) => {
      this.tokensReady = undefined;
      throw error;
    });
    return this.tokensReady;
  }

  private async readTokens(): Promise<Token[]> {
    this.tokensReadAt = Date.now();
    const [chainId, ...answers] = await this.rpc.batch([
      { method: 'eth_chainId', params: [] },
      ...this.options.tokens.map((token) => ({
        method: 'eth_call',
        params: [{ to: token.contract, data: DECIMALS_SELECTOR }, 'latest'],
      })),
    ]);
    if (smallQuantity(chainId) !== this.options.chainId) {
      this.chainOk = false;
      throw new WrongChainError(this.rpc.source, `node is on chain ${String(chainId)}, expected ${this.options.chainId}`);
    }
    this.chainOk = true;
    const tokens: Token[] = [];
    this.options.tokens.forEach((token, i) => {
      const answer = answers[i];
      const value = typeof answer === 'string' ? word(answer.toLowerCase()) : undefined;
      const decimals = Number(value);
      const books = currencyInfo(token.currency).precision;
      if (value === undefined || value > 255n) {
        this.failingTokens.set(token.currency, `${token.currency} contract ${token.contract} answered decimals() with ${JSON.stringify(answer).slice(0, 80)}`);
      } else if (decimals !== books) {
        // Exactly the currency's: its payment URIs name amounts in units of that many decimals.
        this.failingTokens.set(token.currency, `${token.currency} contract has ${decimals} decimals; ${token.currency} amounts are booked to ${books}`);
      } else {
        this.failingTokens.delete(token.currency);
        tokens.push({ currency: token.currency, contract: token.contract.toLowerCase(), decimals });
      }
    });
    return tokens;
  }

  private async header(tag: string) {
    const raw = await this.rpc.call('eth_getBlockByNumber', [tag, false]);
    return raw === null ? undefined : this.readHeader(raw);
  }

  private readHeader(raw: unknown): Header {
    if (!raw || typeof raw !== 'object') throw this.error('block is not an object');
    const block = raw as Record<string, unknown>;
    const height = smallQuantity(block.number);
    const hash = fixedData(block.hash, 32);
    const parentHash = fixedData(block.parentHash, 32);
    const timestamp = smallQuantity(block.timestamp);
    if (height === undefined) throw this.error('block has no valid number');
    if (hash === undefined || parentHash === undefined) throw this.error(`block ${height} has no valid hash or parentHash`);
    if (timestamp === undefined) throw this.error(`block ${height} has no valid timestamp`);
    return { height, hash, parentHash, timestamp };
  }

  /** The block's transactions; `blockHash` given: each must say it is in that block. */
  private readTransactions(raw: unknown, blockHash: string | undefined): RawTransaction[] {
    const list = (raw as { transactions?: unknown }).transactions;
    if (!Array.isArray(list)) throw this.error('block has no transactions array');
    return list.map((item: unknown) => {
      if (!item || typeof item !== 'object') throw this.error('block transactions are not objects');
      const tx = item as Record<string, unknown>;
      const hash = fixedData(tx.hash, 32);
      const value = quantity(tx.value);
      const to = tx.to === null || tx.to === undefined ? undefined : address(tx.to);
      if (hash === undefined || value === undefined || (tx.to !== null && tx.to !== undefined && to === undefined)) {
        throw this.error(`transaction ${String(tx.hash)} has no valid hash, value or to`);
      }
      if (blockHash !== undefined && fixedData(tx.blockHash, 32) !== blockHash) {
        throw this.error(`transaction ${hash} is not in block ${blockHash}`);
      }
      return { hash, to, value };
    });
  }

  /** A receipt of the block being read that says the transaction succeeded (status 1); `ranged`: a change is a {@link RangeChangedError}. */
  private succeeded(raw: unknown, txHash: string, blockHash: string, ranged = false): boolean {
    // No receipt, or one in another block: the block left the chain while it was being read.
    const changed = (message: string) => (ranged ? this.changed(message) : this.error(message));
    if (raw === null) throw changed(`no receipt for ${txHash}: the block changed while it was read`);
    if (!raw || typeof raw !== 'object') throw this.error(`receipt of ${txHash} is not an object`);
    const receipt = raw as Record<string, unknown>;
    if (fixedData(receipt.transactionHash, 32) !== txHash) throw this.error(`receipt is not of ${txHash}`);
    if (fixedData(receipt.blockHash, 32) !== blockHash) {
      throw changed(`receipt of ${txHash} is in another block: the block changed while it was read`);
    }
    const status = quantity(receipt.status);
    if (status !== 0n && status !== 1n) throw this.error(`receipt of ${txHash} has no valid status`);
    return status === 1n;
  }

  private native(tx: RawTransaction, block: BlockRef | undefined): Transfer {
    return {
      key: tx.hash,
      txid: tx.hash,
      currency: this.coin!,
      address: tx.to!,
      amount: fromMinorUnits(tx.value, WEI_DECIMALS),
      ...(block ? { block } : {}),
    };
  }

  /**
   * One transaction's transfers (a merchant's reported refund, refund-check.ts): the
   * transaction and its receipt in one batch (`eth_getTransactionByHash`,
   * `eth_getTransactionReceipt`). Mined: the receipt must say it succeeded (else none), its block
   * must be the best chain's at its height, and its transfers are the native value and the
   * receipt's Transfer logs of the configured tokens, as a block read gives them. Pending: its
   * native value only, without a block. Undefined when the node does not know the hash.
   */
  async transaction(txid: string): Promise<Transfer[] | undefined> {
    const hash = fixedData(txid, 32);
    if (hash === undefined) return undefined;
    const tokens = await this.tokens();
    const [rawTx, rawReceipt] = await this.rpc.batch([
      { method: 'eth_getTransactionByHash', params: [hash] },
      { method: 'eth_getTransactionReceipt', params: [hash] },
    ]);
    if (rawTx === null) return undefined;
    const [tx] = this.readTransactions({ transactions: [rawTx] }, undefined);
    if (tx!.hash !== hash) throw this.error(`eth_getTransactionByHash ${hash} answered ${tx!.hash}`);
    const paysCoin = this.coin !== undefined && tx!.to !== undefined && tx!.value > 0n;
    if (rawReceipt === null) return paysCoin ? [this.native(tx!, undefined)] : [];
    const receipt = (rawReceipt ?? {}) as Record<string, unknown>;
    const blockHash = fixedData(receipt.blockHash, 32);
    const height = smallQuantity(receipt.blockNumber);
    if (blockHash === undefined || height === undefined) throw this.error(`receipt of ${hash} has no valid blockHash or blockNumber`);
    if (!this.succeeded(rawReceipt, hash, blockHash)) return [];
    // A receipt of a block the chain left: not paid there (the node may still know it).
    if ((await this.blockHash(height)) !== blockHash) return [];
    const block: BlockRef = { height, hash: blockHash };
    const transfers: Transfer[] = paysCoin ? [this.native(tx!, block)] : [];
    if (!Array.isArray(receipt.logs)) throw this.error(`receipt of ${hash} has no logs list`);
    const contracts = new Set(tokens.map((token) => token.contract));
    const ours = receipt.logs.filter((log: unknown) => {
      const entry = (log ?? {}) as { address?: unknown; topics?: unknown };
      const contract = fixedData(entry.address, 20);
      return contract !== undefined && contracts.has(contract) && Array.isArray(entry.topics) && fixedData(entry.topics[0], 32) === TRANSFER_TOPIC;
    });
    for (const log of this.tokenLogs(ours, tokens)) {
      if (log.txHash !== hash || log.blockHash !== blockHash) throw this.error(`${log.where} is not of ${hash} in block ${blockHash}`);
      if (log.units !== 0n) transfers.push(this.tokenTransfer(log, block));
    }
    return transfers;
  }

  /** The Transfer logs of an `eth_getLogs` answer for the watched contracts, each checked; where they are is the caller's to check. */
  private tokenLogs(raw: unknown, tokens: readonly Token[]): TokenLog[] {
    if (!Array.isArray(raw)) throw this.error('eth_getLogs did not answer a list');
    const byContract = new Map(tokens.map((token) => [token.contract, token]));
    return raw.map((item: unknown) => {
      if (!item || typeof item !== 'object') throw this.error('log is not an object');
      const log = item as Record<string, unknown>;
      const txHash = fixedData(log.transactionHash, 32);
      const logIndex = smallQuantity(log.logIndex);
      const contract = fixedData(log.address, 20);
      const topics = Array.isArray(log.topics) ? log.topics.map((topic) => fixedData(topic, 32)) : [];
      const payload = data(log.data);
      const where = `log ${String(log.transactionHash)}:${String(log.logIndex)}`;
      if (txHash === undefined || logIndex === undefined || contract === undefined || payload === undefined) {
        throw this.error(`${where} has no valid transactionHash, logIndex, address or data`);
      }
      const token = byContract.get(contract);
      if (!token || topics[0] !== TRANSFER_TOPIC) throw this.error(`${where} does not match the filter asked for`);
      // ERC-20: Transfer(address indexed from, address indexed to, uint256 value).
      const to = topics.length === 3 && topics[2] !== undefined ? topicAddress(topics[2]) : undefined;
      const units = word(payload);
      if (to === undefined || units === undefined) throw this.error(`${where} is not an ERC-20 Transfer`);
      const blockNumber = smallQuantity(log.blockNumber);
      return { txHash, logIndex, blockHash: fixedData(log.blockHash, 32), blockNumber, removed: log.removed === true, token, to, units, where };
    });
  }

  private tokenTransfer(log: TokenLog, block: BlockRef): Transfer {
    return {
      key: `${log.txHash}:${log.logIndex}`,
      txid: log.txHash,
      currency: log.token.currency,
      address: log.to,
      amount: fromMinorUnits(log.units, log.token.decimals),
      block,
    };
  }

  private changed(message: string): RangeChangedError {
    return new RangeChangedError(this.rpc.source, message);
  }

  private error(message: string): SourceError {
    return new SourceError(this.rpc.source, message);
  }
}

/** The watcher's source of one EVM network's node at `url`: its chain id, its coin and its tokens. */
export function ethereumSourceOptions(config: EvmNetworkConfig, url: string): EthereumSourceOptions {
  return {
    url,
    chain: config.chain,
    chainId: config.chainId,
    ...(config.native ? { native: config.native } : {}),
    ...(config.blockRange === undefined ? {} : { blockRange: config.blockRange }),
    tokens: Object.entries(config.contracts).map(([currency, contract]) => ({ currency, contract })),
  };
}
