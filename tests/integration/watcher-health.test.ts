/**
 * The watcher writes its source's health (issue 21, item 2), on a real local Ethereum node that
 * is not mainnet: the mainnet USDT and USDC contracts do not exist there. Before, the whole ETH
 * watcher stopped on the first token ("answered decimals() with 0x") while checkouts went on
 * handing out ETH addresses. Now the tokens fail alone: ETH payments are booked, the health
 * record names the failing tokens, checkout refuses them and offers ETH. A node on another
 * chain id is recorded as such and ETH is refused too; the invoice already open is kept.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Address } from 'viem';
import { parseEther } from 'viem';
import { ensureTable } from '#infra/local/dynamodb';
import { buyer, deployer, devnetClients, type DevnetClients, GENESIS_WEI, sendEth } from '#infra/devnet/chain';
import { type DevnetNode, startDevnetNode } from '#infra/devnet/node';
import { forgetSourceHealth } from '#shared/payments/source-health';
import { createMerchant, type MerchantCredentials } from '#shared/services/merchants';
import { tableName } from '#shared/store/client';
import { listSourceHealth } from '#shared/store/source-health';
import { HealthReporter } from '#shared/watchers/health-reports';
import { watchChainRun } from '#shared/watchers/polled';
import { EthereumBlockSource } from '#shared/watchers/sources/ethereum/source';
import { client, expectError, startApi } from '../support/api';
import { stored } from '../support/watchers';

const XPUB = 'xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj';

let node: DevnetNode;
let clients: DevnetClients;
let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let live: MerchantCredentials;
const run = new AbortController();
let running: Promise<unknown>;

beforeAll(async () => {
  const table = `watcher-health-${process.pid}`;
  await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
  process.env.TABLE_NAME = table;
  expect(tableName()).toBe(table);
  node = await startDevnetNode({
    balances: [
      { address: deployer.address, wei: GENESIS_WEI },
      { address: buyer.address, wei: GENESIS_WEI },
    ],
  });
  clients = devnetClients(node.url, node.chainId);
  // Read on first use, after this: this node, its chain id, the mainnet token contracts (absent here).
  Object.assign(process.env, { ETH_RPC_URL: node.url, ETH_CHAIN_ID: String(node.chainId), ETH_CONFIRMATIONS: '1', WATCH_INTERVAL_SECONDS: '1' });
  api = await startApi();
  call = client(api.url);
  live = await createMerchant({ name: 'Watched Health Shop', sandbox: false, xpubs: { ETH: XPUB } });
  running = watchChainRun('ETH', run.signal);
});
afterAll(async () => {
  run.abort();
  await running?.catch(() => undefined);
  await api?.close();
  await node?.stop();
});

async function checkout(currency: string) {
  const created = await call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 30, merchant_order_id: randomUUID() } });
  const id = created.body.order.order_id as string;
  return { id, response: await call('POST', `/v1/orders/${id}/checkout`, { token: live.api_token, body: { pay_currency: currency } }) };
}

const ethHealth = async () => (await listSourceHealth()).find((record) => record.source === 'ETH');

describe('the ETH watcher on a node without the mainnet token contracts', () => {
  it('reports ETH healthy and each token failing alone; checkout offers ETH and refuses the tokens', async () => {
    await expect.poll(ethHealth, { timeout: 20_000, interval: 200 }).toMatchObject({ kind: 'ethereum-rpc', chain_ok: true });
    const record = (await ethHealth())!;
    expect(Object.keys(record.currency_errors ?? {}).sort()).toEqual(['USDC_ERC20', 'USDT_ERC20']);
    expect(record.currency_errors!.USDT_ERC20).toMatch(/answered decimals\(\) with/);
    expect(record.last_success_at).toBe(record.checked_at);
    forgetSourceHealth();
    for (const token of ['USDT_ERC20', 'USDC_ERC20']) expectError((await checkout(token)).response, 400, 'PAYMENT_NOT_AVAILABLE', 'failing');
    const eth = await checkout('ETH');
    expect(eth.response.status, eth.response.text).toBe(200);
    const page = await call('GET', `/v1/pay/${eth.id}`);
    expect(page.body.currencies).toContain('ETH');
    expect(page.body.currencies).not.toContain('USDT_ERC20');
  });

  it('goes on booking ETH payments while the tokens fail', async () => {
    forgetSourceHealth();
    const { id, response } = await checkout('ETH');
    expect(response.status, response.text).toBe(200);
    const { invoice } = (await call('GET', `/v1/orders/${id}`, { token: live.api_token })).body;
    await sendEth(clients, buyer, invoice.payment_address as Address, parseEther(String(invoice.pay_amount)));
    await expect.poll(async () => (await stored(id)).order.status, { timeout: 20_000, interval: 200 }).toBe('PAID');
  });

  it('a node on another chain id: recorded as wrong_chain, ETH refused, the open invoice kept', async () => {
    forgetSourceHealth();
    const open = await checkout('ETH');
    expect(open.response.status).toBe(200);
    run.abort();
    await running;
    // The same node asked for mainnet (chain id 1), as a watcher configured for mainnet would.
    const mainnet = new EthereumBlockSource({ url: node.url, chainId: 1, tokens: [] });
    const error = await mainnet
      .tip()
      .then(() => mainnet.block(1))
      .catch((caught: unknown) => caught);
    await new HealthReporter('ETH', 'ethereum-rpc').failed(error);
    expect(await ethHealth()).toMatchObject({ chain_ok: false, last_error: expect.stringMatching(/node is on chain/) });
    expect((await ethHealth())!.last_error).not.toContain(node.url);
    forgetSourceHealth();
    expectError((await checkout('ETH')).response, 400, 'PAYMENT_NOT_AVAILABLE', 'wrong chain');
    expect((await call('GET', `/v1/orders/${open.id}`, { token: live.api_token })).body.invoice.pay_currency).toBe('ETH');
  });
});
