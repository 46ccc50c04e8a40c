/**
 * A stuck block source is not healthy (issue 28): an Esplora server, a Bitcoin Core-style node
 * or an EVM node that stopped following its chain still answers its own old tip, and its
 * watcher, at that tip, looked caught up. Now a tip older than its chain's limit
 * (chains/tip-age.ts: mainnet's defaults, BTC 3 h, LTC 45 min, BCH 4 h, ETH 300 s) is not
 * caught up: the last catch-up stays, the lag grows until it is `lagging` (SOURCE_MAX_LAG_SECONDS)
 * and checkout refuses its currencies, until a new block comes. Every source is a local server of
 * mainnet's identity (so the defaults hold): Esplora for BTC, Core RPC for LTC (getblockchaininfo
 * without `time`, as Litecoin Core: the tip's header is asked) and BCH (with `time`, as Bitcoin
 * Core 23+), and a real EVM node (EDR) on chain id 1.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import { type DevnetNode, startDevnetNode } from '#infra/devnet/node';
import { forgetSourceHealth } from '#shared/payments/source-health';
import { MAX_TIP_AGE_DEFAULTS } from '#shared/chains/tip-age';
import { createMerchant, type MerchantCredentials } from '#shared/services/merchants';
import { tableName } from '#shared/store/client';
import { listSourceHealth, recordSourceHealth } from '#shared/store/source-health';
import { CoreRpcSource } from '#shared/watchers/sources/core-rpc';
import { EsploraSource } from '#shared/watchers/sources/esplora';
import { client, expectError, startApi } from '../support/api';
import { invokeWatcherOnce } from '../support/stepped';
import type { FaultyServer } from '../support/chain-http';
import { startCoreRpcServer } from '../support/core-rpc-server';
import { startEsploraServer } from '../support/esplora-server';
import { UtxoChain } from '../support/utxo-chain';
import { testXpub } from '../support/watchers';

const nowSeconds = () => Math.floor(Date.now() / 1000);
/** Each chain's tip made a quarter past its limit ago. */
const stale = (chain: string) => nowSeconds() - Math.round(MAX_TIP_AGE_DEFAULTS[chain]! * 1.25);

const btc = new UtxoChain('BTC', 800_000, { startTime: stale('BTC') });
const ltc = new UtxoChain('LTC', 2_700_000, { startTime: stale('LTC') });
const bch = new UtxoChain('BCH', 850_000, { startTime: stale('BCH') });
const PASSWORD = 'watcher-secret';
const servers: FaultyServer[] = [];
let eth: DevnetNode;
let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let live: MerchantCredentials;

async function coreNode(chain: UtxoChain, tipTime: boolean): Promise<{ server: FaultyServer; url: string }> {
  const server = await startCoreRpcServer(chain, { user: 'watcher', password: PASSWORD, addressStyle: 'addresses', tipTime });
  servers.push(server);
  const url = new URL(server.url);
  url.username = 'watcher';
  url.password = PASSWORD;
  return { server, url: url.toString() };
}

const ethRpc = async (method: string, params: unknown[] = []) => {
  const answer = await fetch(eth.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await answer.json()) as { result: unknown }).result;
};

beforeAll(async () => {
  const table = `stuck-block-sources-${process.pid}`;
  await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
  process.env.TABLE_NAME = table;
  expect(tableName()).toBe(table);
  const esplora = await startEsploraServer(btc);
  servers.push(esplora);
  // The devnet node's blocks keep its genesis time (2026-01-01) unless told otherwise: months old.
  eth = await startDevnetNode({ chainId: 1 });
  // Read on first use, after this: mainnet identities (the defaults hold), and every run of a
  // chain nobody needs looks at it.
  Object.assign(process.env, {
    BTC_ESPLORA_URL: esplora.url,
    LTC_RPC_URL: (await coreNode(ltc, false)).url,
    BCH_RPC_URL: (await coreNode(bch, true)).url,
    ETH_RPC_URL: eth.url,
    WATCH_IDLE_LOOK_SECONDS: '0',
    WATCH_INTERVAL_SECONDS: '1',
  });
  api = await startApi();
  call = client(api.url);
  live = await createMerchant({
    name: 'Stuck Node Shop',
    sandbox: false,
    xpubs: { BTC: testXpub(), LTC: testXpub("m/84'/2'/0'"), BCH: testXpub("m/44'/145'/0'"), ETH: testXpub("m/44'/60'/0'") },
  });
});
afterAll(async () => {
  await api?.close();
  for (const server of servers) await server.close();
  await eth?.stop();
});

const CHAINS = ['BTC', 'LTC', 'BCH', 'ETH'] as const;
const look = (chain: string) => invokeWatcherOnce(chain);
const health = async () => new Map((await listSourceHealth()).map((record) => [record.source, record]));

