import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Address, formatEther, formatUnits, parseEther, parseEventLogs, parseUnits } from 'viem';
import { formatDecimal } from '#shared/domain/money';
import { deriveAddress } from '#shared/payments/addresses/index';
import { SANDBOX_XPUB } from '#shared/payments/payment-methods';
import { EthereumBlockSource } from '#shared/watchers/sources/ethereum/source';
import { SourceError, WrongChainError } from '#shared/core/source-error';
import { type Transfer } from '#shared/watchers/sources/port';
import { buyer, deployer, type DevnetClients, sendEth, sendToken, sendTokens, tokenAbi, waitFor } from '#infra/devnet/chain';
import { committedTestToken } from '#infra/devnet/compile';
import type { DevnetNode } from '#infra/devnet/node';
import { startEthDevnet } from '../support/eth-shop';
import { type RpcProxy, startRpcProxy } from '../support/rpc-proxy';

/**
 * The Ethereum source against a real local node (Hardhat's EDR over HTTP JSON-RPC): real
 * signed transactions, real ERC-20 contracts and their logs, reorganisations made with
 * evm_snapshot / evm_revert, and a proxy that makes the node misbehave. Amounts and keys are
 * checked against viem's own decoding of the same transactions (an independent codec).
 */

let node: DevnetNode;
let clients: DevnetClients;
let tokens: Record<'USDT_ERC20' | 'USDC_ERC20', Address>;
let source: EthereumBlockSource;
let nextIndex = 100;

/** A fresh invoice address: the service's own derivation from the sandbox key. */
const invoiceAddress = () => deriveAddress('ETH', SANDBOX_XPUB, nextIndex++) as Address;

const sourceFor = (url: string, extra: Partial<ConstructorParameters<typeof EthereumBlockSource>[0]> = {}) =>
  new EthereumBlockSource({
    url,
    chainId: node.chainId,
    tokens: [
      { currency: 'USDT_ERC20', contract: tokens.USDT_ERC20 },
      { currency: 'USDC_ERC20', contract: tokens.USDC_ERC20 },
    ],
    ...extra,
  });

const blockOf = async (hash: `0x${string}`) => Number((await waitFor(clients, hash)).blockNumber);
const summary = (t: Transfer) => ({ key: t.key, currency: t.currency, address: t.address, amount: formatDecimal(t.amount) });

beforeAll(async () => {
  ({ node, clients, tokens } = await startEthDevnet());
  source = sourceFor(node.url);
});

afterAll(async () => {
  await node?.stop();
});

