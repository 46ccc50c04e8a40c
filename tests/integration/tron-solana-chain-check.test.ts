/**
 * TRON and Solana sources on the wrong network (issue 21): a TronGrid-compatible API serving
 * Shasta or Nile, or a Solana node on devnet or testnet, is refused as a UTXO node on testnet
 * is: block 0's blockID (TRON) or the genesis hash (Solana) is checked once per process; a
 * mismatch fails the step with WrongChainError naming the hashes (and networks) expected and
 * found, the health record says wrong_chain, USDT_TRC20 / USDC_SOL checkouts answer
 * PAYMENT_NOT_AVAILABLE, the page hides them and GET /v1/health shows wrong_chain with nothing
 * secret; once the source serves mainnet, the next run takes it back.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import { SourceError, WrongChainError } from '#shared/core/source-error';
import { newSolanaReference } from '#shared/payments/addresses/solana';
import { forgetSourceHealth } from '#shared/payments/source-health';
import { createMerchant, type MerchantCredentials } from '#shared/services/merchants';
import { tableName } from '#shared/store/client';
import { listSourceHealth } from '#shared/store/source-health';
import { SolanaTransfers } from '#shared/watchers/sources/solana';
import { TronTransfers } from '#shared/watchers/sources/tron';
import type { WatchEntry } from '#shared/watchers/sources/per-address';
import { client, expectError, startApi } from '../support/api';
import { DEVNET_GENESIS_HASH, MAINNET_BETA_GENESIS_HASH, SolanaTestServer, TESTNET_GENESIS_HASH } from '../support/solana-server';
import { TRON_MAINNET_GENESIS, TRON_NILE_GENESIS, TRON_SHASTA_GENESIS, tronAddressOfKey, TronGridTestServer } from '../support/trongrid-server';
import { testXpub } from '../support/watchers';
import { invokeWatcherOnce } from '../support/stepped';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const API_KEY = 'tron-api-key-s3cret';
const FAST = { timeoutMs: 500, attempts: 1, backoffMs: 5 };
/** An address with an open invoice: a step that passes the check reads the blocks' transfer events. */
const WATCHED: WatchEntry[] = [{ address: tronAddressOfKey('3'.repeat(64)), currency: 'USDT_TRC20', since: new Date().toISOString() }];

const servers: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

async function tronServer(genesis?: string) {
  const server = await new TronGridTestServer([{ address: USDT, symbol: 'USDT', name: 'Tether USD', decimals: 6 }], API_KEY).start();
  if (genesis) server.genesisBlockId = genesis;
  servers.push(server);
  return server;
}
async function solanaServer(genesis?: string) {
  const server = await new SolanaTestServer(genesis).start();
  servers.push(server);
  return server;
}
const tronSource = (url: string, genesisHash?: string, watched: WatchEntry[] = []) =>
  new TronTransfers({ url, apiKey: API_KEY, contract: USDT, currency: 'USDT_TRC20', decimals: 6, http: FAST, watched: async () => watched, ...(genesisHash ? { genesisHash } : {}) });
