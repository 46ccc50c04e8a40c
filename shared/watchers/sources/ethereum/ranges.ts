/**
 * Range reads of an EVM network (`blocks` of source.ts's EthereumBlockSource, what the watcher uses):
 * the blocks of a range (full where the coin is paid in, else their headers) and one
 * `eth_getLogs` over the range in one JSON-RPC batch (split in batches of `blocksPerBatch`),
 * every log tied to the header read for its number; then the watcher's open-address list keeps
 * the transfers that may pay an invoice, and only those native ones have their receipt read. So
 * a step costs a few requests whatever the blocks' traffic, and the receipts grow with payments
 * to us, not with the chain.
 *
 * The range's length is learned: a provider refusing the `eth_getLogs` range (its cap on
 * blocks or on results) makes it half as long, tried doubled again after
 * {@link RANGE_REGROW_READS} reads; a range whose parts disagree (a reorganisation while it
 * was read) is read again once.
 */
import { SourceError } from '#shared/core/source-error';
import { headerTime, type Header, nativeTransfer, readHeader, readTransactions, sendsValue } from '#shared/watchers/sources/ethereum/blocks';
import { toQuantity } from '#shared/watchers/sources/ethereum/codec';
import { callInBatches, receiptCall, receiptSucceeded } from '#shared/watchers/sources/ethereum/receipts';
import type { Token } from '#shared/watchers/sources/ethereum/tokens';
import { tokenLogs, tokenTransfer, transferLogsCall } from '#shared/watchers/sources/ethereum/transfer-logs';
import { type JsonRpcClient, JsonRpcError, type RpcCall } from '#shared/watchers/sources/json-rpc';
import type { Block, Transfer, TransferFilter } from '#shared/watchers/sources/port';

/**
 * Full-length reads at a halved range after which the source tries it doubled (up to the
 * configured one): a refusal may be passing (a provider's node behind the tip refusing a range
 * past its head, a burst of logs over a results cap), and a range kept small for good would
 * cost requests for good. Against a real cap, one refused call in this many reads.
 */
const RANGE_REGROW_READS = 32;

/**
 * The chain changed while a range was read: a log, a receipt or a block of another branch than
 * the headers read (a reorganisation under way, or a provider's nodes out of step). The range is
 * read again once; a second time it fails the step, which the next step retries.
 */
class RangeChangedError extends SourceError {}

export interface RangeReadOptions {
  /** The coin's pay currency, or undefined where the coin is not paid in (only the tokens' logs are read). */
  coin: string | undefined;
  /** Receipts (and block headers) asked for in one JSON-RPC batch. */
  batchSize: number;
  /** Full blocks (with their transactions) asked for in one JSON-RPC batch. */
  blocksPerBatch: number;
  /** Blocks one range read covers at most (the `eth_getLogs` range). */
  blockRange: number;
}

export class RangeReads {
  /** Blocks a range read covers now: the configured range, halved each time the provider refused one. */
  private rangeCap: number;
  private readonly rangeLimit: number;
  /** Full-length reads since the range was last halved or doubled. */
  private readsAtCap = 0;

  constructor(
    private readonly rpc: JsonRpcClient,
    private readonly options: RangeReadOptions,
  ) {
    this.rangeLimit = this.rangeCap = options.blockRange;
    if (!Number.isInteger(this.rangeCap) || this.rangeCap < 1) throw new RangeError(`blockRange must be a positive integer, got ${this.rangeCap}`);
  }

  /** The blocks from `from` up to at most `to` (the range cap), with the transfers `listed` kept. */
  async read(from: number, to: number, tokens: readonly Token[], listed: TransferFilter): Promise<Block[]> {
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
    const { coin, batchSize, blocksPerBatch } = this.options;
    const source = this.rpc.source;
    const error = (message: string) => new SourceError(source, message);
    const changed = (message: string) => new RangeChangedError(source, message);
    const full = coin !== undefined;
    const blockCalls: RpcCall[] = [];
    for (let height = from; height <= last; height += 1) blockCalls.push({ method: 'eth_getBlockByNumber', params: [toQuantity(height), full] });
    const logsCall: RpcCall[] = tokens.length === 0 ? [] : [transferLogsCall(tokens, { fromBlock: toQuantity(from), toBlock: toQuantity(last) })];
    // The logs ride with the first blocks: one request for a step's range on most networks.
    const perBatch = full ? blocksPerBatch : batchSize;
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
        if (i === 0) throw error(`no block at height ${height}`);
        break;
      }
      const header = readHeader(raw, source);
      if (header.height !== height) throw error(`asked for block ${height}, got ${header.height}`);
      if (i > 0 && header.parentHash !== headers[i - 1]!.hash) throw changed(`block ${height} does not follow block ${height - 1}`);
      headers.push(header);
      if (!full) continue;
      const ref = { height, hash: header.hash };
      for (const tx of readTransactions(raw, header.hash, source)) if (sendsValue(tx)) natives.push(nativeTransfer(tx, coin, ref));
    }
    const end = from + headers.length - 1;
    const tokenTransfers: Transfer[] = [];
    for (const log of tokenLogs(rawLogs, tokens, source)) {
      if (log.blockNumber === undefined) throw error(`${log.where} has no valid blockNumber`);
      if (log.blockNumber < from || log.blockNumber > last) throw error(`${log.where} is in block ${log.blockNumber}, outside ${from}-${last}`);
      if (log.blockNumber > end) continue; // in a block this read does not return: read with it next time
      const header = headers[log.blockNumber - from]!;
      if (log.removed || log.blockHash !== header.hash) throw changed(`${log.where} is not in block ${header.hash}`);
      if (log.units !== 0n) tokenTransfers.push(tokenTransfer(log, { height: header.height, hash: header.hash }));
    }

    // Only now, with the blocks read, the open-address list; then receipts only for the kept native payments.
    const kept = new Set(await listed([...natives, ...tokenTransfers]));
    const paying = natives.filter((transfer) => kept.has(transfer));
    const receipts = await callInBatches(
      this.rpc,
      paying.map((transfer) => receiptCall(transfer.txid)),
      batchSize,
    );
    const succeeded = new Set(paying.filter((transfer, i) => receiptSucceeded(receipts[i], transfer.txid, transfer.block!.hash, source, changed)));
    return headers.map((header) => ({
      height: header.height,
      hash: header.hash,
      previousHash: header.parentHash,
      time: headerTime(header),
      transfers: [
        ...natives.filter((transfer) => succeeded.has(transfer) && transfer.block!.height === header.height),
        ...tokenTransfers.filter((transfer) => kept.has(transfer) && transfer.block!.height === header.height),
      ],
    }));
  }
}
