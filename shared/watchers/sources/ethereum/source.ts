import type { EvmNetworkConfig } from '#shared/chains/evm';
import { SourceError } from '#shared/core/source-error';
import { headerTime, nativeTransfer, type RawTransaction, readHeader, readTransactions, sendsValue } from '#shared/watchers/sources/ethereum/blocks';
import { fixedData, smallQuantity, toQuantity } from '#shared/watchers/sources/ethereum/codec';
import { RangeReads } from '#shared/watchers/sources/ethereum/ranges';
import { callInBatches, receiptCall, receiptSucceeded } from '#shared/watchers/sources/ethereum/receipts';
import { type TokenContract, TokenContracts } from '#shared/watchers/sources/ethereum/tokens';
import { tokenLogs, tokensTransferLogs, tokenTransfer, transferLogsCall } from '#shared/watchers/sources/ethereum/transfer-logs';
import { JsonRpcClient, JsonRpcError, type JsonRpcOptions, type RpcCall } from '#shared/watchers/sources/json-rpc';
import type { Block, BlockRef, BlockSource, SourceHealthNote, Transfer, TransferFilter } from '#shared/watchers/sources/port';

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
   * source halve it, so a plan's lower cap costs a refused call now and then (ranges.ts).
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
 * Range reads ({@link EthereumBlockSource.blocks}, what the watcher uses) are ranges.ts's: the
 * blocks of a range and one `eth_getLogs` over it in one batch, receipts only for the native
 * payments to open addresses, the range's length learned from the provider's refusals.
 *
 * Ether moved by contracts (internal transfers) and validator withdrawals are not
 * transactions and are not seen: invoices ask for a plain transfer.
 *
 * Amounts are exact: wei and token units over 10^decimals, the decimals read from each
 * contract (`decimals()`, tokens.ts) on first use, up to 18 (BNB Smart Chain's USDT, Celo's
 * cUSD). A token whose decimals are not those the service books its currency in is refused: its
 * payment URIs would name amounts a factor of ten off, and finer units would have to be rounded.
 * Every answer is checked field by field (blocks.ts, transfer-logs.ts, receipts.ts); any
 * deviation is a {@link SourceError}.
 */
export class EthereumBlockSource implements BlockSource {
  readonly chain: string;
  /** The coin's pay currency, or undefined where the coin is not paid in. */
  private readonly coin: string | undefined;
  private readonly rpc: JsonRpcClient;
  private readonly batchSize: number;
  private readonly tokens: TokenContracts;
  private readonly ranges: RangeReads;
  private pendingUnsupported = false;

  constructor(options: EthereumSourceOptions) {
    this.rpc = new JsonRpcClient({ ...options, label: options.label ?? 'eth-rpc' });
    this.chain = options.chain ?? 'ETH';
    this.coin = options.native ?? (this.chain === 'ETH' ? 'ETH' : undefined);
    this.batchSize = options.batchSize ?? 100;
    this.ranges = new RangeReads(this.rpc, {
      coin: this.coin,
      batchSize: this.batchSize,
      blocksPerBatch: options.blocksPerBatch ?? 20,
      blockRange: options.blockRange ?? DEFAULT_BLOCK_RANGE,
    });
    this.tokens = new TokenContracts(this.rpc, options.chainId, options.tokens);
  }

  async tip(): Promise<BlockRef> {
    // The chain check and the tokens' decimals come first (read once): a node on another chain
    // is known at the first look, not at the first block with a payment.
    await this.tokens.get();
    const header = await this.header('latest');
    if (!header) throw this.error('node has no latest block');
    // Its time tells a node that stopped following the chain (chains/tip-age.ts).
    return { height: header.height, hash: header.hash, time: headerTime(header) };
  }

  async blockHash(height: number): Promise<string> {
    const header = await this.header(toQuantity(height));
    if (!header) throw this.error(`no block at height ${height}`);
    if (header.height !== height) throw this.error(`asked for block ${height}, got ${header.height}`);
    return header.hash;
  }

