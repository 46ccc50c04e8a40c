import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';

// Ethereum has a source in this file's environment (live merchants may check out in ETH and
// its tokens), and three confirmations keep the chains short.
vi.hoisted(() => {
  process.env.ETH_RPC_URL = 'http://127.0.0.1:9/';
  process.env.ETH_CONFIRMATIONS = '3';
  process.env.USDT_ERC20_CONFIRMATIONS = '3';
  process.env.USDC_ERC20_CONFIRMATIONS = '3';
});

import { type Address, parseEther, parseUnits } from 'viem';
import { stored } from '../support/watchers';
import type { RpcProxy } from '../support/rpc-proxy';
import { decimalFromNumber, formatDecimal } from '#shared/domain/money';
import { BlockWatcher } from '#shared/watchers/block-watcher';
import { EthereumBlockSource } from '#shared/watchers/sources/ethereum/source';
import { buyer, type DevnetClients, sendEth, sendToken, sendTokens } from '#infra/devnet/chain';
import type { DevnetNode } from '#infra/devnet/node';
import { type EthShop, startEthShop } from '../support/eth-shop';

/**
 * The watcher core driving the Ethereum source on a real local node: real signed ETH and
 * ERC-20 payments to the service's own invoice addresses, booked through the lifecycle into
 * the real table, with blocks mined on demand (evm_mine) and reorganisations made with
 * evm_snapshot / evm_revert.
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
  shop = await startEthShop('Ethereum Shop');
  ({ node, clients, tokens, call, token, proxy } = shop);
});

afterAll(async () => shop?.stop());

const mine = async (blocks = 1) => {
  for (let i = 0; i < blocks; i += 1) await node.request('evm_mine');
};

/** A NEW order checked out in `currency` (30 USD: 0.01 ETH or 30 tokens at the demo rates). */
async function checkedOut(currency: string, price = 30) {
  const created = await call('POST', '/v1/orders', { token, body: { price_amount: price, price_currency: 'USD', pay_currency: currency } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const { invoice } = (await call('GET', `/v1/orders/${id}`, { token })).body;
  return { id, address: invoice.payment_address as Address, amount: formatDecimal(decimalFromNumber(invoice.pay_amount)) };
}

/** Watchers sharing one fresh cursor (each is one run of the service), through the proxy. */
async function watched() {
  const cursorName = `ETH-test-${randomUUID()}`;
  const source = () =>
    new EthereumBlockSource({
      url: proxy.url,
      chainId: node.chainId,
      timeoutMs: 500,
      tokens: [
        { currency: 'USDT_ERC20', contract: tokens.USDT_ERC20 },
        { currency: 'USDC_ERC20', contract: tokens.USDC_ERC20 },
      ],
    });
  const watcher = () => new BlockWatcher(source(), { cursorName });
  const first = watcher();
  await first.step(); // the cursor starts at the tip
  return { watcher, step: () => first.step() };
}

describe('the watcher with the Ethereum source on a real node', () => {
  it('ETH, exact: PENDING from the pending block, PENDING at 1 of 3 confirmations, PAID at 3; seen again, nothing changes', async () => {
    const { step } = await watched();
    const order = await checkedOut('ETH');
    expect(order.amount).toBe('0.01');
    const hash = await sendEth(clients, buyer, order.address, parseEther(order.amount));

    expect((await step()).booked).toBe(1);
    let now = await stored(order.id);
    expect(now.order.status).toBe('PENDING');
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ key: hash, txid: hash, amount: '0.01', confirmations: 0 })]);

    await mine();
    await step();
    const pending = now.order.version;
    now = await stored(order.id);
    expect(now.order.status).toBe('PENDING');
    // Mined short of its confirmations: kept as a maturing payment; the order is not written again until PAID.
    expect(now.order.version).toBe(pending);
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ key: hash, confirmations: 0 })]);

    await mine(2);
    await step();
    now = await stored(order.id);
    expect(now.order.status).toBe('PAID');
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ key: hash, confirmations: 3 })]);

    await mine();
    await step();
    expect((await stored(order.id)).order.version).toBe(now.order.version);
  });

  it('USDT, two partial payments add up: PENDING at their blocks, PAID once both have 3 confirmations', async () => {
    const { step } = await watched();
    const order = await checkedOut('USDT_ERC20');
    expect(order.amount).toBe('30');
    const first = await sendToken(clients, buyer, tokens.USDT_ERC20, order.address, parseUnits('12.5', 6));
    expect((await step()).booked).toBe(0); // tokens are first seen in their block
    await mine();
    await step();
    expect((await stored(order.id)).order.status).toBe('PENDING');
    const second = await sendToken(clients, buyer, tokens.USDT_ERC20, order.address, parseUnits('17.5', 6));
    await mine(3);
    await step();
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments!.map((p) => [p.key, p.amount]).sort()).toEqual(
      [
        [`${first}:0`, '12.5'],
        [`${second}:0`, '17.5'],
      ].sort(),
    );
  });

  it('USDC, one transaction paying two invoices, one under and one over: each UNRESOLVED with its reason', async () => {
    const { step } = await watched();
    const under = await checkedOut('USDC_ERC20');
    const over = await checkedOut('USDC_ERC20');
    const hash = await sendTokens(clients, buyer, tokens.USDC_ERC20, [
      { to: under.address, units: parseUnits('29.999999', 6) },
      { to: over.address, units: parseUnits('30.000001', 6) },
    ]);
    await mine(3);
    await step();
    expect((await stored(under.id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    expect((await stored(over.id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'OVERPAID' });
    expect((await stored(under.id)).invoice!.payments).toEqual([expect.objectContaining({ key: `${hash}:0`, amount: '29.999999' })]);
    expect((await stored(over.id)).invoice!.payments).toEqual([expect.objectContaining({ key: `${hash}:1`, amount: '30.000001' })]);
  });

  it('a reorganisation takes back a payment whose transaction left the chain: the PENDING order is NEW again', async () => {
    const { step } = await watched();
    const order = await checkedOut('USDT_ERC20');
    const snapshot = await node.request<string>('evm_snapshot');
    await sendToken(clients, buyer, tokens.USDT_ERC20, order.address, parseUnits(order.amount, 6));
    await mine();
    await step();
    expect((await stored(order.id)).order.status).toBe('PENDING');

    // The other branch, longer than the first, without the payment.
    expect(await node.request('evm_revert', [snapshot])).toBe(true);
    await mine(3);
    const report = await step();
    expect(report.reorganisations).toBeGreaterThanOrEqual(1);
    expect(report.retracted).toBe(1);
    const after = await stored(order.id);
    expect(after.order.status).toBe('NEW');
    // Kept on the invoice, marked as gone: it counts again only if it is mined again.
    expect(after.invoice!.payments).toEqual([expect.objectContaining({ confirmations: 0, left_chain_at: expect.any(String) })]);
  });

  it('the same block seen by two runs is booked once', async () => {
    const { watcher, step } = await watched();
    const order = await checkedOut('ETH');
    await sendEth(clients, buyer, order.address, parseEther(order.amount));
    await mine(3);
    const [a, b] = await Promise.all([step(), watcher().step()]);
    expect(a.booked + b.booked).toBeGreaterThanOrEqual(1);
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toHaveLength(1);
  });

  it('a node that times out or answers garbage: the step fails, nothing is booked, the next step books once', async () => {
    const { step } = await watched();
    const order = await checkedOut('ETH');
    await sendEth(clients, buyer, order.address, parseEther(order.amount));
    await mine(3);
    const before = await stored(order.id);
    for (const fault of [() => ({ kind: 'hang' as const }), () => ({ kind: 'body' as const, body: '{"jsonrpc":"2.0","id":1,"result":{"number":"0x1"}}' })]) {
      proxy.fault = fault;
      await expect(step()).rejects.toThrow();
      expect((await stored(order.id)).order.version).toBe(before.order.version);
    }
    proxy.fault = () => ({ kind: 'pass' });
    await step();
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toHaveLength(1);
  });
});
