/**
 * UTXO sources on the wrong chain (issue 21): an Esplora server or a Bitcoin Core-style node for
 * BTC, LTC or BCH that serves testnet, regtest or another coin is refused, as an EVM node on
 * another chain id is: its genesis block (and, for BTC and BCH, which share theirs, the block
 * after their 2017 split) is checked once per process; a mismatch fails the step with
 * WrongChainError, the health record says wrong_chain, checkouts fail closed and the page hides
 * the currency; an invoice already open stays as it was.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import { SourceError, WrongChainError } from '#shared/core/source-error';
import { forgetSourceHealth } from '#shared/payments/source-health';
import { MAINNET_IDENTITIES, readUtxoChainConfig } from '#shared/chains/utxo';
import { createMerchant, type MerchantCredentials } from '#shared/services/merchants';
import { tableName } from '#shared/store/client';
import { listSourceHealth } from '#shared/store/source-health';
import { CoreRpcSource } from '#shared/watchers/sources/core-rpc';
import { EsploraSource } from '#shared/watchers/sources/esplora';
import { client, expectError, startApi } from '../support/api';
import type { FaultyServer } from '../support/chain-http';
import { startCoreRpcServer } from '../support/core-rpc-server';
import { startEsploraServer } from '../support/esplora-server';
import { reportHealthy } from '../support/source-health';
import { UtxoChain, type UtxoChainName, type UtxoChainOptions } from '../support/utxo-chain';
import { testXpub } from '../support/watchers';
import { invokeWatcherOnce } from '../support/stepped';

/** Public chain parameters (Bitcoin Core's chainparams.cpp): testnet3's and regtest's genesis blocks. */
const BTC_TESTNET_GENESIS = '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943';
const BTC_REGTEST_GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
const FAST = { timeoutMs: 300, attempts: 2, backoffMs: 5 };

