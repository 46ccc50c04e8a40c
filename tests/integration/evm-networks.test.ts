import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';

// Three EVM networks have a source in this file's environment, each on its own local node and
// chain id; Celo has none (live merchants' CUSD fails closed). Two confirmations keep chains short.
vi.hoisted(() => {
  Object.assign(process.env, {
    ETH_RPC_URL: 'http://127.0.0.1:9/',
    ARBITRUM_RPC_URL: 'http://127.0.0.1:9/',
    BSC_RPC_URL: 'http://127.0.0.1:9/',
    ETH_CHAIN_ID: '31337',
    ARBITRUM_CHAIN_ID: '412346',
    BSC_CHAIN_ID: '1056',
    USDT_ERC20_CONFIRMATIONS: '2',
    ETH_CONFIRMATIONS: '2',
    ETH_ARB_CONFIRMATIONS: '2',
    USDT_ARB_CONFIRMATIONS: '2',
    USDT_BNB_CONFIRMATIONS: '2',
  });
});

import { type Address, concat, encodeFunctionData, parseEther, parseUnits } from 'viem';
import { parse } from 'eth-url-parser';
import { client, newMerchant, startApi } from '../support/api';
import { openListsBeganLongAgo, stored, testXpub } from '../support/watchers';
import { decimalFromNumber, formatDecimal } from '#shared/domain/money';
import { toChecksumAddress } from '#shared/payments/addresses/eip55';
import { tronAccountBytes } from '#shared/payments/addresses/tron';
import { BlockWatcher } from '#shared/watchers/block-watcher';
import { EthereumBlockSource, type EthereumSourceOptions } from '#shared/watchers/sources/ethereum/source';
import { buyer, deployer, deployTokenSet, devnetClients, type DevnetClients, GENESIS_WEI, sendEth, sendToken, tokenAbi } from '#infra/devnet/chain';
import { type DevnetNode, startDevnetNode } from '#infra/devnet/node';
import { reportAllHealthy } from '../support/source-health';

/**
 * EVM networks beside Ethereum: one watcher per network, each on a real local node with its own
 * chain id and token contracts (Hardhat's EDR), real signed transfers to the service's own
 * invoice addresses, booked through the lifecycle into the real table. BNB Smart Chain's USDT
 * has 18 decimals, so its amounts are checked to the last of them. The wrong-token attacks
 * (issue 22, item 4) are paid for real and must leave the order NEW.
 */

interface Network {
  node: DevnetNode;
  clients: DevnetClients;
  tokens: Record<string, Address>;
}

let eth: Network;
let arb: Network;
let bsc: Network;
let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let token: string;

async function network(chainId: number, specs: Record<string, { name: string; symbol: string; decimals: number }>): Promise<Network> {
  const node = await startDevnetNode({
    chainId,
    balances: [
      { address: deployer.address, wei: GENESIS_WEI },
      { address: buyer.address, wei: GENESIS_WEI },
    ],
  });
  const clients = devnetClients(node.url, chainId);
  const tokens = await deployTokenSet(clients, specs);
  await node.request('evm_setAutomine', [false]);
  return { node, clients, tokens };
}

beforeAll(async () => {
  eth = await network(31337, { USDT_ERC20: { name: 'Tether USD (devnet)', symbol: 'USDT', decimals: 6 } });
  arb = await network(412346, { USDT_ARB: { name: 'Tether USD (Arbitrum devnet)', symbol: 'USDT', decimals: 6 } });
  bsc = await network(1056, {
    USDT_BNB: { name: 'Tether USD (BSC devnet)', symbol: 'USDT', decimals: 18 },
    // Same name, same symbol, same decimals, another contract: what a forger deploys.
    FAKE: { name: 'Tether USD (BSC devnet)', symbol: 'USDT', decimals: 18 },
  });
  api = await startApi();
  call = client(api.url);
  token = (await newMerchant(true, 'Multi-network Shop')).api_token;
  // Live checkouts are offered only while their source reports healthy, as its watcher would.
  await reportAllHealthy();
}, 60_000);

afterAll(async () => {
  await api?.close();
  for (const net of [eth, arb, bsc]) await net?.node.stop();
});
// The lists began long ago: only listed outputs are looked up (watch-list.ts).
beforeAll(openListsBeganLongAgo);

const mine = async (net: Network, blocks = 1) => {
  for (let i = 0; i < blocks; i += 1) await net.node.request('evm_mine');
};

