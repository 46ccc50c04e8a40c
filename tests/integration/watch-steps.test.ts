/**
 * Issue 28, item 2: a chain in demand is stepped, not waited on. Each invocation steps once and
 * sends the next step as a delayed message; the minute's schedule starts a line only when
 * nobody holds the chain's lease, and a line claims it again every minute (shared/watchers/stepped.ts).
 *
 * The line's parts are the real ones: the step timer's queue on the SQS emulator, a poller that
 * feeds it to the tick-watchers handler as Lambda's SQS event source does, that handler's signed
 * Invoke to a local stand-in of the Lambda API, which runs the watch-chain handler as Lambda
 * would run the function, against a local Esplora server.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import type { QueuePoller } from '#infra/local/queue-poller';
import type { FaultyServer } from '../support/chain-http';
import { startEsploraServer } from '../support/esplora-server';
import { UtxoChain } from '../support/utxo-chain';

const TABLE = `watch-steps-${process.pid}`;
const chain = new UtxoChain('BTC');
let esplora: FaultyServer;
let lambdaApi: Server;
let poller: QueuePoller | undefined;
let queueUrl: string;
/** Each invocation the Lambda API stand-in ran: its event and what the function answered (or its error). */
const invocations: { event: Record<string, unknown>; result: Promise<unknown> }[] = [];

let modules: {
  demand: typeof import('#shared/store/watch-demand');
  stepped: typeof import('#shared/watchers/stepped');
  steps: typeof import('../support/stepped');
  keys: typeof import('#shared/store/keys');
  client: typeof import('#shared/store/client');
};

const body = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};
const context = { getRemainingTimeInMillis: () => 120_000 } as unknown as Context;

beforeAll(async () => {
  await ensureTable(inject('dynamodbEndpoint'), TABLE, { stream: false });
  esplora = await startEsploraServer(chain);
  const { handler: watchChain } = await import('#functions/watch-chain/handler');
  lambdaApi = createServer(async (request, response) => {
    const text = await body(request);
    if (request.method !== 'POST' || request.url !== '/2015-03-31/functions/watch-chain-btc/invocations') return void response.writeHead(404).end();
    const event = JSON.parse(text) as Record<string, unknown>;
    invocations.push({ event, result: watchChain(event, context).catch((error: unknown) => error) });
    response.writeHead(202).end();
  });
  await new Promise<void>((resolve) => lambdaApi.listen(0, '127.0.0.1', resolve));
  modules = {
    demand: await import('#shared/store/watch-demand'),
    stepped: await import('#shared/watchers/stepped'),
    steps: await import('../support/stepped'),
    keys: await import('#shared/store/keys'),
    client: await import('#shared/store/client'),
  };
  queueUrl = await modules.steps.freshQueue();
  // The watch-chain function's environment as the stack sets it, and tick-watchers' (WATCHER_FUNCTIONS).
  Object.assign(
    process.env,
    modules.steps.steppedBtcEnv({ table: TABLE, tickQueueUrl: queueUrl, lambdaEndpoint: `http://127.0.0.1:${(lambdaApi.address() as AddressInfo).port}`, esploraUrl: esplora.url }),
  );
});

afterAll(async () => {
  await poller?.stop();
  await Promise.all(invocations.map((invocation) => invocation.result));
  await new Promise((resolve) => lambdaApi?.close(resolve));
  await esplora?.close();
});

const inAnHour = () => new Date(Date.now() + 3_600_000);
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const stepsOf = (summary: unknown) => (summary as { steps?: number }).steps ?? 0;