const servers: FaultyServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function esplora(name: UtxoChainName, options: UtxoChainOptions = {}, startHeight?: number) {
  const server = await startEsploraServer(new UtxoChain(name, startHeight, options));
  servers.push(server);
  return server;
}
async function coreRpc(name: UtxoChainName, options: UtxoChainOptions = {}, startHeight?: number) {
  const server = await startCoreRpcServer(new UtxoChain(name, startHeight, options), { user: 'watcher', password: 'secret', addressStyle: 'address' });
  servers.push(server);
  return server.url.replace('http://', 'http://watcher:secret@');
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('the chain check of the UTXO sources', () => {
  it('a mainnet server passes: genesis and the block after the fork are asked once per process, and the health says so', async () => {
    const server = await esplora('BTC');
    const source = new EsploraSource({ chain: 'BTC', baseUrl: server.url, http: FAST });
    expect(source.health().chainOk).toBeUndefined();
    for (let i = 0; i < 3; i += 1) await source.tip();
    expect(source.health()).toEqual({ chainOk: true, currencyErrors: {} });
    expect(server.requests.get('/block-height/0')).toBe(1);
    expect(server.requests.get('/block-height/478559')).toBe(1);
    // LTC has a genesis of its own: nothing else to ask.
    const ltc = await esplora('LTC');
    await new EsploraSource({ chain: 'LTC', baseUrl: ltc.url, http: FAST }).tip();
    expect([...ltc.requests.keys()].filter((path) => path.startsWith('/block-height/'))).toEqual(['/block-height/0']);
  });

  it('refuses a testnet Esplora and an LTC source pointed at a Bitcoin server (another genesis)', async () => {
    const testnet = new EsploraSource({ chain: 'BTC', baseUrl: (await esplora('BTC', { identity: { genesisHash: BTC_TESTNET_GENESIS } })).url, http: FAST });
    const error = await failure(testnet.tip());
    expect(error).toBeInstanceOf(WrongChainError);
    expect((error as Error).message).toMatch(new RegExp(`genesis block is ${BTC_TESTNET_GENESIS}.*expected ${MAINNET_IDENTITIES.BTC.genesisHash}`));
    expect(testnet.health().chainOk).toBe(false);
    const ltcOnBitcoin = new EsploraSource({ chain: 'LTC', baseUrl: (await esplora('BTC')).url, http: FAST });
    expect(await failure(ltcOnBitcoin.tip())).toBeInstanceOf(WrongChainError);
  });

  it('refuses a regtest node, naming the chain the node says it is on', async () => {
    const source = new CoreRpcSource({ chain: 'BTC', url: await coreRpc('BTC', { identity: { genesisHash: BTC_REGTEST_GENESIS }, network: 'regtest' }), http: FAST });
    const error = await failure(source.tip());
    expect(error).toBeInstanceOf(WrongChainError);
    expect((error as Error).message).toContain('(it says chain "regtest")');
    expect(source.health().chainOk).toBe(false);
  });

  it('tells BCH from BTC by the block after their split (they share the genesis), both ways', async () => {
    const bchOnBitcoin = new CoreRpcSource({ chain: 'BCH', url: await coreRpc('BCH', { identity: MAINNET_IDENTITIES.BTC }), http: FAST });
    const error = await failure(bchOnBitcoin.tip());
    expect(error).toBeInstanceOf(WrongChainError);
    expect((error as Error).message).toMatch(new RegExp(`block 478559 is ${MAINNET_IDENTITIES.BTC.checkpoint!.hash}.*expected ${MAINNET_IDENTITIES.BCH.checkpoint!.hash}`));
    const btcOnCash = new CoreRpcSource({ chain: 'BTC', url: await coreRpc('BTC', { identity: MAINNET_IDENTITIES.BCH }), http: FAST });
    expect(await failure(btcOnCash.tip())).toBeInstanceOf(WrongChainError);
    const bch = new CoreRpcSource({ chain: 'BCH', url: await coreRpc('BCH'), http: FAST });
    expect((await bch.tip()).height).toBe(800_000);
    expect(bch.health().chainOk).toBe(true);
  });

  it('a node not synced past the split cannot be told apart yet: a failing step, not a wrong chain', async () => {
    const young = new CoreRpcSource({ chain: 'BTC', url: await coreRpc('BTC', {}, 400_000), http: FAST });
    const error = await failure(young.tip());
    expect(error).toBeInstanceOf(SourceError);
    expect(error).not.toBeInstanceOf(WrongChainError);
    expect((error as Error).message).toMatch(/has no block 478559 yet/);
    expect(young.health().chainOk).toBeUndefined();
  });

  it('asks again after a mismatch: a source that is fixed is taken back without a restart', async () => {
    const server = await esplora('BTC');
    server.fault({ kind: 'garbage', times: 1, match: /^\/block-height\/0$/, body: BTC_TESTNET_GENESIS });
    const source = new EsploraSource({ chain: 'BTC', baseUrl: server.url, http: FAST });
    expect(await failure(source.tip())).toBeInstanceOf(WrongChainError);
    await source.tip();
    expect(source.health().chainOk).toBe(true);
  });

  it('takes the configured chain: a testnet genesis (then no fork checkpoint unless one is set)', async () => {
    const identities = readUtxoChainConfig({ BTC_GENESIS_HASH: BTC_TESTNET_GENESIS });
    expect(identities.BTC).toEqual({ genesisHash: BTC_TESTNET_GENESIS });
    const onTestnet = new EsploraSource({ chain: 'BTC', baseUrl: (await esplora('BTC', { identity: identities.BTC })).url, http: FAST, identity: identities.BTC });
    await onTestnet.tip();
    expect(onTestnet.health().chainOk).toBe(true);
    const onMainnet = new EsploraSource({ chain: 'BTC', baseUrl: (await esplora('BTC')).url, http: FAST, identity: identities.BTC });
    expect(await failure(onMainnet.tip())).toBeInstanceOf(WrongChainError);
  });
});

describe('a watched chain whose source is on testnet', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let call: ReturnType<typeof client>;
  let live: MerchantCredentials;

  beforeAll(async () => {
    const table = `utxo-chain-check-${process.pid}`;
    await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
    process.env.TABLE_NAME = table;
    expect(tableName()).toBe(table);
    // Read on first use, after this: BTC watched through a testnet server, mainnet expected (the default).
    const server = await esplora('BTC', { identity: { genesisHash: BTC_TESTNET_GENESIS }, network: 'test' });
    Object.assign(process.env, { BTC_ESPLORA_URL: server.url, WATCH_INTERVAL_SECONDS: '1' });
    api = await startApi();
    call = client(api.url);
    live = await createMerchant({ name: 'Wrong Chain Shop', sandbox: false, xpubs: { BTC: testXpub() } });
  });
  afterAll(async () => {
    await api?.close();
  });

  async function checkout() {
    const created = await call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 30 } });
    const id = created.body.order.order_id as string;
    return { id, response: await call('POST', `/v1/orders/${id}/checkout`, { token: live.api_token, body: { pay_currency: 'BTC' } }) };
  }

  it("the watcher's run records wrong_chain; checkout refuses BTC and the page hides it; the invoice already open is kept", async () => {
    // Before the watcher ran, as if its source had been healthy: an invoice is opened.
    await reportHealthy('BTC', 'esplora');
    const open = await checkout();
    expect(open.response.status, open.response.text).toBe(200);

    const summary = await invokeWatcherOnce('BTC');
    expect(summary.failures).toBeGreaterThan(0);
    const record = (await listSourceHealth()).find((entry) => entry.source === 'BTC');
    expect(record).toMatchObject({ kind: 'esplora', chain_ok: false, last_error: expect.stringMatching(/genesis block is 000000000933ea01/) });
    expect(record!.last_error).not.toContain('127.0.0.1');

    forgetSourceHealth();
    const refused = await checkout();
    expectError(refused.response, 400, 'PAYMENT_NOT_AVAILABLE', 'wrong chain');
    const page = await call('GET', `/v1/pay/${refused.id}`);
    expect(page.status).toBe(200);
    expect(page.body.currencies).not.toContain('BTC');
    const kept = await call('GET', `/v1/orders/${open.id}`, { token: live.api_token });
    expect(kept.body.invoice).toMatchObject({ pay_currency: 'BTC', payment_address: open.response.body.invoice.payment_address });
  });
});
