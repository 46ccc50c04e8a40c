/**
 * Issue 21: an idle chain's checkout starts its watcher within seconds. Checkout writes the
 * chain's demand; the table stream (DynamoDB Local, read by the local runtime's stream poller
 * with the event source mapping's filter) brings that write to the real wake-watchers handler,
 * which invokes the chain's watch-chain function through the Lambda Invoke API. Here a local
 * stand-in for that API (LAMBDA_ENDPOINT) records each invocation and runs the watcher in
 * process, as Lambda would run the function.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import type { StreamPoller } from '#infra/local/stream-poller';
import type { SteppedSummary } from '#shared/watchers/stepped';
import type { FaultyServer } from '../support/chain-http';
import { startEsploraServer } from '../support/esplora-server';
import { TronGridTestServer } from '../support/trongrid-server';
import { UtxoChain } from '../support/utxo-chain';

const TABLE = `wake-watchers-${process.pid}`;
const FUNCTIONS = { BTC: 'watch-chain-btc', LTC: 'watch-chain-ltc' };

interface Invocation {
  functionName: string;
  invocationType: string | undefined;
  authorization: string | undefined;
  payload: unknown;
  /** The watcher run the invocation started (as Lambda runs the function). */
  run: Promise<SteppedSummary>;
}

let esplora: FaultyServer;
let tron: TronGridTestServer;
let lambdaApi: Server;
let poller: StreamPoller;
const invocations: Invocation[] = [];
let modules: {
  demand: typeof import('#shared/store/watch-demand');
  steps: typeof import('../support/stepped');
};

const body = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