/** Waits (polling) until `done` holds, or fails after `ms` with `what`. */
async function until(what: string, done: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('a line of steps on the real queue', () => {
  it('the minute run starts a line; each tick comes back through the queue, tick-watchers and the Lambda API as one step; a payment is booked by a step of the line', async () => {
    const { handler: tickWatchers } = await import('#functions/tick-watchers/handler');
    const { startQueuePoller } = await import('#infra/local/queue-poller');
    poller = await startQueuePoller({ endpoint: process.env.SQS_ENDPOINT!, queueUrl, handler: tickWatchers, batchSize: 10, waitTimeSeconds: 1 });
    await modules.demand.demandWatching('BTC', inAnHour());
    const { handler: watchChain } = await import('#functions/watch-chain/handler');
    // The minute's scheduled run: an EventBridge event, no tick.
    const first = await watchChain({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, context);
    expect(first).toMatchObject({ next: { delaySeconds: 1, failures: 0 } });
    // Three ticks come back, each one invocation of the watcher carrying the line's owner.
    await until('three ticks invoked', () => invocations.length >= 3);
    const ticks = invocations.slice(0, 3).map(({ event }) => event);
    for (const tick of ticks) expect(tick).toMatchObject({ source: 'watch-tick', chain: 'BTC', failures: 0 });
    expect(new Set(ticks.map((tick) => tick.owner)).size).toBe(1);
    for (const { result } of invocations.slice(0, 3)) expect(await result).toMatchObject({ failed: false, next: { delaySeconds: 1 } });

    // A payment while the line runs: a later step of the line books it (the mempool, then the block).
    const { createMerchant } = await import('#shared/services/merchants');
    const { startApi, client } = await import('../support/api');
    const { satsOf, stored, testXpub } = await import('../support/watchers');
    const api = await startApi();
    try {
      const merchant = await createMerchant({ name: 'Stepped Shop', sandbox: false, xpubs: { BTC: testXpub() } });
      // The line's steps report the source healthy, so BTC is offered.
      const call = client(api.url);
      const created = await call('POST', '/v1/orders', { token: merchant.api_token, body: { price_amount: 30, pay_currency: 'BTC' } });
      expect(created.status, created.text).toBe(200);
      const id = created.body.order.order_id as string;
      const { invoice } = (await call('GET', `/v1/orders/${id}`, { token: merchant.api_token })).body;
      chain.pay([{ address: invoice.payment_address, sats: satsOf(invoice.pay_amount) }]);
      await until('the order PENDING from the mempool', async () => (await stored(id)).order.status === 'PENDING');
      chain.mine();
      await until('the order PAID', async () => (await stored(id)).order.status === 'PAID');
    } finally {
      await api.close();
    }
    // Only the line stepped: every invocation after the first was a tick of the same owner.
    expect(invocations.every(({ event }) => event.source === 'watch-tick' && event.owner === ticks[0]!.owner)).toBe(true);
    await poller.stop();
    poller = undefined;
  });
});

describe("the line's claim (once a minute)", () => {
  const lease = async () =>
    (await modules.client.db().send(new (await import('@aws-sdk/lib-dynamodb')).GetCommand({ TableName: TABLE, Key: modules.keys.watchLeaseKey('BTC'), ConsistentRead: true }))).Item;

  it('a tick a minute after its claim hands the lease to a new owner, and the line goes on with it', async () => {
    const held = await lease();
    expect(held?.owner).toEqual(expect.any(String));
    const kept = modules.steps.keptTicks();
    const tick = { source: 'watch-tick' as const, chain: 'BTC', owner: held!.owner as string, claimed_at: ago(61_000), failures: 0 };
    const summary = await modules.steps.invokeWatcherOnce('BTC', tick, { send: kept.send });
    expect(stepsOf(summary)).toBeGreaterThanOrEqual(1);
    const renewed = await lease();
    expect(renewed?.owner).not.toBe(tick.owner);
    expect(Date.parse(renewed!.lease_until as string)).toBeGreaterThan(Date.now() + 100_000);
    expect(kept.sent).toEqual([{ tick: expect.objectContaining({ owner: renewed!.owner, failures: 0 }), delaySeconds: 1 }]);
    expect(Date.now() - Date.parse(kept.sent[0]!.tick.claimed_at)).toBeLessThan(10_000);
  });

  it('twins (one tick delivered twice): at the claim one line goes on, the other ends without a step', async () => {
    const owner = (await lease())!.owner as string;
    const tick = { source: 'watch-tick' as const, chain: 'BTC', owner, claimed_at: ago(70_000), failures: 0 };
    const a = modules.steps.keptTicks();
    const b = modules.steps.keptTicks();
    const asked = () => [...esplora.requests.values()].reduce((sum, n) => sum + n, 0);
    const [one, other] = await Promise.all([modules.steps.invokeWatcherOnce('BTC', tick, { send: a.send }), modules.steps.invokeWatcherOnce('BTC', tick, { send: b.send })]);
    const outcomes = [one, other].map((summary) => ('superseded' in summary ? 'ended' : 'next' in summary ? 'stepped' : 'other'));
    expect(outcomes.sort()).toEqual(['ended', 'stepped']);
    expect(a.sent.length + b.sent.length).toBe(1);
    // The ended twin asked the source nothing: a second run never afterwards.
    const before = asked();
    const ended = [one, other].find((summary) => 'superseded' in summary);
    expect(ended).toEqual({ steps: 0, failures: 0, superseded: true });
    expect(asked()).toBe(before);
  });

  it('a broken line (its lease expired) is replaced by the minute run, and its late tick then ends', async () => {
    const stale = (await lease())!.owner as string;
    // The line died (its last invocation never sent a tick) and its lease ran out.
    await modules.client.db().send(
      new (await import('@aws-sdk/lib-dynamodb')).PutCommand({
        TableName: TABLE,
        Item: { ...modules.keys.watchLeaseKey('BTC'), type: modules.keys.ENTITY.watchLease, owner: stale, lease_until: ago(1_000) },
      }),
    );
    const restarted = modules.steps.keptTicks();
    const minute = await modules.steps.invokeWatcherOnce('BTC', undefined, { send: restarted.send });
    expect(minute).toMatchObject({ next: { delaySeconds: 1 } });
    expect(restarted.sent[0]!.tick.owner).not.toBe(stale);
    const late = await modules.steps.invokeWatcherOnce('BTC', { source: 'watch-tick', chain: 'BTC', owner: stale, claimed_at: ago(200_000), failures: 3 });
    expect(late).toEqual({ steps: 0, failures: 0, superseded: true });
  });

  it('once nothing needs the chain, the line ends at its claim and gives the lease back; the minute run is then an idle look', async () => {
    const owner = (await lease())!.owner as string;
    const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
    await modules.client.db().send(new DeleteCommand({ TableName: TABLE, Key: modules.keys.watchDemandKey('BTC') }));
    expect(await modules.demand.watchingNeeded('BTC', new Date())).toBe(false);
    const kept = modules.steps.keptTicks();
    // Before its claim is due the line still steps (the demand is checked once a minute).
    expect(await modules.steps.invokeWatcherOnce('BTC', { source: 'watch-tick', chain: 'BTC', owner, claimed_at: ago(5_000), failures: 0 }, { send: kept.send })).toMatchObject({
      next: { delaySeconds: 1 },
    });
    expect(await modules.steps.invokeWatcherOnce('BTC', { source: 'watch-tick', chain: 'BTC', owner, claimed_at: ago(61_000), failures: 0 }, { send: kept.send })).toEqual({
      steps: 0,
      failures: 0,
      ended: true,
    });
    expect(kept.sent).toHaveLength(1);
    expect(await modules.demand.watchLeaseHeld('BTC', new Date())).toBe(false);
    expect(await modules.steps.invokeWatcherOnce('BTC')).toMatchObject({ idle: true });
  });
});

describe('the next step', () => {
  it('is due at once while behind, after the interval when caught up, and after a doubling backoff with jitter (within the interval and 60 s) after failures', () => {
    const { nextDelaySeconds, MAX_BACKOFF_SECONDS } = modules.stepped;
    expect(nextDelaySeconds(0, true, 10)).toBe(0);
    expect(nextDelaySeconds(0, false, 10)).toBe(10);
    expect(nextDelaySeconds(1, false, 10, () => 0)).toBe(10);
    expect(nextDelaySeconds(1, false, 10, () => 0.999)).toBe(20);
    expect(nextDelaySeconds(2, false, 10, () => 0.999)).toBe(40);
    expect(nextDelaySeconds(9, false, 10, () => 0.999)).toBe(MAX_BACKOFF_SECONDS);
    expect(nextDelaySeconds(9, false, 10, () => 0)).toBe(MAX_BACKOFF_SECONDS / 2);
  });
});