  async block(height: number): Promise<Block> {
    const tokens = await this.tokens.get();
    const raw = await this.rpc.call('eth_getBlockByNumber', [toQuantity(height), true]);
    if (raw === null) throw this.error(`no block at height ${height}`);
    const header = readHeader(raw, this.rpc.source);
    if (header.height !== height) throw this.error(`asked for block ${height}, got ${header.height}`);
    const ref: BlockRef = { height, hash: header.hash };
    const transactions = readTransactions(raw, header.hash, this.rpc.source);
    const paying = this.coin === undefined ? [] : transactions.filter(sendsValue);

    // One round trip for the logs and the receipts (more for blocks with many paying transactions).
    const calls: RpcCall[] = paying.map((tx) => receiptCall(tx.hash));
    if (tokens.length > 0) calls.unshift(transferLogsCall(tokens, { blockHash: header.hash }));
    const results = await callInBatches(this.rpc, calls, this.batchSize);
    const logs = tokens.length > 0 ? results.shift() : [];

    const transfers: Transfer[] = [];
    paying.forEach((tx, i) => {
      if (receiptSucceeded(results[i], tx.hash, header.hash, this.rpc.source)) {
        transfers.push(this.native(tx, ref));
      }
    });
    for (const log of tokenLogs(logs, tokens, this.rpc.source)) {
      if (log.removed || log.blockHash !== header.hash) throw this.error(`${log.where} is not in block ${header.hash}`);
      if (log.units !== 0n) transfers.push(tokenTransfer(log, ref));
    }
    return { ...ref, previousHash: header.parentHash, time: headerTime(header), transfers };
  }

  /** The blocks from `from` up to at most `to` (the range cap): see ranges.ts. */
  async blocks(from: number, to: number, listed: TransferFilter): Promise<Block[]> {
    if (!Number.isInteger(from) || !Number.isInteger(to) || to < from) throw new RangeError(`no blocks from ${from} to ${to}`);
    const tokens = await this.tokens.get();
    return this.ranges.read(from, to, tokens, listed);
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
    const transactions = readTransactions(raw, undefined, this.rpc.source);
    return transactions.filter((tx) => sendsValue(tx) && !known.has(tx.hash)).map((tx) => this.native(tx, undefined));
  }

  health(): SourceHealthNote {
    return this.tokens.health();
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
    const tokens = await this.tokens.get();
    const [rawTx, rawReceipt] = await this.rpc.batch([{ method: 'eth_getTransactionByHash', params: [hash] }, receiptCall(hash)]);
    if (rawTx === null) return undefined;
    const [tx] = readTransactions({ transactions: [rawTx] }, undefined, this.rpc.source);
    if (tx!.hash !== hash) throw this.error(`eth_getTransactionByHash ${hash} answered ${tx!.hash}`);
    const paysCoin = this.coin !== undefined && sendsValue(tx!);
    if (rawReceipt === null) return paysCoin ? [this.native(tx!, undefined)] : [];
    const receipt = (rawReceipt ?? {}) as Record<string, unknown>;
    const blockHash = fixedData(receipt.blockHash, 32);
    const height = smallQuantity(receipt.blockNumber);
    if (blockHash === undefined || height === undefined) throw this.error(`receipt of ${hash} has no valid blockHash or blockNumber`);
    if (!receiptSucceeded(rawReceipt, hash, blockHash, this.rpc.source)) return [];
    // A receipt of a block the chain left: not paid there (the node may still know it).
    if ((await this.blockHash(height)) !== blockHash) return [];
    const block: BlockRef = { height, hash: blockHash };
    const transfers: Transfer[] = paysCoin ? [this.native(tx!, block)] : [];
    if (!Array.isArray(receipt.logs)) throw this.error(`receipt of ${hash} has no logs list`);
    for (const log of tokenLogs(tokensTransferLogs(receipt.logs, tokens), tokens, this.rpc.source)) {
      if (log.txHash !== hash || log.blockHash !== blockHash) throw this.error(`${log.where} is not of ${hash} in block ${blockHash}`);
      if (log.units !== 0n) transfers.push(tokenTransfer(log, block));
    }
    return transfers;
  }

  private async header(tag: string) {
    const raw = await this.rpc.call('eth_getBlockByNumber', [tag, false]);
    return raw === null ? undefined : readHeader(raw, this.rpc.source);
  }

  private native(tx: RawTransaction, block: BlockRef | undefined): Transfer {
    return nativeTransfer(tx, this.coin!, block);
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
