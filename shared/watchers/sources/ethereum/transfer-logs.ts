/**
 * ERC-20 `Transfer` logs of the configured token contracts: the `eth_getLogs` call that asks
 * for them (by a block's hash, or over a range), each log checked field by field, and the
 * transfer it makes (token units over 10^decimals; key `txhash:logIndex`). Where a log is (its
 * block) is the caller's to check. Logs exist only for successful transactions.
 */
import { SourceError } from '#shared/core/source-error';
import { fromMinorUnits } from '#shared/domain/money';
import { data, fixedData, smallQuantity, topicAddress, TRANSFER_TOPIC, word } from '#shared/watchers/sources/ethereum/codec';
import type { Token } from '#shared/watchers/sources/ethereum/tokens';
import type { RpcCall } from '#shared/watchers/sources/json-rpc';
import type { BlockRef, Transfer } from '#shared/watchers/sources/port';

/** An ERC-20 Transfer log of a watched contract, checked field by field. */
export interface TokenLog {
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

/** The `eth_getLogs` call for the tokens' Transfer logs of one block (`blockHash`) or of a range (`fromBlock`, `toBlock`). */
export function transferLogsCall(tokens: readonly Token[], where: { blockHash: string } | { fromBlock: string; toBlock: string }): RpcCall {
  return { method: 'eth_getLogs', params: [{ ...where, address: tokens.map((t) => t.contract), topics: [TRANSFER_TOPIC] }] };
}

/** The logs of a receipt that are Transfer logs of the tokens (a receipt carries every log of its transaction). */
export function tokensTransferLogs(logs: readonly unknown[], tokens: readonly Token[]): unknown[] {
  const contracts = new Set(tokens.map((token) => token.contract));
  return logs.filter((log: unknown) => {
    const entry = (log ?? {}) as { address?: unknown; topics?: unknown };
    const contract = fixedData(entry.address, 20);
    return contract !== undefined && contracts.has(contract) && Array.isArray(entry.topics) && fixedData(entry.topics[0], 32) === TRANSFER_TOPIC;
  });
}

/** The Transfer logs of an `eth_getLogs` answer for the watched contracts, each checked; where they are is the caller's to check. */
export function tokenLogs(raw: unknown, tokens: readonly Token[], source: string): TokenLog[] {
  const error = (message: string) => new SourceError(source, message);
  if (!Array.isArray(raw)) throw error('eth_getLogs did not answer a list');
  const byContract = new Map(tokens.map((token) => [token.contract, token]));
  return raw.map((item: unknown) => {
    if (!item || typeof item !== 'object') throw error('log is not an object');
    const log = item as Record<string, unknown>;
    const txHash = fixedData(log.transactionHash, 32);
    const logIndex = smallQuantity(log.logIndex);
    const contract = fixedData(log.address, 20);
    const topics = Array.isArray(log.topics) ? log.topics.map((topic) => fixedData(topic, 32)) : [];
    const payload = data(log.data);
    const where = `log ${String(log.transactionHash)}:${String(log.logIndex)}`;
    if (txHash === undefined || logIndex === undefined || contract === undefined || payload === undefined) {
      throw error(`${where} has no valid transactionHash, logIndex, address or data`);
    }
    const token = byContract.get(contract);
    if (!token || topics[0] !== TRANSFER_TOPIC) throw error(`${where} does not match the filter asked for`);
    // ERC-20: Transfer(address indexed from, address indexed to, uint256 value).
    const to = topics.length === 3 && topics[2] !== undefined ? topicAddress(topics[2]) : undefined;
    const units = word(payload);
    if (to === undefined || units === undefined) throw error(`${where} is not an ERC-20 Transfer`);
    const blockNumber = smallQuantity(log.blockNumber);
    return { txHash, logIndex, blockHash: fixedData(log.blockHash, 32), blockNumber, removed: log.removed === true, token, to, units, where };
  });
}

/** The transfer a checked log makes, in `block`. */
export function tokenTransfer(log: TokenLog, block: BlockRef): Transfer {
  return {
    key: `${log.txHash}:${log.logIndex}`,
    txid: log.txHash,
    currency: log.token.currency,
    address: log.to,
    amount: fromMinorUnits(log.units, log.token.decimals),
    block,
  };
}
