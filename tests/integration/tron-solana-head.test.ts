/**
 * Whether TRON's and Solana's sources see now (issue 21: a source that fails or lags is not
 * offered). A per-address source's step with nothing due asks it nothing about transfers, so
 * each step also asks its newest final block (TRON: /walletsolidity/getnowblock; Solana:
 * getSlot finalized and getBlockTime) at most once a minute, an idle look too: an API that is
 * down fails the step, a node whose newest final block is too old is reported not caught up and
 * its lag grows until it is `lagging`, and a buyer is not offered its currency meanwhile.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import { SourceError } from '#shared/core/source-error';
import { newSolanaReference } from '#shared/payments/addresses/solana';
import { forgetSourceHealth } from '#shared/payments/source-health';
import { createMerchant, type MerchantCredentials } from '#shared/services/merchants';
import { tableName } from '#shared/store/client';
import { listSourceHealth } from '#shared/store/source-health';
import { MAX_HEAD_AGE_SECONDS } from '#shared/watchers/sources/head-check';
import { SolanaTransfers } from '#shared/watchers/sources/solana';
import { TronTransfers } from '#shared/watchers/sources/tron';
import { client, expectError, startApi } from '../support/api';
import { MAINNET_BETA_GENESIS_HASH, SolanaTestServer } from '../support/solana-server';
import { TronGridTestServer } from '../support/trongrid-server';
import { testXpub } from '../support/watchers';
import { invokeWatcherOnce } from '../support/stepped';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const FAST = { timeoutMs: 500, attempts: 1, backoffMs: 5 };
const STUCK_MS = 30 * 60_000;

const servers: { close: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});
async function tronServer() {
  const server = await new TronGridTestServer([{ address: USDT, symbol: 'USDT', name: 'Tether USD', decimals: 6 }]).start();
  servers.push(server);
  return server;
}
async function solanaServer() {
  const server = await new SolanaTestServer().start();
  servers.push(server);
  return server;
}
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** A clock a test moves. */
function clock() {
  let now = Date.now();
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe.each([
  {
    name: 'TRON',
    head: '/walletsolidity/getnowblock',
    make: async (time: () => Date) => {
      const server = await tronServer();
      const source = new TronTransfers({ url: server.url, contract: USDT, currency: 'USDT_TRC20', decimals: 6, http: FAST, clock: time, watched: async () => [] });
      return {
        source,
        asked: () => server.requests.get('/walletsolidity/getnowblock') ?? 0,
        stuck: (ms: number) => (server.solidHeadAgeMs = ms),
        down: () => server.fault({ kind: 'error', times: 1, match: /getnowblock/ }),
      };
    },
  },
  {
    name: 'Solana',
    head: 'getSlot',
    make: async (time: () => Date) => {
      const server = await solanaServer();
      // One try, as TRON's FAST: the source's JSON-RPC client retries a 503 now (json-rpc.ts), and `down` fails one request.
      const source = new SolanaTransfers({
        url: server.url,
        tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }],
        genesisHash: MAINNET_BETA_GENESIS_HASH,
        ...FAST,
        clock: time,
        watched: async () => [],
      });
      return {
        source,
        asked: () => server.requests.get('getSlot') ?? 0,
        stuck: (ms: number) => (server.finalizedAgeMs = ms),
        down: () => server.fault({ kind: 'error', times: 1, match: /getSlot/ }),
      };
    },
  },
])('$name: whether the source sees now', ({ make }) => {
  it('a step with nothing watched asks the newest final block at most once a minute and reports its height, caught up', async () => {
    const time = clock();
    const { source, asked } = await make(time.now);
    expect(source.health()).not.toHaveProperty('caughtUp');
    await source.after(undefined, 10);
    await source.after(undefined, 10);
    expect(asked()).toBe(1);
    expect(source.health()).toMatchObject({ chainOk: true, caughtUp: true, tipHeight: expect.any(Number) });
    time.advance(61_000);
    await source.after(undefined, 10);
    expect(asked()).toBe(2);
  });

  it(`a node whose newest final block is older than ${MAX_HEAD_AGE_SECONDS} s is not caught up, and is again once it moves`, async () => {
    const time = clock();
    const { source, stuck } = await make(time.now);
    stuck(STUCK_MS);
    await source.after(undefined, 10);
    expect(source.health()).toMatchObject({ caughtUp: false });
    stuck(0);
    time.advance(61_000);
    await source.after(undefined, 10);
    expect(source.health()).toMatchObject({ caughtUp: true });
  });

  it('an API that does not answer fails the step (the source goes failing), and the next step asks again', async () => {
    const time = clock();
    const { source, asked, down } = await make(time.now);
    down();
    expect(await failure(source.after(undefined, 10))).toBeInstanceOf(SourceError);
    await source.after(undefined, 10);
    expect(asked()).toBe(2);
    expect(source.health()).toMatchObject({ caughtUp: true });
  });
});

describe('a stuck TRON API and Solana node, watched for live merchants', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let call: ReturnType<typeof client>;
  let live: MerchantCredentials;

  beforeAll(async () => {
    const table = `tron-solana-head-${process.pid}`;
    await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
    process.env.TABLE_NAME = table;
    expect(tableName()).toBe(table);
    const tron = await tronServer();
    const solana = await solanaServer();
    tron.solidHeadAgeMs = STUCK_MS;
    solana.finalizedAgeMs = STUCK_MS;
    // Read on first use, after this: a lag of more than 1 s makes a source lagging.
    Object.assign(process.env, { TRON_API_URL: tron.url, SOLANA_RPC_URL: solana.url, WATCH_INTERVAL_SECONDS: '1', SOURCE_MAX_LAG_SECONDS: '1' });
    api = await startApi();
    call = client(api.url);
    live = await createMerchant({ name: 'Stuck Node Shop', sandbox: false, xpubs: { TRX: testXpub("m/44'/195'/0'") }, wallets: { SOL: newSolanaReference() } });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('each idle run succeeds but is not caught up: the lag counts from the first report, and checkout refuses USDT_TRC20 and USDC_SOL once it is past the bound', async () => {
    for (const chain of ['TRON', 'SOLANA']) expect(await invokeWatcherOnce(chain)).toMatchObject({ idle: true, steps: 1, failures: 0 });
    const records = await listSourceHealth();
    for (const source of ['TRON', 'SOLANA']) {
      const record = records.find((entry) => entry.source === source);
      expect(record).toMatchObject({ chain_ok: true, tip_height: expect.any(Number), last_success_at: expect.any(String) });
      // Never caught up: the lag starts at the first report, not never.
      expect(record?.caught_up_at).toBe(record?.checked_at);
    }
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    forgetSourceHealth();
    const created = await call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 30 } });
    expect(created.status, created.text).toBe(200);
    const id = created.body.order.order_id as string;
    for (const currency of ['USDT_TRC20', 'USDC_SOL']) {
      expectError(
        await call('POST', `/v1/orders/${id}/checkout`, { token: live.api_token, body: { pay_currency: currency } }),
        400,
        'PAYMENT_NOT_AVAILABLE',
        `${currency} is not available right now: its payment source is lagging`,
      );
    }
    const health = await (await fetch(`${api.url}/v1/health`)).json();
    for (const source of ['TRON', 'SOLANA']) expect(health.sources.find((entry: { source: string }) => entry.source === source)).toMatchObject({ state: 'lagging', lag_seconds: expect.any(Number) });
  });
});
