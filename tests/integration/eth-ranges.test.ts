import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';

// Ethereum has a source in this file's environment, and three confirmations keep the chains short.
vi.hoisted(() => {
  process.env.ETH_RPC_URL = 'http://127.0.0.1:9/';
  process.env.ETH_CONFIRMATIONS = '3';
  process.env.USDT_ERC20_CONFIRMATIONS = '3';
  process.env.USDC_ERC20_CONFIRMATIONS = '3';
});

import { type Address, parseEther, parseUnits } from 'viem';
import { openListsBeganLongAgo, stored } from '../support/watchers';
import type { ProxyFault, RpcProxy } from '../support/rpc-proxy';
import { decimalFromNumber, formatDecimal } from '#shared/domain/money';
import { toChecksumAddress } from '#shared/payments/addresses/eip55';
import { SourceError, WrongChainError } from '#shared/core/source-error';
import { BLOCK_CHAIN_ITEMS, watchAddress } from '#shared/store/watch-list';
import { readCursor } from '#shared/store/chain-cursors';
import { BlockWatcher } from '#shared/watchers/block-watcher';
import { EthereumBlockSource } from '#shared/watchers/sources/ethereum/source';
import { buyer, deployer, type DevnetClients, sendEth, sendToken } from '#infra/devnet/chain';
import type { DevnetNode } from '#infra/devnet/node';
import { type EthShop, startEthShop } from '../support/eth-shop';

/**
 * The Ethereum source read by range (EthereumBlockSource.blocks) under the block watcher, on a
 * real local node (Hardhat's EDR) behind a proxy that counts and alters the traffic: real
 * signed payments booked through the lifecycle into the real table. What a step asks of the
 * provider must not grow with the open invoices, and every guarantee of the block-by-block
 * path (reorganisations, confirmations, receipts) must hold over a range.
 */

let node: DevnetNode;
let clients: DevnetClients;
let tokens: Record<'USDT_ERC20' | 'USDC_ERC20', Address>;
let call: EthShop['call'];
let token: string;
let proxy: RpcProxy;
let shop: EthShop | undefined;

beforeAll(async () => {
  // From here on, blocks come only when a test mines one.
  shop = await startEthShop('Range Shop');
  ({ node, clients, tokens, call, token, proxy } = shop);
});
// The lists began long ago: only transfers to listed addresses are candidates (and have their receipt read).
beforeAll(openListsBeganLongAgo);

afterAll(async () => shop?.stop());

const mine = async (blocks = 1) => {
  for (let i = 0; i < blocks; i += 1) await node.request('evm_mine');
};

const stranger = () => toChecksumAddress(randomBytes(20)) as Address;