const solanaSource = (url: string, genesisHash = MAINNET_BETA_GENESIS_HASH) =>
  new SolanaTransfers({ url, tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }], genesisHash, timeoutMs: 500, watched: async () => [] });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('the chain check of the TRON source', () => {
  it('a mainnet API passes: block 0 is asked once per process, not per step, and the health says so', async () => {
    const server = await tronServer();
    const source = tronSource(server.url);
    expect(source.health().chainOk).toBeUndefined();
    for (let i = 0; i < 3; i += 1) await source.after(undefined, 10);
    expect(source.health()).toEqual({ chainOk: true, currencyErrors: {}, caughtUp: true, tipHeight: expect.any(Number) });
    expect(server.requests.get('/wallet/getblockbynum')).toBe(1);
  });

  it('refuses Nile and Shasta before reading anything, naming the networks and hashes; nothing secret in the error', async () => {
    for (const [genesis, name] of [
      [TRON_NILE_GENESIS, 'Nile testnet'],
      [TRON_SHASTA_GENESIS, 'Shasta testnet'],
    ]) {
      const server = await tronServer(genesis);
      const source = tronSource(server.url, undefined, WATCHED);
      const error = await failure(source.after(undefined, 10));
      expect(error).toBeInstanceOf(WrongChainError);
      expect((error as Error).message).toBe(`TRON API: node's genesis block is ${genesis} (${name}), expected ${TRON_MAINNET_GENESIS} (TRON mainnet): it is on another network or coin`);
      expect(source.health().chainOk).toBe(false);
      expect([...server.requests.keys()]).toEqual(['/wallet/getblockbynum']);
    }
  });

  it('asks again after a mismatch: an API that is fixed is taken back without a restart', async () => {
    const server = await tronServer(TRON_NILE_GENESIS);
    const source = tronSource(server.url, undefined, WATCHED);
    expect(await failure(source.after(undefined, 10))).toBeInstanceOf(WrongChainError);
    server.genesisBlockId = TRON_MAINNET_GENESIS;
    await source.after(undefined, 10);
    expect(source.health().chainOk).toBe(true);
    expect(server.requests.get('eth_getLogs')).toBe(1);
  });

  it("takes the configured network (a Shasta deployment), and then refuses mainnet's", async () => {
    const onShasta = tronSource((await tronServer(TRON_SHASTA_GENESIS)).url, TRON_SHASTA_GENESIS);
    await onShasta.after(undefined, 10);
    expect(onShasta.health().chainOk).toBe(true);
    const onMainnet = tronSource((await tronServer()).url, TRON_SHASTA_GENESIS);
    const error = await failure(onMainnet.after(undefined, 10));
    expect(error).toBeInstanceOf(WrongChainError);
    expect((error as Error).message).toContain(`is ${TRON_MAINNET_GENESIS} (TRON mainnet), expected ${TRON_SHASTA_GENESIS} (Shasta testnet)`);
  });

  it('an API without block 0, or answering garbage for it, fails the step but is not called a wrong chain', async () => {
    const server = await tronServer();
    const source = tronSource(server.url);
    server.fault({ kind: 'garbage', times: 1, match: /getblockbynum/, body: '{}' });
    const none = await failure(source.after(undefined, 10));
    expect(none).toBeInstanceOf(SourceError);
    expect(none).not.toBeInstanceOf(WrongChainError);
    expect((none as Error).message).toBe('TRON API: has no genesis block');
    server.fault({ kind: 'garbage', times: 1, match: /getblockbynum/, body: '{"blockID":"nope"}' });
    const garbage = await failure(source.after(undefined, 10));
    expect(garbage).not.toBeInstanceOf(WrongChainError);
    expect((garbage as Error).message).toMatch(/getblockbynum 0 did not answer that block/);
    expect(source.health().chainOk).toBeUndefined();
    await source.after(undefined, 10);
    expect(source.health().chainOk).toBe(true);
  });
});

describe('the chain check of the Solana source', () => {
  it('a mainnet-beta node passes: getGenesisHash is asked once per process', async () => {
    const server = await solanaServer();
    const source = solanaSource(server.url);
    for (let i = 0; i < 3; i += 1) await source.after(undefined, 10);
    expect(source.health()).toEqual({ chainOk: true, currencyErrors: {}, caughtUp: true, tipHeight: expect.any(Number) });
    expect(server.requests.get('getGenesisHash')).toBe(1);
  });

  it('refuses devnet and testnet as a wrong chain (not a failing source), naming the clusters; a fixed node is taken back', async () => {
    for (const [genesis, name] of [
      [DEVNET_GENESIS_HASH, 'devnet'],
      [TESTNET_GENESIS_HASH, 'testnet'],
    ]) {
      const server = await solanaServer(genesis);
      const source = solanaSource(server.url);
      const error = await failure(source.after(undefined, 10));
      expect(error).toBeInstanceOf(WrongChainError);
      expect((error as Error).message).toBe(`SOLANA RPC: node's genesis block is ${genesis} (${name}), expected ${MAINNET_BETA_GENESIS_HASH} (mainnet-beta): it is on another network or coin`);
      expect(source.health().chainOk).toBe(false);
      server.genesisHash = MAINNET_BETA_GENESIS_HASH;
      await source.after(undefined, 10);
      expect(source.health().chainOk).toBe(true);
    }
  });

  it('a node that answers garbage for its genesis fails the step, not as a wrong chain', async () => {
    const server = await solanaServer();
    server.fault({ kind: 'garbage', times: 1, match: /getGenesisHash/, body: '{"jsonrpc":"2.0","id":1,"result":42}' });
    const error = await failure(solanaSource(server.url).after(undefined, 10));
    expect(error).toBeInstanceOf(SourceError);
    expect(error).not.toBeInstanceOf(WrongChainError);
  });
});