async function checkout(currency: string) {
  const created = await call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 30 } });
  expect(created.status, created.text).toBe(200);
  return call('POST', `/v1/orders/${created.body.order.order_id as string}/checkout`, { token: live.api_token, body: { pay_currency: currency } });
}

describe('a node whose newest block is older than its chain allows', () => {
  it('answers each look at its tip and the cursor is there, yet it is not caught up: a source caught up 20 minutes ago is lagging, and checkout refuses its currencies', async () => {
    // Its last report, when it still followed the chain: caught up, past SOURCE_MAX_LAG_SECONDS (900 s) ago.
    const before = new Date(Date.now() - 20 * 60_000).toISOString();
    for (const chain of CHAINS) {
      const kind = chain === 'BTC' ? 'esplora' : chain === 'ETH' ? 'ethereum-rpc' : 'core-rpc';
      expect(await recordSourceHealth({ ok: true, source: chain, kind, checked_at: before, caught_up_at: before, chain_ok: true })).toBe(true);
    }
    for (const chain of CHAINS) expect(await look(chain)).toMatchObject({ idle: true, steps: 1, failures: 0 });
    const records = await health();
    for (const chain of CHAINS) {
      const record = records.get(chain)!;
      expect(record, chain).toMatchObject({ chain_ok: true, tip_height: expect.any(Number), caught_up_at: before });
      expect(record.last_success_at! > before, chain).toBe(true);
      expect(record.cursor_height, chain).toBe(record.tip_height);
    }
    forgetSourceHealth();
    for (const currency of CHAINS) {
      expectError(await checkout(currency), 400, 'PAYMENT_NOT_AVAILABLE', `${currency} is not available right now: its payment source is lagging`);
    }
    const view = await (await fetch(`${api.url}/v1/health`)).json();
    for (const chain of CHAINS)
      expect(
        view.sources.find((entry: { source: string }) => entry.source === chain),
        chain,
      ).toMatchObject({ state: 'lagging' });
  });

  it('is caught up again at the first look after a new block, and its currencies are offered', async () => {
    for (const chain of [btc, ltc, bch]) chain.mineEmpty(1);
    await ethRpc('evm_setNextBlockTimestamp', [nowSeconds()]);
    await ethRpc('evm_mine');
    for (const chain of CHAINS) expect(await look(chain)).toMatchObject({ idle: true, steps: 1, failures: 0 });
    const records = await health();
    for (const chain of CHAINS) expect(records.get(chain)!.caught_up_at, chain).toBe(records.get(chain)!.checked_at);
    forgetSourceHealth();
    for (const currency of CHAINS) {
      const response = await checkout(currency);
      expect(response.status, `${currency}: ${response.text}`).toBe(200);
    }
  });
});

describe("the tip's time costs (nothing, or one request per new block)", () => {
  it("a Core node without getblockchaininfo's time is asked the tip's header once per new tip; with it, never", async () => {
    const asked = async (tipTime: boolean) => {
      const chain = new UtxoChain('LTC');
      const { server, url } = await coreNode(chain, tipTime);
      const source = new CoreRpcSource({ chain: 'LTC', url });
      const tips = [];
      for (let i = 0; i < 5; i += 1) tips.push(await source.tip());
      chain.mineEmpty(1);
      for (let i = 0; i < 5; i += 1) tips.push(await source.tip());
      expect(tips.map((tip) => tip.time!.getTime() / 1000)).toEqual([...Array(5).fill(chain.blocks.at(-2)!.time), ...Array(5).fill(chain.tip.time)]);
      return { headers: server.requests.get('getblockheader') ?? 0, infos: server.requests.get('getblockchaininfo') ?? 0 };
    };
    expect(await asked(false)).toEqual({ headers: 2, infos: 10 });
    expect(await asked(true)).toEqual({ headers: 0, infos: 10 });
  });

  it('an Esplora server is asked nothing more: the tip block read for its height has its time', async () => {
    const chain = new UtxoChain('BTC');
    const server = await startEsploraServer(chain);
    servers.push(server);
    const source = new EsploraSource({ chain: 'BTC', baseUrl: server.url });
    await source.tip(); // the chain check's reads, once
    const before = [...server.requests.values()].reduce((sum, n) => sum + n, 0);
    for (let i = 0; i < 5; i += 1) expect((await source.tip()).time!.getTime() / 1000).toBe(chain.tip.time);
    expect([...server.requests.values()].reduce((sum, n) => sum + n, 0) - before).toBe(10);
    expect(server.requests.get(`/block/${chain.tip.hash}`)).toBe(6);
  });
});