describe('Ethereum JSON-RPC source on a real node', () => {
  it('reads a native transfer to an invoice address exactly, keyed by the transaction hash', async () => {
    const to = invoiceAddress();
    const hash = await sendEth(clients, buyer, to, 1_234_567_890_123_456_789n);
    const height = await blockOf(hash);

    const block = await source.block(height);

    const tx = await clients.public.getTransaction({ hash });
    expect(block.transfers.map(summary)).toEqual([{ key: hash, currency: 'ETH', address: to, amount: formatEther(tx.value) }]);
    expect(formatEther(tx.value)).toBe('1.234567890123456789');
    expect(block.transfers[0]!.txid).toBe(hash);
    expect(block.transfers[0]!.block).toEqual({ height, hash: block.hash });
    const viemBlock = await clients.public.getBlock({ blockNumber: BigInt(height) });
    expect([block.hash, block.previousHash, block.time.getTime()]).toEqual([viemBlock.hash, viemBlock.parentHash, Number(viemBlock.timestamp) * 1000]);
  });

  it('reads USDT and USDC Transfer logs with the decimals read from the contracts, keyed by hash and log index', async () => {
    const to = invoiceAddress();
    await node.request('evm_setAutomine', [false]);
    const usdt = await sendToken(clients, buyer, tokens.USDT_ERC20, to, parseUnits('19.99', 6));
    const usdc = await sendToken(clients, buyer, tokens.USDC_ERC20, to, 1n);
    await node.request('evm_mine');
    await node.request('evm_setAutomine', [true]);
    const height = await blockOf(usdt);
    expect(await blockOf(usdc)).toBe(height);

    const block = await source.block(height);

    const receipts = await Promise.all([usdt, usdc].map((hash) => waitFor(clients, hash)));
    const logs = parseEventLogs({ abi: committedTestToken().abi, eventName: 'Transfer', logs: receipts.flatMap((r) => r.logs) }) as unknown as {
      transactionHash: string;
      logIndex: number;
      address: string;
      args: { to: string; value: bigint };
    }[];
    const expected = logs.map((log) => ({
      key: `${log.transactionHash}:${log.logIndex}`,
      currency: log.address === tokens.USDT_ERC20.toLowerCase() ? 'USDT_ERC20' : 'USDC_ERC20',
      address: log.args.to,
      amount: formatUnits(log.args.value, 6),
    }));
    expect(block.transfers.map(summary)).toEqual(expected);
    expect(expected.map((t) => t.amount)).toEqual(['19.99', '0.000001']);
    expect(new Set(expected.map((t) => t.key)).size).toBe(2);
  });

  it('tells several Transfer logs of one transaction apart by their log index', async () => {
    const [a, b] = [invoiceAddress(), invoiceAddress()];
    const hash = await sendTokens(clients, buyer, tokens.USDT_ERC20, [
      { to: a, units: parseUnits('5.5', 6) },
      { to: b, units: parseUnits('7', 6) },
      { to: a, units: parseUnits('4.5', 6) },
    ]);
    const block = await source.block(await blockOf(hash));
    expect(block.transfers.map(summary)).toEqual([
      { key: `${hash}:0`, currency: 'USDT_ERC20', address: a, amount: '5.5' },
      { key: `${hash}:1`, currency: 'USDT_ERC20', address: b, amount: '7' },
      { key: `${hash}:2`, currency: 'USDT_ERC20', address: a, amount: '4.5' },
    ]);
  });

  it('does not report a transaction that reverted (no ether moved, no log)', async () => {
    const to = invoiceAddress();
    // An address whose code always reverts (as an EIP-7702-delegated account's could).
    await node.request('hardhat_setCode', [to, '0x60006000fd']);
    const failed = await sendEth(clients, buyer, to, parseEther('1'), 100_000n);
    const failedToken = await clients.wallet(buyer).writeContract({
      address: tokens.USDC_ERC20,
      abi: tokenAbi,
      functionName: 'transfer',
      args: [invoiceAddress(), parseUnits('999999999', 6)], // more than the buyer holds
      gas: 100_000n,
    });
    const receipts = await Promise.all([failed, failedToken].map((hash) => waitFor(clients, hash)));
    expect(receipts.map((r) => r.status)).toEqual(['reverted', 'reverted']);

    for (const receipt of receipts) {
      expect((await source.block(Number(receipt.blockNumber))).transfers).toEqual([]);
    }
  });

  it('does not count transactions without value or without a recipient', async () => {
    const zero = await sendEth(clients, buyer, invoiceAddress(), 0n);
    const create = await clients.wallet(buyer).sendTransaction({ data: '0x600080f3', value: parseEther('0.5') });
    for (const hash of [zero, create]) {
      expect((await source.block(await blockOf(hash))).transfers).toEqual([]);
    }
  });

  it('reads the same block twice the same way', async () => {
    const hash = await sendEth(clients, buyer, invoiceAddress(), parseEther('0.25'));
    const height = await blockOf(hash);
    const first = await source.block(height);
    const second = await sourceFor(node.url).block(height);
    expect(second).toEqual(first);
    expect(first.transfers).toHaveLength(1);
  });

  it('gives the tip and the hash of any block on the current chain', async () => {
    const tip = await source.tip();
    const latest = await clients.public.getBlock();
    // With its time: how old the node's view is (chains/tip-age.ts).
    expect(tip).toEqual({ height: Number(latest.number), hash: latest.hash, time: new Date(Number(latest.timestamp) * 1000) });
    expect(await source.blockHash(tip.height - 1)).toBe(latest.parentHash);
    await expect(source.blockHash(tip.height + 1000)).rejects.toThrow(SourceError);
    await expect(source.block(tip.height + 1000)).rejects.toThrow(/no block at height/);
  });
});

describe('mempool', () => {
  beforeEach(async () => {
    await node.request('evm_setAutomine', [false]);
    return async () => {
      await node.request('evm_mine');
      await node.request('evm_setAutomine', [true]);
    };
  });

  it('sees a native payment before its block, under the key it will have in the block', async () => {
    const to = invoiceAddress();
    const hash = await sendEth(clients, buyer, to, parseEther('0.1'));
    const token = await sendToken(clients, buyer, tokens.USDT_ERC20, to, parseUnits('3', 6));

    const pending = await source.mempool(new Set());

    // Tokens are first seen in their block: their key needs the log index only a block gives.
    expect(pending.map(summary)).toEqual([{ key: hash, currency: 'ETH', address: to, amount: '0.1' }]);
    expect(pending[0]!.block).toBeUndefined();
    expect(await source.mempool(new Set([hash]))).toEqual([]);

    await node.request('evm_mine');
    const block = await source.block(await blockOf(hash));
    expect(block.transfers.map((t) => t.key)).toEqual([hash, `${token}:0`]);
  });
});

