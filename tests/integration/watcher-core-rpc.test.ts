import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { client, newMerchant, startApi } from '../support/api';
import type { FaultyServer } from '../support/chain-http';
import { startCoreRpcServer, type CoreRpcServerOptions } from '../support/core-rpc-server';
import { UtxoChain, type UtxoChainName } from '../support/utxo-chain';
import { payTo, satsOf, stored } from '../support/watchers';
import { BlockWatcher } from '#shared/watchers/block-watcher';
import { CoreRpcSource } from '#shared/watchers/sources/core-rpc';
import { SourceError } from '#shared/core/source-error';
import { readCursor } from '#shared/store/chain-cursors';
import { validateAddress } from '#shared/payments/addresses/index';

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let token: string;
const servers: FaultyServer[] = [];

beforeAll(async () => {
  api = await startApi();
  call = client(api.url);
  token = (await newMerchant(true, 'RPC Watched Shop')).api_token;
});

afterAll(async () => {
  await api.close();
  for (const server of servers) await server.close();
});

async function checkedOut(currency: UtxoChainName, price = 65) {
  const created = await call('POST', '/v1/orders', { token, body: { price_amount: price, price_currency: 'USD', pay_currency: currency } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id;
  const invoice = (await call('GET', `/v1/orders/${id}`, { token })).body.invoice;
  return { id, address: invoice.payment_address as string, sats: satsOf(invoice.pay_amount) };
}

async function watchedNode(name: UtxoChainName, addressStyle: CoreRpcServerOptions['addressStyle'], password = 'p@ss:word/1') {
  const chain = new UtxoChain(name);
  const server = await startCoreRpcServer(chain, { user: 'watcher', password, addressStyle });
  servers.push(server);
  const url = new URL(server.url);
  url.username = 'watcher';
  url.password = encodeURIComponent(password);
  const source = new CoreRpcSource({ chain: name, url: url.toString(), http: { timeoutMs: 300, attempts: 2, backoffMs: 5 } });
  const cursorName = `${name}-rpc-test-${randomUUID()}`;
  const watcher = new BlockWatcher(source, { cursorName });
  await watcher.step();
  return { chain, server, watcher, cursorName, step: () => watcher.step() };
}

describe.each([
  ['BTC', 'address', 2],
  ['LTC', 'addresses', 6],
  ['BCH', 'addresses', 6],
] as const)('the watcher with a %s Core JSON-RPC node (scriptPubKey.%s)', (name, style, confirmations) => {
  it(`exact payment: PENDING from the mempool (one batch of getrawtransaction), PAID at ${confirmations} confirmations`, async () => {
    const { chain, server, step } = await watchedNode(name, style);
    const order = await checkedOut(name);
    expect(validateAddress(name, order.address)).toBe(true);
    const tx = payTo(chain, order.address, order.sats);
    chain.pay([{ address: chain.addressOf(chain.scriptOf(order.address))!, sats: 1n }], { mempool: true }); // another mempool transaction
    await step();
    expect(server.requests.get('batch:getrawtransaction')).toBe(1);
    let now = await stored(order.id);
    expect(now.order.status).toBe('PENDING');
    chain.mine();
    chain.mineEmpty(confirmations - 2);
    await step();
    expect((await stored(order.id)).order.status).toBe('PENDING');
    chain.mineEmpty(1);
    await step();
    now = await stored(order.id);
    expect(now.order.status).toBe('UNRESOLVED'); // the second (1 sat) payment overpays
    expect(now.order.unresolved_reason).toBe('OVERPAID');
    expect(now.invoice!.payments!.map((p) => p.key).sort()).toContain(`${tx.txid}:0`);
    expect(now.invoice!.payments!.every((p) => p.confirmations === confirmations)).toBe(true);
  });
});

describe('the watcher with a Core JSON-RPC node: amounts, reorganisations and failures', () => {
  it('reads coin values exactly from the JSON text: under and over by one satoshi', async () => {
    const { chain, step } = await watchedNode('BTC', 'address');
    const under = await checkedOut('BTC', 64_999_999.99);
    const over = await checkedOut('BTC');
    chain.pay([
      { address: under.address, sats: under.sats - 1n },
      { address: over.address, sats: over.sats + 1n },
    ]);
    chain.mine();
    chain.mineEmpty(1);
    await step();
    const u = await stored(under.id);
    expect(u.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    // 999.99999984 BTC: more digits than a double keeps exactly, booked to the satoshi.
    expect(u.invoice!.payments![0]!.amount).toBe(`${(under.sats - 1n) / 100_000_000n}.${String((under.sats - 1n) % 100_000_000n).padStart(8, '0')}`.replace(/0+$/, ''));
    expect((await stored(over.id)).order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'OVERPAID' });
  });

  it('a reorganisation takes the payment back (NEW), the new branch mines it again (PAID)', async () => {
    const { chain, step } = await watchedNode('BTC', 'address');
    const order = await checkedOut('BTC');
    payTo(chain, order.address, order.sats);
    chain.mine();
    await step();
    expect((await stored(order.id)).order.status).toBe('PENDING');
    chain.orphan(1, { dropTxs: true });
    chain.mineEmpty(2);
    const report = await step();
    expect(report).toMatchObject({ reorganisations: 1, retracted: 1 });
    expect((await stored(order.id)).order.status).toBe('NEW');
  });

  it('timeouts, garbage, RPC errors and refused credentials: nothing booked, the cursor stays, then it recovers', async () => {
    const { chain, server, step, cursorName } = await watchedNode('BTC', 'address');
    const order = await checkedOut('BTC');
    payTo(chain, order.address, order.sats);
    chain.mine();
    chain.mineEmpty(1);
    const before = await readCursor(cursorName);
    server.fault({ kind: 'hang', times: 2, match: /^getblock$/ });
    await expect(step()).rejects.toThrow(/no answer within 300 ms/);
    server.fault({ kind: 'garbage', times: 1, match: /^getblock$/, body: 'Internal Server Error' });
    await expect(step()).rejects.toThrow(/not JSON/);
    const block = chain.blockAt(chain.tip.height - 1)!;
    const real = await (
      await fetch(server.url, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('watcher:p@ss:word/1').toString('base64')}` },
        body: JSON.stringify({ jsonrpc: '1.0', id: 7, method: 'getblock', params: [block.hash, 2] }),
      })
    ).text();
    server.fault({ kind: 'garbage', times: 1, match: /^getblock$/, body: real.replace(',"id":7', '').replace(/"value":(\d+\.\d+)/, '"value":"$1"') });
    await expect(step()).rejects.toThrow(/no numeric value/);
    server.fault({ kind: 'garbage', times: 1, match: /^getblock$/, body: real.replace(',"id":7', '').replace(/"value":(\d+\.\d+)/, '"value":$1123') });
    await expect(step()).rejects.toThrow(/has value/);
    server.fault({ kind: 'garbage', times: 1, match: /^getblockchaininfo$/, body: '{"result":null,"error":{"code":-28,"message":"Loading block index..."},"id":1}' });
    await expect(step()).rejects.toThrow(/warming up/);
    expect(await readCursor(cursorName)).toEqual(before);
    expect((await stored(order.id)).order.status).toBe('NEW');

    const wrong = new BlockWatcher(new CoreRpcSource({ chain: 'BTC', url: server.url.replace('http://', 'http://watcher:nope@') }), { cursorName });
    await expect(wrong.step()).rejects.toThrow(SourceError);

    await step();
    const paid = await stored(order.id);
    expect(paid.order.status).toBe('PAID');
    expect(paid.invoice!.payments).toHaveLength(1);
  });
});