async function checkedOut(currency: string) {
  const created = await call('POST', '/v1/orders', { token, body: { price_amount: 30, price_currency: 'USD', pay_currency: currency } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const { invoice } = (await call('GET', `/v1/orders/${id}`, { token })).body;
  return { id, address: invoice.payment_address as Address, amount: formatDecimal(decimalFromNumber(invoice.pay_amount)) };
}

/** A watcher on a fresh cursor through the proxy, stepped once (the cursor starts at the tip). */
async function watched(blockRange?: number) {
  const cursorName = `ETH-range-${randomUUID()}`;
  const watcher = new BlockWatcher(
    new EthereumBlockSource({
      url: proxy.url,
      chainId: node.chainId,
      timeoutMs: 2000,
      ...(blockRange ? { blockRange } : {}),
      tokens: [
        { currency: 'USDT_ERC20', contract: tokens.USDT_ERC20 },
        { currency: 'USDC_ERC20', contract: tokens.USDC_ERC20 },
      ],
    }),
    { cursorName },
  );
  await watcher.step();
  return { watcher, cursorName };
}

/** One step, with what it asked the node: HTTP requests and the JSON-RPC calls in them. */
async function counted(watcher: BlockWatcher) {
  proxy.seen.length = 0;
  const report = await watcher.step();
  const calls = proxy.seen.flat();
  return { report, http: proxy.seen.length, calls, count: (method: string) => calls.filter((m) => m === method).length };
}

/** The eth_getLogs call of a request body (single or batch), if any. */
function logsCall(request: unknown): { id: unknown; params: [{ fromBlock: string; toBlock: string }] } | undefined {
  const calls = (Array.isArray(request) ? request : [request]) as { id: unknown; method: string; params: [{ fromBlock: string; toBlock: string }] }[];
  return calls.find((c) => c?.method === 'eth_getLogs');
}

/** Forwards the request and replaces the answer to its eth_getLogs call. */
function replaceLogs(request: unknown, replace: (answer: { id: unknown; result?: unknown }) => unknown): ProxyFault {
  const logs = logsCall(request);
  if (!logs) return { kind: 'pass' };
  return {
    kind: 'rewrite',
    rewrite: (answer) => (Array.isArray(answer) ? answer.map((a: { id: unknown }) => (a.id === logs.id ? replace(a) : a)) : replace(answer as { id: unknown })),
  };
}

describe('the EVM watcher reads by range', () => {
  it('a native and a token payment in one range of five blocks: booked in one step of four requests, no receipt read but ours', async () => {
    const { watcher } = await watched();
    const eth = await checkedOut('ETH');
    const usdt = await checkedOut('USDT_ERC20');
    const ethHash = await sendEth(clients, buyer, eth.address, parseEther(eth.amount));
    await mine();
    const usdtHash = await sendToken(clients, buyer, tokens.USDT_ERC20, usdt.address, parseUnits(usdt.amount, 6));
    await mine();
    // Others' traffic: ether and tokens to addresses no invoice has.
    await sendEth(clients, deployer, stranger(), parseEther('1'));
    await sendToken(clients, buyer, tokens.USDC_ERC20, stranger(), parseUnits('5', 6));
    await mine(3);

    const { report, http, count } = await counted(watcher);
    expect(report.blocks).toBe(5);
    expect(report.behind).toBe(0);
    expect(report.transfers).toBe(4);
    // The tip, the pending block, the range (five blocks and one eth_getLogs in one batch), our one receipt.
    expect(http).toBe(4);
    expect(count('eth_getLogs')).toBe(1);
    expect(count('eth_getBlockByNumber')).toBe(2 + 5);
    expect(count('eth_getTransactionReceipt')).toBe(1);

    expect((await stored(eth.id)).order.status).toBe('PAID');
    expect((await stored(eth.id)).invoice!.payments).toEqual([expect.objectContaining({ key: ethHash, confirmations: 5 })]);
    expect((await stored(usdt.id)).order.status).toBe('PAID');
    expect((await stored(usdt.id)).invoice!.payments).toEqual([expect.objectContaining({ key: `${usdtHash}:0`, confirmations: 4 })]);
  });

  it('a reverted ether transfer to a listed address: its receipt is read and says so, nothing is looked up', async () => {
    const { watcher } = await watched();
    // A token contract takes no ether: a transfer to it is mined and reverts (gas given, so nothing estimates it first).
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await watchAddress(BLOCK_CHAIN_ITEMS, { chain: 'ETH', currency: 'ETH', address: toChecksumAddress(Buffer.from(tokens.USDC_ERC20.slice(2), 'hex')), until });
    await sendEth(clients, buyer, tokens.USDC_ERC20, parseEther('0.01'), 60_000n);
    await mine();
    const { report, count } = await counted(watcher);
    expect(report.blocks).toBe(1);
    expect(count('eth_getTransactionReceipt')).toBe(1);
    expect(report.lookups).toBe(0);
  });

  it('a reorganisation that replaces a block inside a booked range takes the payment back', async () => {
    const { watcher, cursorName } = await watched();
    const order = await checkedOut('USDT_ERC20');
    await mine();
    const snapshot = await node.request<string>('evm_snapshot');
    await sendToken(clients, buyer, tokens.USDT_ERC20, order.address, parseUnits(order.amount, 6));
    await mine(2);
    const first = await watcher.step();
    expect(first.blocks).toBe(3);
    expect(first.booked).toBe(1);
    expect((await stored(order.id)).order.status).toBe('PENDING');
    const cursor = await readCursor(cursorName);
    expect(cursor!.recent.length).toBeGreaterThanOrEqual(4); // every block of the range is remembered, not only its last

    // Another branch from the range's first block, longer, without the payment.
    expect(await node.request('evm_revert', [snapshot])).toBe(true);
    await mine(4);
    const report = await watcher.step();
    expect(report.reorganisations).toBeGreaterThanOrEqual(1);
    expect(report.retracted).toBe(1);
    expect((await stored(order.id)).order.status).toBe('NEW');
  });

  it('logs of another branch than the blocks read (a reorganisation during the read): read again; if it goes on, the step fails and books nothing', async () => {
    const { watcher, cursorName } = await watched();
    const order = await checkedOut('USDT_ERC20');
    await sendToken(clients, buyer, tokens.USDT_ERC20, order.address, parseUnits(order.amount, 6));
    await mine(3);
    const otherBranch = (answer: { id: unknown; result?: unknown }) => ({
      ...answer,
      result: (answer.result as Record<string, unknown>[]).map((log) => ({ ...log, blockHash: `0x${'ab'.repeat(32)}` })),
    });

    // Once: the range is read again and booked.
    let altered = 0;
    proxy.fault = (_methods, request) => (logsCall(request) && altered++ === 0 ? replaceLogs(request, otherBranch) : { kind: 'pass' });
    const { report, count } = await counted(watcher);
    expect(altered).toBe(2);
    expect(count('eth_getLogs')).toBe(2);
    expect(report.booked).toBe(1);
    expect((await stored(order.id)).order.status).toBe('PAID');

    // Every time: the step fails, the cursor stays, nothing is booked.
    const second = await checkedOut('USDT_ERC20');
    await sendToken(clients, buyer, tokens.USDT_ERC20, second.address, parseUnits(second.amount, 6));
    await mine(3);
    const before = await readCursor(cursorName);
    proxy.fault = (_methods, request) => replaceLogs(request, otherBranch);
    await expect(watcher.step()).rejects.toThrow(/is not in block/);
    expect((await readCursor(cursorName))!.height).toBe(before!.height);
    expect((await stored(second.id)).order.status).toBe('NEW');
    proxy.fault = () => ({ kind: 'pass' });
    expect((await watcher.step()).booked).toBe(1);
    expect((await stored(second.id)).order.status).toBe('PAID');
  });

  it('a provider that refuses ranges over 2 blocks: the source halves its range once and for all, a step still reads up to the tip; a configured cap is never refused', async () => {
    let refused = 0;
    proxy.fault = (_methods, request) => {
      const logs = logsCall(request);
      if (!logs || Number(logs.params[0].toBlock) - Number(logs.params[0].fromBlock) + 1 <= 2) return { kind: 'pass' };
      refused += 1;
      return replaceLogs(request, ({ id }) => ({ jsonrpc: '2.0', id, error: { code: -32005, message: 'eth_getLogs is limited to a 2 block range' } }));
    };
    try {
      const { watcher } = await watched();
      const order = await checkedOut('USDT_ERC20');
      await mine(4);
      await sendToken(clients, buyer, tokens.USDT_ERC20, order.address, parseUnits(order.amount, 6));
      await mine(3);
      expect((await watcher.step()).behind).toBe(0);
      expect((await stored(order.id)).order.status).toBe('PAID');
      const learned = refused;
      expect(learned).toBeGreaterThanOrEqual(1);
      expect(learned).toBeLessThanOrEqual(3); // 7 blocks -> 3 -> 1: one refusal per halving
      await mine(5);
      while ((await watcher.step()).behind > 0);
      expect(refused).toBe(learned);

      // Configured: never refused; one step reads its five blocks in three ranges (2, 2, 1).
      const capped = (await watched(2)).watcher;
      refused = 0;
      await mine(5);
      const { report, count } = await counted(capped);
      expect(report.blocks).toBe(5);
      expect(report.behind).toBe(0);
      expect(count('eth_getLogs')).toBe(3);
      expect(refused).toBe(0);
    } finally {
      proxy.fault = () => ({ kind: 'pass' });
    }
  });

  it('what a step asks of the node does not grow with the open invoices (2, then 300 more)', async () => {
    const { watcher } = await watched();
    const traffic = async () => {
      await sendEth(clients, deployer, stranger(), parseEther('0.5'));
      await sendToken(clients, buyer, tokens.USDT_ERC20, stranger(), parseUnits('3', 6));
      await mine(4);
      return counted(watcher);
    };
    const few = await traffic();
    const until = new Date(Date.now() + 3_600_000).toISOString();
    for (let i = 0; i < 300; i += 1) {
      await watchAddress(BLOCK_CHAIN_ITEMS, { chain: 'ETH', currency: i % 2 ? 'ETH' : 'USDT_ERC20', address: stranger(), until });
    }
    const many = await traffic();
    expect(few.report.blocks).toBe(4);
    expect(many.report.blocks).toBe(4);
    expect(many.report.openRead).toBeGreaterThanOrEqual(300);
    expect(many.http).toBe(few.http);
    expect(many.calls).toEqual(few.calls);
    expect(many.count('eth_getTransactionReceipt')).toBe(0);
  });
});

describe("the Ethereum source's range read on its own", () => {
  const all = async (candidates: readonly unknown[]) => candidates as never[];

  it("a range past the node's newest block ends at it; one starting past it is a SourceError", async () => {
    const source = new EthereumBlockSource({ url: node.url, chainId: node.chainId, tokens: [{ currency: 'USDT_ERC20', contract: tokens.USDT_ERC20 }] });
    await mine(2);
    const tip = await source.tip();
    const blocks = await source.blocks(tip.height - 1, tip.height + 5, all);
    expect(blocks.map((b) => b.height)).toEqual([tip.height - 1, tip.height]);
    expect(blocks[1]!.previousHash).toBe(blocks[0]!.hash);
    expect(blocks[1]!.hash).toBe(tip.hash);
    await expect(source.blocks(tip.height + 1, tip.height + 5, all)).rejects.toThrow(SourceError);
  });

  it('a range refused once (a node behind, a burst of logs) is halved, then tried doubled again after 32 full reads', async () => {
    const ranges: number[] = [];
    let refuse = true;
    proxy.fault = (_methods, request) => {
      const logs = logsCall(request);
      if (!logs) return { kind: 'pass' };
      const length = Number(logs.params[0].toBlock) - Number(logs.params[0].fromBlock) + 1;
      ranges.push(length);
      if (!refuse || length <= 2) return { kind: 'pass' };
      refuse = false;
      return replaceLogs(request, ({ id }) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: 'block range extends beyond current head block' } }));
    };
    try {
      const source = new EthereumBlockSource({ url: proxy.url, chainId: node.chainId, blockRange: 4, tokens: [{ currency: 'USDT_ERC20', contract: tokens.USDT_ERC20 }] });
      let next = (await source.tip()).height + 1;
      await mine(72);
      for (let i = 0; i < 34; i += 1) next += (await source.blocks(next, next + 100, all)).length;
      expect(ranges).toEqual([4, ...Array<number>(32).fill(2), 4, 4]);
    } finally {
      proxy.fault = () => ({ kind: 'pass' });
    }
  });

  it('keeps the chain check and a failing token leaves the others read', async () => {
    const mainnet = new EthereumBlockSource({ url: node.url, chainId: 1, tokens: [] });
    await expect(mainnet.blocks(1, 2, all)).rejects.toThrow(WrongChainError);

    const nowhere = toChecksumAddress(randomBytes(20));
    const source = new EthereumBlockSource({
      url: node.url,
      chainId: node.chainId,
      tokens: [
        { currency: 'USDC_ERC20', contract: nowhere },
        { currency: 'USDT_ERC20', contract: tokens.USDT_ERC20 },
      ],
    });
    const from = (await source.tip()).height + 1;
    const to = stranger();
    const hash = await sendToken(clients, buyer, tokens.USDT_ERC20, to, parseUnits('7', 6));
    await mine();
    const [block] = await source.blocks(from, from, all);
    expect(block!.transfers.map((t) => [t.key, t.currency, t.address, formatDecimal(t.amount)])).toEqual([[`${hash}:0`, 'USDT_ERC20', to, '7']]);
    expect(source.health().currencyErrors).toEqual({ USDC_ERC20: expect.stringMatching(/answered decimals\(\) with "0x"/) });
  });
});
