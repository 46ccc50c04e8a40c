/**
 * A block as an EVM node answers `eth_getBlockByNumber`, checked field by field: its header,
 * its transactions, and the native transfers among them (the coin sent to an address, wei over
 * 10^18). Any deviation is a {@link SourceError} of the source named.
 */
import { SourceError } from '#shared/core/source-error';
import { fromMinorUnits } from '#shared/domain/money';
import { address, fixedData, quantity, smallQuantity } from '#shared/watchers/sources/ethereum/codec';
import type { BlockRef, Transfer } from '#shared/watchers/sources/port';

const WEI_DECIMALS = 18;

/** A transaction's fields the source needs. */
export interface RawTransaction {
  hash: string;
  to: string | undefined;
  value: bigint;
}

/** A block's header fields the watcher needs. */
export interface Header {
  height: number;
  hash: string;
  parentHash: string;
  timestamp: number;
}

export function readHeader(raw: unknown, source: string): Header {
  const error = (message: string) => new SourceError(source, message);
  if (!raw || typeof raw !== 'object') throw error('block is not an object');
  const block = raw as Record<string, unknown>;
  const height = smallQuantity(block.number);
  const hash = fixedData(block.hash, 32);
  const parentHash = fixedData(block.parentHash, 32);
  const timestamp = smallQuantity(block.timestamp);
  if (height === undefined) throw error('block has no valid number');
  if (hash === undefined || parentHash === undefined) throw error(`block ${height} has no valid hash or parentHash`);
  if (timestamp === undefined) throw error(`block ${height} has no valid timestamp`);
  return { height, hash, parentHash, timestamp };
}

/** The block's time, from its header's timestamp (seconds). */
export function headerTime(header: Header): Date {
  return new Date(header.timestamp * 1000);
}

/** The block's transactions; `blockHash` given: each must say it is in that block. */
export function readTransactions(raw: unknown, blockHash: string | undefined, source: string): RawTransaction[] {
  const error = (message: string) => new SourceError(source, message);
  const list = (raw as { transactions?: unknown }).transactions;
  if (!Array.isArray(list)) throw error('block has no transactions array');
  return list.map((item: unknown) => {
    if (!item || typeof item !== 'object') throw error('block transactions are not objects');
    const tx = item as Record<string, unknown>;
    const hash = fixedData(tx.hash, 32);
    const value = quantity(tx.value);
    const to = tx.to === null || tx.to === undefined ? undefined : address(tx.to);
    if (hash === undefined || value === undefined || (tx.to !== null && tx.to !== undefined && to === undefined)) {
      throw error(`transaction ${String(tx.hash)} has no valid hash, value or to`);
    }
    if (blockHash !== undefined && fixedData(tx.blockHash, 32) !== blockHash) {
      throw error(`transaction ${hash} is not in block ${blockHash}`);
    }
    return { hash, to, value };
  });
}

/** A transaction that sends the coin to an address: a contract's creation or a zero value pays nothing. */
export function sendsValue(tx: RawTransaction): boolean {
  return tx.to !== undefined && tx.value > 0n;
}

/** A transaction's native transfer in `coin`, with its block (none: unconfirmed). Key: the transaction hash. */
export function nativeTransfer(tx: RawTransaction, coin: string, block: BlockRef | undefined): Transfer {
  return {
    key: tx.hash,
    txid: tx.hash,
    currency: coin,
    address: tx.to!,
    amount: fromMinorUnits(tx.value, WEI_DECIMALS),
    ...(block ? { block } : {}),
  };
}