describe('TRON on Nile and Solana on devnet, watched for live merchants', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let call: ReturnType<typeof client>;
  let live: MerchantCredentials;
  let tron: TronGridTestServer;
  let solana: SolanaTestServer;

  beforeAll(async () => {
    const table = `tron-solana-chain-check-${process.pid}`;
    await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
    process.env.TABLE_NAME = table;
    expect(tableName()).toBe(table);
    tron = await tronServer(TRON_NILE_GENESIS);
    solana = await solanaServer(DEVNET_GENESIS_HASH);
    // Read on first use, after this: mainnet expected (the defaults), the sources serve testnets.
    Object.assign(process.env, { TRON_API_URL: tron.url, TRON_API_KEY: API_KEY, SOLANA_RPC_URL: solana.url, WATCH_INTERVAL_SECONDS: '1' });
    api = await startApi();
    call = client(api.url);
    live = await createMerchant({ name: 'Testnet Shop', sandbox: false, xpubs: { TRX: testXpub("m/44'/195'/0'") }, wallets: { SOL: newSolanaReference() } });
  });
  afterAll(async () => {
    await api?.close();
  });

  async function order() {
    const created = await call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 30 } });
    expect(created.status, created.text).toBe(200);
    return created.body.order.order_id as string;
  }
  const checkout = (id: string, currency: string) => call('POST', `/v1/orders/${id}/checkout`, { token: live.api_token, body: { pay_currency: currency } });
  const record = async (source: string) => (await listSourceHealth()).find((entry) => entry.source === source);
  const healthOf = (body: { sources: { source: string }[] }, source: string) => body.sources.find((entry) => entry.source === source);

  it("each watcher's run records wrong_chain; checkout refuses USDT_TRC20 and USDC_SOL, the page hides them, GET /v1/health says wrong_chain with nothing secret", async () => {
    for (const chain of ['TRON', 'SOLANA']) expect(await invokeWatcherOnce(chain)).toMatchObject({ idle: true, failures: 1 });
    expect(await record('TRON')).toMatchObject({
      kind: 'trongrid',
      chain_ok: false,
      last_error: expect.stringContaining(`genesis block is ${TRON_NILE_GENESIS} (Nile testnet), expected ${TRON_MAINNET_GENESIS} (TRON mainnet)`),
    });
    expect(await record('SOLANA')).toMatchObject({
      kind: 'solana-rpc',
      chain_ok: false,
      last_error: expect.stringContaining(`genesis block is ${DEVNET_GENESIS_HASH} (devnet), expected ${MAINNET_BETA_GENESIS_HASH} (mainnet-beta)`),
    });
    for (const source of ['TRON', 'SOLANA']) {
      const { last_error } = (await record(source))!;
      for (const secret of ['127.0.0.1', new URL(tron.url).host, new URL(solana.url).host, API_KEY]) expect(last_error).not.toContain(secret);
    }

    forgetSourceHealth();
    const id = await order();
    for (const currency of ['USDT_TRC20', 'USDC_SOL'])
      expectError(await checkout(id, currency), 400, 'PAYMENT_NOT_AVAILABLE', `${currency} is not available right now: its payment source is wrong chain`);
    const page = await call('GET', `/v1/pay/${id}`);
    expect(page.status).toBe(200);
    expect(page.body.currencies).not.toContain('USDT_TRC20');
    expect(page.body.currencies).not.toContain('USDC_SOL');

    const response = await fetch(`${api.url}/v1/health`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text);
    expect(body.healthy).toBe(false);
    expect(healthOf(body, 'TRON')).toMatchObject({ kind: 'trongrid', state: 'wrong_chain', chain_ok: false, currencies: { USDT_TRC20: 'wrong_chain' } });
    expect(healthOf(body, 'SOLANA')).toMatchObject({ kind: 'solana-rpc', state: 'wrong_chain', chain_ok: false, currencies: { USDC_SOL: 'wrong_chain' } });
    for (const secret of ['127.0.0.1', API_KEY, 'genesis', TRON_NILE_GENESIS, '"last_error"']) expect(text).not.toContain(secret);
  });

  it('once the sources serve mainnet, the next run reports them healthy on the right chain and both currencies are offered again', async () => {
    tron.genesisBlockId = TRON_MAINNET_GENESIS;
    solana.genesisHash = MAINNET_BETA_GENESIS_HASH;
    for (const chain of ['TRON', 'SOLANA']) expect(await invokeWatcherOnce(chain)).toMatchObject({ idle: true, steps: 1, failures: 0 });
    for (const source of ['TRON', 'SOLANA']) expect(await record(source)).toMatchObject({ chain_ok: true, last_success_at: expect.any(String) });

    forgetSourceHealth();
    const body = await (await fetch(`${api.url}/v1/health`)).json();
    expect(healthOf(body, 'TRON')).toMatchObject({ state: 'ok', chain_ok: true, currencies: { USDT_TRC20: 'ok' } });
    expect(healthOf(body, 'SOLANA')).toMatchObject({ state: 'ok', chain_ok: true, currencies: { USDC_SOL: 'ok' } });
    const id = await order();
    const page = await call('GET', `/v1/pay/${id}`);
    expect(page.body.currencies).toEqual(expect.arrayContaining(['USDT_TRC20', 'USDC_SOL']));
    const tronCheckout = await checkout(id, 'USDT_TRC20');
    expect(tronCheckout.status, tronCheckout.text).toBe(200);
    const solCheckout = await checkout(await order(), 'USDC_SOL');
    expect(solCheckout.status, solCheckout.text).toBe(200);
  });
});
