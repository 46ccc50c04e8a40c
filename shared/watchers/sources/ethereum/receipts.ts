/**
 * Transaction receipts (`eth_getTransactionReceipt`): a native payment counts only when its
 * receipt says it succeeded, since a reverted transaction moves no ether. Receipts are asked
 * for in JSON-RPC batches of `batchSize`, with the calls that ride with them.
 */
import { SourceError } from '#shared/core/source-error';
import { fixedData, quantity } from '#shared/watchers/sources/ethereum/codec';
import type { JsonRpcClient, RpcCall } from '#shared/watchers/sources/json-rpc';

/** The call for one transaction's receipt. */
export function receiptCall(txHash: string): RpcCall {
  return { method: 'eth_getTransactionReceipt', params: [txHash] };
}

/** The calls' answers in their order, asked for in batches of at most `batchSize` calls. */
export async function callInBatches(rpc: JsonRpcClient, calls: readonly RpcCall[], batchSize: number): Promise<unknown[]> {
  const results: unknown[] = [];
  for (let start = 0; start < calls.length; start += batchSize) {
    results.push(...(await rpc.batch(calls.slice(start, start + batchSize))));
  }
  return results;
}

/**
 * Whether a receipt of the block being read says the transaction succeeded (status 1). No
 * receipt, or one in another block, means the block left the chain while it was being read:
 * `changed` makes that error (a range read's is its own, read again once); any other deviation
 * is a SourceError of `source`.
 */
export function receiptSucceeded(raw: unknown, txHash: string, blockHash: string, source: string, changed: (message: string) => SourceError = (message) => new SourceError(source, message)): boolean {
  const error = (message: string) => new SourceError(source, message);
  if (raw === null) throw changed(`no receipt for ${txHash}: the block changed while it was read`);
  if (!raw || typeof raw !== 'object') throw error(`receipt of ${txHash} is not an object`);
  const receipt = raw as Record<string, unknown>;
  if (fixedData(receipt.transactionHash, 32) !== txHash) throw error(`receipt is not of ${txHash}`);
  if (fixedData(receipt.blockHash, 32) !== blockHash) {
    throw changed(`receipt of ${txHash} is in another block: the block changed while it was read`);
  }
  const status = quantity(receipt.status);
  if (status !== 0n && status !== 1n) throw error(`receipt of ${txHash} has no valid status`);
  return status === 1n;
}