describe('reorganisations', () => {
  it('shows other blocks at the same heights after the chain is replaced, without the payment that left it', async () => {
    const snapshot = await node.request<string>('evm_snapshot');
    const to = invoiceAddress();
    const paid = await sendEth(clients, buyer, to, parseEther('2'));
    const height = await blockOf(paid);
    await node.request('evm_mine');
    const before = await source.block(height);
    expect(before.transfers.map((t) => t.key)).toEqual([paid]);
    const beforeNext = await source.blockHash(height + 1);

    expect(await node.request('evm_revert', [snapshot])).toBe(true);
    // The other branch: a different transaction, then more blocks than the first branch had.
    const other = await sendEth(clients, deployer, invoiceAddress(), parseEther('0.01'));
    expect(await blockOf(other)).toBe(height);
    await node.request('evm_mine');
    await node.request('evm_mine');

    const after = await source.block(height);
    expect(after.hash).not.toBe(before.hash);
    expect(after.previousHash).toBe(before.previousHash);
    expect(after.transfers.map((t) => t.key)).toEqual([other]);
    expect(await source.blockHash(height)).toBe(after.hash);
    expect(await source.blockHash(height + 1)).not.toBe(beforeNext);
    expect((await source.block(height + 1)).previousHash).toBe(after.hash);
    expect(await clients.public.getTransactionReceipt({ hash: paid }).catch(() => null)).toBeNull();
  });
});

describe('configuration checked against the node', () => {
  it('refuses a node on another chain than the configured one, and says so in its health', async () => {
    const mainnet = new EthereumBlockSource({ url: node.url, chainId: 1, tokens: [] });
    await expect(mainnet.block(1)).rejects.toThrow(WrongChainError);
    await expect(mainnet.block(1)).rejects.toThrow(/node is on chain 0x7a69, expected 1/);
    expect(mainnet.health().chainOk).toBe(false);
  });

  it('leaves out a token contract with more decimals than its currency is booked in; the chain goes on', async () => {
    const { abi, bytecode } = committedTestToken();
    const hash = await clients.wallet(deployer).deployContract({ abi, bytecode, args: ['Eighteen', 'E18', 18, 10n ** 24n] });
    const contract = (await waitFor(clients, hash)).contractAddress!;
    const wrong = new EthereumBlockSource({ url: node.url, chainId: node.chainId, tokens: [{ currency: 'USDT_ERC20', contract }] });
    // The token is left out (never rounded); the chain's blocks and ETH go on.
    expect((await wrong.block(1)).height).toBe(1);
    expect(wrong.health()).toEqual({ chainOk: true, currencyErrors: { USDT_ERC20: expect.stringMatching(/USDT_ERC20 contract has 18 decimals/) } });
  });

  it('leaves out a token address that is no contract; the chain goes on', async () => {
    const empty = new EthereumBlockSource({
      url: node.url,
      chainId: node.chainId,
      tokens: [{ currency: 'USDC_ERC20', contract: invoiceAddress() }],
    });
    // A node of a network without the token (a test chain without mainnet USDC): the token fails
    // alone, ETH goes on being watched.
    expect((await empty.block(1)).height).toBe(1);
    expect(empty.health().currencyErrors).toEqual({ USDC_ERC20: expect.stringMatching(/answered decimals\(\) with "0x"/) });
  });
});