beforeAll(async () => {
  const endpoint = inject('dynamodbEndpoint');
  await ensureTable(endpoint, TABLE);
  esplora = await startEsploraServer(new UtxoChain('BTC'));
  tron = await new TronGridTestServer([{ address: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', symbol: 'USDT', name: 'Tether USD', decimals: 6 }]).start();
  lambdaApi = createServer(async (request, response) => {
    const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(request.url ?? '');
    const text = await body(request);
    if (request.method !== 'POST' || !match) return void response.writeHead(404).end();
    const functionName = decodeURIComponent(match[1]!);
    const chain = Object.entries(FUNCTIONS).find(([, name]) => name === functionName)?.[0];
    if (!chain) return void response.writeHead(404).end('{"Type":"User","Message":"Function not found"}');
    invocations.push({
      functionName,
      invocationType: request.headers['x-amz-invocation-type'] as string | undefined,
      authorization: request.headers.authorization,
      payload: JSON.parse(text),
      run: firstStep(chain),
    });
    response.writeHead(202).end();
  });
  await new Promise<void>((resolve) => lambdaApi.listen(0, '127.0.0.1', resolve));
  // The wake function's environment as the stack sets it (AWS_REGION is Lambda's), and a BTC source for the runs.
  Object.assign(process.env, {
    TABLE_NAME: TABLE,
    WATCHER_FUNCTIONS: JSON.stringify(FUNCTIONS),
    LAMBDA_ENDPOINT: `http://127.0.0.1:${(lambdaApi.address() as AddressInfo).port}`,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    BTC_ESPLORA_URL: esplora.url,
    TRON_API_URL: tron.url,
    WATCH_INTERVAL_SECONDS: '1',
  });
  modules = { demand: await import('#shared/store/watch-demand'), steps: await import('../support/stepped') };
  const { handler } = await import('#functions/wake-watchers/handler');
  const { startStreamPoller } = await import('#infra/local/stream-poller');
  poller = await startStreamPoller({ endpoint, tableName: TABLE, handler, filter: modules.demand.isWatchDemandChange, pollIntervalMs: 50 });
});

afterAll(async () => {
  await poller?.stop();
  await Promise.all(invocations.map((invocation) => invocation.run.catch(() => undefined)));
  await new Promise((resolve) => lambdaApi?.close(resolve));
  await esplora?.close();
  await tron?.close();
});

const inAnHour = () => new Date(Date.now() + 3_600_000);

/** The invoked function's run (as Lambda runs it): one invocation without a tick, as a wake's. */
const firstStep = (chain: string): Promise<SteppedSummary> => modules.steps.invokeWatcherOnce(chain);

describe('wake-watchers', () => {
  it("an idle chain's checkout starts its watcher at once: one asynchronous invocation, and the run polls", async () => {
    const { demandWatching, watchingNeeded } = modules.demand;
    expect(await watchingNeeded('BTC', new Date())).toBe(false);
    await demandWatching('BTC', inAnHour());
    await poller.drain();
    expect(invocations).toEqual([
      expect.objectContaining({
        functionName: FUNCTIONS.BTC,
        invocationType: 'Event',
        authorization: expect.stringMatching(/^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/[a-z0-9-]+\/lambda\/aws4_request, SignedHeaders=[^,]*x-amz-invocation-type[^,]*, Signature=[0-9a-f]{64}$/),
        payload: { source: 'wake-watchers', chain: 'BTC' },
      }),
    ]);
    const run = await invocations[0]!.run;
    // Not the idle look: the run found the demand, took the lease, stepped the chain and sent its next step.
    expect(run).toMatchObject({ next: { delaySeconds: 1, failures: 0 } });
    expect(run.steps).toBeGreaterThanOrEqual(1);
  });

  it("a busy chain's checkout wakes nothing: the same few minutes' demand is not written again, a later one finds the demand live", async () => {
    const { demandHorizon, demandWatching } = modules.demand;
    const before = invocations.length;
    const until = inAnHour();
    // Checkouts of the same five minutes ask for the same rounded horizon: no write, no stream record.
    expect(demandHorizon(until).getTime() % 300_000).toBe(0);
    await demandWatching('BTC', until);
    // A horizon past the stored one is written (a MODIFY whose old demand was still live).
    await demandWatching('BTC', new Date(until.getTime() + 600_000));
    await poller.drain();
    expect(invocations.length).toBe(before);
  });

  it('a chain whose lease a run holds is not woken: that run polls it', async () => {
    const { demandWatching, takeWatchLease, releaseWatchLease } = modules.demand;
    const before = invocations.length;
    expect(await takeWatchLease('LTC', 'polling-run', new Date(Date.now() + 60_000), new Date())).toBe(true);
    await demandWatching('LTC', inAnHour());
    await poller.drain();
    expect(invocations.length).toBe(before);
    await releaseWatchLease('LTC', 'polling-run');
  });

  it('a run that finds the lease held leaves the chain to the line stepping it: it asks the source nothing', async () => {
    const { takeWatchLease, releaseWatchLease } = modules.demand;
    // LTC: in demand since the test above; it has no source here, so a run that stepped it would throw.
    expect(await takeWatchLease('LTC', 'stepping-line', new Date(Date.now() + 60_000), new Date())).toBe(true);
    const ticks = modules.steps.keptTicks();
    expect(await modules.steps.invokeWatcherOnce('LTC', undefined, { send: ticks.send })).toEqual({ steps: 0, failures: 0, leased: true });
    expect(ticks.sent).toEqual([]);
    await releaseWatchLease('LTC', 'stepping-line');
  });
});

describe('TRON on the demand model (issue 21)', () => {
  it("an idle run is one step: the container's first asks TronGrid its network once (block 0) and its newest solidified block, one within the minute nothing (no address watched), reported healthy as trongrid", async () => {
    const { listSourceHealth } = await import('#shared/store/source-health');
    const requests = () => [...tron.requests.values()].reduce((sum, n) => sum + n, 0);
    const before = requests();
    const run = await modules.steps.invokeWatcherOnce('TRON');
    expect(run).toMatchObject({ steps: 1, failures: 0, idle: true });
    expect(requests()).toBe(before + 2);
    expect(tron.requests.get('/wallet/getblockbynum')).toBe(1);
    expect(tron.requests.get('/walletsolidity/getnowblock')).toBe(1);
    const health = (await listSourceHealth()).find((record) => record.source === 'TRON');
    expect(health).toMatchObject({ kind: 'trongrid', last_success_at: expect.any(String), chain_ok: true, tip_height: expect.any(Number), caught_up_at: expect.any(String) });
    expect(health?.last_error_at).toBeUndefined();
    // The next idle look (past WATCH_IDLE_LOOK_SECONDS) within the source's minute: a step again, and nothing asked.
    const later = await modules.steps.invokeWatcherOnce('TRON', undefined, { now: new Date(Date.now() + 600_000) });
    expect(later).toMatchObject({ steps: 1, failures: 0, idle: true });
    expect(requests()).toBe(before + 2);
  });
});