/** A NEW order checked out in `currency` (30 USD: 30 tokens, 0.01 ETH at the demo rates). */
async function checkedOut(currency: string, as = token) {
  const created = await call('POST', '/v1/orders', { token: as, body: { price_amount: 30, price_currency: 'USD', pay_currency: currency } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const { invoice } = (await call('GET', `/v1/orders/${id}`, { token: as })).body;
  return { id, address: invoice.payment_address as Address, uri: invoice.payment_uri as string, amount: formatDecimal(decimalFromNumber(invoice.pay_amount)) };
}

/** One network's watcher on a fresh cursor, stepped once so it starts at the tip. */
async function watcherOf(net: Network, options: Omit<EthereumSourceOptions, 'url'>) {
  const watcher = new BlockWatcher(new EthereumBlockSource({ url: net.node.url, timeoutMs: 2000, ...options }), { cursorName: `${options.chain}-test-${randomUUID()}` });
  await watcher.step();
  return () => watcher.step();
}

const bscWatcher = () => watcherOf(bsc, { chain: 'BSC', chainId: 1056, tokens: [{ currency: 'USDT_BNB', contract: bsc.tokens.USDT_BNB! }] });
const arbWatcher = () => watcherOf(arb, { chain: 'ARBITRUM', chainId: 412346, native: 'ETH_ARB', tokens: [{ currency: 'USDT_ARB', contract: arb.tokens.USDT_ARB! }] });
const ethWatcher = () => watcherOf(eth, { chain: 'ETH', chainId: 31337, tokens: [{ currency: 'USDT_ERC20', contract: eth.tokens.USDT_ERC20! }] });

describe('BNB Smart Chain: USDT with 18 decimals, exactly', () => {
  it('checkout names the BSC contract and chain id, the amount in 18-decimal units; paying it makes the order PAID', async () => {
    const step = await bscWatcher();
    const order = await checkedOut('USDT_BNB');
    expect(order.amount).toBe('30');
    expect(parse(order.uri)).toMatchObject({
      scheme: 'ethereum',
      target_address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      chain_id: '1056',
      function_name: 'transfer',
      parameters: { address: order.address, uint256: '30000000000000000000' },
    });
    const hash = await sendToken(bsc.clients, buyer, bsc.tokens.USDT_BNB!, order.address, parseUnits('30', 18));
    await mine(bsc);
    await step();
    expect((await stored(order.id)).order.status).toBe('PENDING');
    await mine(bsc);
    await step();
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toEqual([expect.objectContaining({ key: `${hash}:0`, amount: '30', confirmations: 2 })]);
  });

  it('one unit short (10^-18 USDT) is UNDERPAID, booked to the last decimal', async () => {
    const step = await bscWatcher();
    const order = await checkedOut('USDT_BNB');
    await sendToken(bsc.clients, buyer, bsc.tokens.USDT_BNB!, order.address, parseUnits('30', 18) - 1n);
    await mine(bsc, 2);
    await step();
    const now = await stored(order.id);
    expect(now.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    expect(now.invoice!.payments).toEqual([expect.objectContaining({ amount: '29.999999999999999999' })]);
  });
});

describe('wrong-token attacks on EVM networks (each leaves the order NEW)', () => {
  it('a token with the same name and symbol from another contract', async () => {
    const step = await bscWatcher();
    const order = await checkedOut('USDT_BNB');
    await sendToken(bsc.clients, buyer, bsc.tokens.FAKE!, order.address, parseUnits('30', 18));
    await mine(bsc, 3);
    expect((await step()).booked).toBe(0);
    expect((await stored(order.id)).order.status).toBe('NEW');
  });

  it('a transfer to another address that mentions ours (in its call data)', async () => {
    const step = await bscWatcher();
    const order = await checkedOut('USDT_BNB');
    const elsewhere = '0x000000000000000000000000000000000000dEaD';
    const transfer = encodeFunctionData({ abi: tokenAbi, functionName: 'transfer', args: [elsewhere, parseUnits('30', 18)] });
    // The ABI decoder ignores trailing bytes: our address rides along, the tokens go elsewhere.
    await bsc.clients.wallet(buyer).sendTransaction({ to: bsc.tokens.USDT_BNB!, data: concat([transfer, order.address]) });
    await mine(bsc, 3);
    expect((await step()).booked).toBe(0);
    expect((await stored(order.id)).order.status).toBe('NEW');
  });

  it('the right token and amount on the wrong network, to the right address (USDT on Ethereum for a USDT_BNB invoice)', async () => {
    const [onEth, onBsc] = [await ethWatcher(), await bscWatcher()];
    const order = await checkedOut('USDT_BNB');
    await sendToken(eth.clients, buyer, eth.tokens.USDT_ERC20!, order.address, parseUnits('30', 6));
    await mine(eth, 3);
    await mine(bsc, 3);
    const seen = await onEth();
    // Seen, and not looked up: the address is on BNB Smart Chain's open-address list, not Ethereum's.
    expect([seen.transfers, seen.lookups, seen.booked]).toEqual([1, 0, 0]);
    expect((await onBsc()).booked).toBe(0);
    expect((await stored(order.id)).order.status).toBe('NEW');
  });

  it("USDT on Ethereum to the Ethereum form of a USDT_TRC20 invoice's address (the same 20 bytes) is not counted", async () => {
    const onEth = await ethWatcher();
    // A TRON key of this test's own: the sandbox key's TRON address at index n is its Ethereum
    // address at index n, which another file's open invoice on the run's shared table may hold
    // (and would rightly be paid by this transfer).
    const order = await checkedOut('USDT_TRC20', (await newMerchant(true, 'Own TRON key', { xpubs: { TRX: testXpub("m/44'/195'/0'") } })).api_token);
    const evmForm = toChecksumAddress(tronAccountBytes(order.address)!) as Address;
    await sendToken(eth.clients, buyer, eth.tokens.USDT_ERC20!, evmForm, parseUnits('30', 6));
    await mine(eth, 3);
    const seen = await onEth();
    expect([seen.transfers, seen.booked]).toEqual([1, 0]);
    expect((await stored(order.id)).order.status).toBe('NEW');
  });

  it('ether on Ethereum for an ETH_ARB invoice is not counted; the same on Arbitrum is', async () => {
    const [onEth, onArb] = [await ethWatcher(), await arbWatcher()];
    const order = await checkedOut('ETH_ARB');
    expect(order.amount).toBe('0.01');
    expect(order.uri).toBe(`ethereum:${order.address}@412346?value=10000000000000000`);
    await sendEth(eth.clients, buyer, order.address, parseEther('0.01'));
    await mine(eth, 3);
    await onEth();
    expect((await stored(order.id)).order.status).toBe('NEW');

    const hash = await sendEth(arb.clients, buyer, order.address, parseEther('0.01'));
    expect((await onArb()).booked).toBe(1); // the pending block: PENDING before it is mined
    expect((await stored(order.id)).order.status).toBe('PENDING');
    await mine(arb, 2);
    await onArb();
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toEqual([expect.objectContaining({ key: hash, amount: '0.01' })]);
  });

  it('an amount one unit short on Arbitrum (USDT, 6 decimals) is UNDERPAID', async () => {
    const step = await arbWatcher();
    const order = await checkedOut('USDT_ARB');
    await sendToken(arb.clients, buyer, arb.tokens.USDT_ARB!, order.address, parseUnits('30', 6) - 1n);
    await mine(arb, 2);
    await step();
    expect((await stored(order.id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
  });
});

describe('one key, every EVM network', () => {
  it('invoices on different networks never share an address (one sequence for the ETH key)', async () => {
    const addresses = [await checkedOut('USDT_ERC20'), await checkedOut('USDT_ARB'), await checkedOut('USDT_BNB'), await checkedOut('ETH_ARB')].map((o) => o.address);
    expect(new Set(addresses).size).toBe(4);
  });

  it('a live merchant checks out on a network with a source; Celo (no CELO_RPC_URL) fails closed', async () => {
    const live = await newMerchant(false, 'Live multi-network', { xpubs: { ETH: testXpub("m/44'/60'/0'") } });
    const order = await checkedOut('USDC_ARB', live.api_token);
    expect(parse(order.uri)).toMatchObject({ chain_id: '412346', parameters: { address: order.address, uint256: '30000000' } });
    const created = await call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 30, price_currency: 'USD' } });
    const id = created.body.order.order_id as string;
    const refused = await call('POST', `/v1/orders/${id}/checkout`, { token: live.api_token, body: { pay_currency: 'CUSD' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error_code: 'PAYMENT_NOT_AVAILABLE', error: expect.stringMatching(/CELO/) });
  });
});