describe('a misbehaving node', () => {
  let proxy: RpcProxy;
  let guarded: EthereumBlockSource;
  let height: number;
  let expected: Awaited<ReturnType<EthereumBlockSource['block']>>;

  beforeAll(async () => {
    proxy = await startRpcProxy(node.url);
    guarded = sourceFor(proxy.url, { timeoutMs: 500, maxBodyBytes: 64 * 1024 });
    const to = invoiceAddress();
    await node.request('evm_setAutomine', [false]);
    await sendEth(clients, buyer, to, parseEther('1.5'));
    const token = await sendToken(clients, buyer, tokens.USDC_ERC20, to, parseUnits('12.34', 6));
    await node.request('evm_mine');
    await node.request('evm_setAutomine', [true]);
    height = await blockOf(token);
    expected = await source.block(height);
    expect(expected.transfers).toHaveLength(2);
  });

  afterAll(async () => {
    await proxy?.stop();
  });

  const on = (method: string, rewrite: (answer: any) => unknown) => (methods: string[]) => (methods.includes(method) ? { kind: 'rewrite' as const, rewrite } : { kind: 'pass' as const });
  const forBlock = (change: (block: any) => void) =>
    on('eth_getBlockByNumber', (answer) => {
      change(answer.result);
      return answer;
    });
  const inBatch = (method: string, change: (item: any) => void) => (methods: string[]) =>
    methods.includes(method)
      ? {
          kind: 'rewrite' as const,
          rewrite: (answer: any) => {
            const items = Array.isArray(answer) ? answer : [answer];
            change(items[methods.indexOf(method)]);
            return answer;
          },
        }
      : { kind: 'pass' as const };

  const faults: [string, RpcProxy['fault'], RegExp][] = [
    ['no answer in time', () => ({ kind: 'hang' }), /no answer within 500 ms/],
    ['an answer that stops half way', () => ({ kind: 'trickle' }), /no answer within 500 ms/],
    ['HTTP 502', () => ({ kind: 'status', status: 502 }), /HTTP 502/],
    ['a body that is not JSON', () => ({ kind: 'body', body: '<html>oops' }), /not JSON/],
    ['an answer to another request', () => ({ kind: 'body', body: '{"jsonrpc":"2.0","id":999,"result":"0x1"}' }), /no answer to/],
    ['an answer too large', () => ({ kind: 'body', body: `{"x":"${'a'.repeat(70_000)}"}` }), /larger than/],
    ['a malformed error object', () => ({ kind: 'body', body: '{"jsonrpc":"2.0","id":1,"error":"boom"}' }), /error object|no answer to/],
    ['a block hash of the wrong length', forBlock((b) => (b.hash = b.hash.slice(0, 40))), /no valid hash/],
    ['a block of another height', forBlock((b) => (b.number = '0x1')), /got 1/],
    ['a value that is not a quantity', forBlock((b) => (b.transactions[0].value = '1.5')), /no valid hash, value or to/],
    ['a recipient that is not an address', forBlock((b) => (b.transactions[0].to = '0x1234')), /no valid hash, value or to/],
    ['transactions of another block', forBlock((b) => (b.transactions[0].blockHash = `0x${'ab'.repeat(32)}`)), /is not in block/],
    ['no transactions array', forBlock((b) => delete b.transactions), /no transactions array/],
    ['a receipt of another block', inBatch('eth_getTransactionReceipt', (r) => (r.result.blockHash = `0x${'cd'.repeat(32)}`)), /another block/],
    ['a missing receipt', inBatch('eth_getTransactionReceipt', (r) => (r.result = null)), /no receipt/],
    ['a receipt without status', inBatch('eth_getTransactionReceipt', (r) => delete r.result.status), /no valid status/],
    ['a log of another contract', inBatch('eth_getLogs', (r) => (r.result[0].address = `0x${'11'.repeat(20)}`)), /does not match the filter/],
    ['a log of another block', inBatch('eth_getLogs', (r) => (r.result[0].blockHash = `0x${'ef'.repeat(32)}`)), /is not in block/],
    ['a removed log', inBatch('eth_getLogs', (r) => (r.result[0].removed = true)), /is not in block/],
    ['a log whose amount is not a word', inBatch('eth_getLogs', (r) => (r.result[0].data = '0x01')), /not an ERC-20 Transfer/],
    ['a log with a fourth topic', inBatch('eth_getLogs', (r) => r.result[0].topics.push(`0x${'00'.repeat(32)}`)), /not an ERC-20 Transfer/],
    ['logs that are not a list', inBatch('eth_getLogs', (r) => (r.result = {})), /did not answer a list/],
  ];

  it.each(faults)('refuses %s with a SourceError, then reads the block right once the node behaves', async (_name, fault, message) => {
    // Decimals and chain id are read on first use: read them before the fault.
    proxy.fault = () => ({ kind: 'pass' });
    await guarded.block(height);

    proxy.fault = fault;
    const error = await guarded.block(height).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SourceError);
    expect((error as Error).message).toMatch(message);

    proxy.fault = () => ({ kind: 'pass' });
    expect(await guarded.block(height)).toEqual(expected);
  });

  it('a JSON-RPC error from the node is a SourceError naming the method and code', async () => {
    proxy.fault = on('eth_getBlockByNumber', (answer) => ({ jsonrpc: '2.0', id: answer.id, error: { code: -32000, message: 'header not found' } }));
    await expect(guarded.tip()).rejects.toThrow(/eth_getBlockByNumber failed: -32000 header not found/);
    proxy.fault = () => ({ kind: 'pass' });
  });

  it('a node that refuses the pending block gives no mempool, and blocks still work', async () => {
    const fresh = sourceFor(proxy.url);
    proxy.fault = on('eth_getBlockByNumber', (answer) => ({ jsonrpc: '2.0', id: answer.id, error: { code: -32601, message: 'no pending' } }));
    expect(await fresh.mempool(new Set())).toEqual([]);
    // Asked once: the next poll does not ask again.
    let asked = 0;
    proxy.fault = (methods) => ((asked += methods.length), { kind: 'pass' });
    expect(await fresh.mempool(new Set())).toEqual([]);
    expect(asked).toBe(0);
    proxy.fault = () => ({ kind: 'pass' });
    expect(await fresh.block(height)).toEqual(expected);
  });
});
