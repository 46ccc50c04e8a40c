/**
 * Issue 43: the stepped watcher's line (shared/watchers/stepped.ts) with DynamoDB and SQS
 * answering as AWS does when it fails, about one call in ten: throttled, a 500, a transaction
 * conflict, a connection reset before or after the call landed (a write done, its answer lost),
 * or stalled (tests/support/aws-faults.ts). The functions' clients go through the fault proxies;
 * the queue poller (Lambda's SQS event source) reads the real emulator, as Lambda's does.
 *
 * The line's parts are those of watch-steps.test.ts: the step timer's queue, the poller feeding
 * tick-watchers, its signed Invoke to a local stand-in of the Lambda API running watch-chain,
 * a local Esplora server. What must come out: every invoice booked once (PAID, its payments
 * exactly the transfers made, none twice), and a line that never stops stepping (the issue: "a
 * watcher steps on within a minute"). A line lost to one failed claim or tick waits out its
 * lease (150 s) and the next scheduled minute; here that is a gap that lasts to the test's end.
 *
 * A line claims its lease once a minute; so that the claims meet the faults dozens of times in
 * seconds, the Lambda stand-in delivers each tick as if its claim were a minute old (every
 * step of the line claims), and the minute's schedule runs every few seconds.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import type { QueuePoller } from '#infra/local/queue-poller';
import { atRate, type Call, type Fault, type FaultProxy, startFaultProxy } from '../support/aws-faults';
import type { FaultyServer } from '../support/chain-http';
import { startEsploraServer } from '../support/esplora-server';
import { steppedBtcEnv } from '../support/stepped';
import { type ChainTx, UtxoChain } from '../support/utxo-chain';

const TABLE = `watch-steps-faults-${process.pid}`;
const DYNAMODB_FAULTS: readonly Fault[] = ['throttling', 'provisioned-throughput', 'internal-error', 'service-unavailable', 'transaction-conflict', 'reset', 'lost-answer', 'stall'];
const SQS_FAULTS: readonly Fault[] = ['throttling', 'internal-error', 'reset', 'lost-answer'];
/** The largest gap between two steps of the line this test accepts (a minute in the issue; the line's interval is 1 s here). */
const MAX_GAP_MS = 15_000;
/** Rounds of two orders each made and paid while the line runs. */
const ROUNDS = 6;

const chain = new UtxoChain('BTC');
let esplora: FaultyServer;
let lambdaApi: Server;
let dynamodb: FaultProxy;
let queue: FaultProxy;
let poller: QueuePoller | undefined;
let queueUrl: string;
/** The run's SQS emulator (the global setup's SQS_ENDPOINT), behind the proxy. */
let sqsEmulator: string;
/** The store as it is, past the proxy: what the test looks at while the functions meet faults. */
let observer: DynamoDBDocumentClient;
let api: { url: string; close: () => Promise<void> } | undefined;
let call: (method: string, path: string, options?: any) => Promise<{ status: number; body: any; text: string; headers: Headers }>;
let token: string;

/** Each invocation the Lambda API stand-in ran: when, its event, and when it ended with what. */
const invocations: { at: number; event: Record<string, unknown>; result: Promise<unknown>; ended?: number; outcome?: unknown }[] = [];
/** Faults injected on the line's claims (the lease, the demand and the maturing payments it reads), per operation and fault. */
const claimFaults = new Map<string, number>();

let modules: {
  stepped: typeof import('#shared/watchers/stepped');
  ticks: typeof import('#shared/watchers/ticks');
  steps: typeof import('../support/stepped');
  keys: typeof import('#shared/store/keys');
  watchChain: typeof import('#functions/watch-chain/handler').handler;
};

const body = async (request: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};
const context = { getRemainingTimeInMillis: () => 120_000 } as unknown as Context;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

/** Waits (polling) until `done` holds, or fails after `ms` with `what`. */
async function until(what: string, done: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(100);
  }
}

/** Whether a DynamoDB call is one of the line's claim (stepped.ts: watchingNeeded, passWatchLease, takeWatchLease, watchLeaseHeld, releaseWatchLease). */
function isClaim(call: Call): boolean {
  const key = (call.body.Key ?? call.body.Item) as { PK?: { S?: string }; SK?: { S?: string } } | undefined;
  if (key?.PK?.S === 'CHAIN#BTC' && (key.SK?.S === 'LEASE' || key.SK?.S === 'DEMAND')) return true;
  const values = call.body.ExpressionAttributeValues as Record<string, { S?: string }> | undefined;
  return call.operation === 'Query' && values?.[':pk']?.S === 'CHAIN#BTC' && values[':prefix']?.S === modules.keys.MATURING_PREFIX;
}

/** A write of the lease: the schedule's take (PutItem), a claim's pass or a line's release (UpdateItem). */
const isLeaseWrite = (call: Call) =>
  (call.operation === 'PutItem' || call.operation === 'UpdateItem') && isClaim(call) && ((call.body.Key ?? call.body.Item) as { SK?: { S?: string } }).SK?.S === 'LEASE';

/**
 * About one DynamoDB call in ten failing, each kind from a generator of its own, so that a run
 * meets the same faults on the line's claims as the last one (they come one after another):
 * the lease's writes (seed 56: its 5th and 6th calls lose their answer, the 4th claim's pass
 * and the SDK's first retry of it), the claims' reads, and every other call.
 */
function dynamodbPlan(rate: number): (call: Call) => Fault | undefined {
  const leaseWrites = atRate(rate, DYNAMODB_FAULTS, { seed: 56 });
  const claimReads = atRate(rate, DYNAMODB_FAULTS, { seed: 43 });
  const others = atRate(rate, DYNAMODB_FAULTS, { seed: 20261201 });
  return (call) => {
    if (!isClaim(call)) return others(call);
    const fault = isLeaseWrite(call) ? leaseWrites(call) : claimReads(call);
    if (fault) claimFaults.set(`${call.operation} ${fault}`, (claimFaults.get(`${call.operation} ${fault}`) ?? 0) + 1);
    return fault;
  };
}

/** One observed read of an order and its current invoice, past the proxy. */
async function observed(orderId: string): Promise<{ status?: string; payments: { key?: string; txid: string; amount: string }[] }> {
  const { Items = [] } = await observer.send(
    new QueryCommand({ TableName: TABLE, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `ORDER#${orderId}` }, ConsistentRead: true }),
  );
  const order = Items.find((item) => item.SK === 'ORDER');
  const invoice = Items.find((item) => item.SK !== 'ORDER' && item.invoice_id !== undefined && item.invoice_id === order?.invoice_id);
  return { status: order?.status as string | undefined, payments: (invoice?.payments as { key?: string; txid: string; amount: string }[] | undefined) ?? [] };
}

/** A request as a careful client sends it: one Idempotency-Key for all its tries, again after a 503's Retry-After. */
async function retried(method: string, path: string, requestBody?: unknown) {
  const key = randomUUID();
  for (let attempt = 1; attempt <= 20; attempt += 1) {
    const answer = await call(method, path, { token, ...(requestBody === undefined ? {} : { body: requestBody }), headers: { 'Idempotency-Key': key } });
    const retry = answer.status === 503 || (answer.status === 409 && answer.body.error_code === 'IDEMPOTENCY_IN_PROGRESS');
    if (!retry) return answer;
    await sleep(300);
  }
  throw new Error(`${method} ${path}: no final answer in 20 tries`);
}

interface Sale {
  orderId: string;
  address: string;
  payAmount: string;
  /** What was sent to it: each transfer's key (txid:vout) and satoshis. */
  transfers: { key: string; sats: bigint }[];
}

/** A live BTC order of the shop, checked out: its invoice's address and amount. */
async function sale(): Promise<Sale> {
  const created = await retried('POST', '/v1/orders', { price_amount: 30, pay_currency: 'BTC' });
  expect(created.status, created.text).toBe(200);
  const orderId = created.body.order.order_id as string;
  const read = await retried('GET', `/v1/orders/${orderId}`);
  expect(read.status, read.text).toBe(200);
  return { orderId, address: read.body.invoice.payment_address, payAmount: String(read.body.invoice.pay_amount), transfers: [] };
}

/** Pays each of `parts` (a sale and satoshis) as an output of one transaction in the mempool. */
function pay(parts: { to: Sale; sats: bigint }[]): ChainTx {
  const tx = chain.pay(parts.map((part) => ({ address: part.to.address, sats: part.sats })));
  for (const part of parts) {
    const vout = tx.addresses.findIndex((address, index) => address === part.to.address && tx.values[index] === part.sats);
    part.to.transfers.push({ key: `${tx.txid}:${vout}`, sats: part.sats });
  }
  return tx;
}

beforeAll(async () => {
  // The functions' clients go through the proxies: set before anything reads its configuration (on first use).
  dynamodb = await startFaultProxy(inject('dynamodbEndpoint'), { stallMs: 600 });
  sqsEmulator = process.env.SQS_ENDPOINT!;
  queue = await startFaultProxy(sqsEmulator);
  await ensureTable(inject('dynamodbEndpoint'), TABLE, { stream: false });
  esplora = await startEsploraServer(chain);
  lambdaApi = createServer(async (request, response) => {
    const text = await body(request);
    if (request.method !== 'POST' || request.url !== '/2015-03-31/functions/watch-chain-btc/invocations') return void response.writeHead(404).end();
    const event = JSON.parse(text) as Record<string, unknown>;
    // As if a minute had passed since the line's claim: this step claims the lease again.
    if (event.source === 'watch-tick') event.claimed_at = new Date(Date.parse(event.claimed_at as string) - modules.stepped.CLAIM_EVERY_MS).toISOString();
    const invocation: (typeof invocations)[number] = { at: Date.now(), event, result: Promise.resolve() };
    invocation.result = modules.watchChain(event, context).then(
      (summary) => Object.assign(invocation, { ended: Date.now(), outcome: summary }).outcome,
      (error: unknown) => Object.assign(invocation, { ended: Date.now(), outcome: error }).outcome,
    );
    invocations.push(invocation);
    response.writeHead(202).end();
  });
  await new Promise<void>((resolve) => lambdaApi.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    DYNAMODB_ENDPOINT: dynamodb.url,
    SQS_ENDPOINT: queue.url,
    ...steppedBtcEnv({ table: TABLE, lambdaEndpoint: `http://127.0.0.1:${(lambdaApi.address() as AddressInfo).port}`, esploraUrl: esplora.url }),
  });
  modules = {
    stepped: await import('#shared/watchers/stepped'),
    ticks: await import('#shared/watchers/ticks'),
    steps: await import('../support/stepped'),
    keys: await import('#shared/store/keys'),
    watchChain: (await import('#functions/watch-chain/handler')).handler,
  };
  queueUrl = await modules.steps.freshQueue();
  process.env.WATCH_TICK_QUEUE_URL = queueUrl;
  observer = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: inject('dynamodbEndpoint') }));

  const { createMerchant } = await import('#shared/services/merchants');
  const { startApi, client } = await import('../support/api');
  const { testXpub } = await import('../support/watchers');
  const { reportAllHealthy } = await import('../support/source-health');
  api = await startApi();
  call = client(api.url);
  token = (await createMerchant({ name: 'Faulty Stepped Shop', sandbox: false, xpubs: { BTC: testXpub() } })).api_token;
  // BTC is offered while its source reports healthy: as the line's steps will.
  await reportAllHealthy();
  // The chain's first look, while nothing needs it (the schedule's idle run): the cursor starts at this tip.
  expect(await modules.watchChain({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, context)).toMatchObject({ idle: true });
}, 60_000);

afterAll(async () => {
  if (dynamodb) dynamodb.plan = () => undefined;
  if (queue) queue.plan = () => undefined;
  await poller?.stop();
  await Promise.all(invocations.map((invocation) => invocation.result));
  await api?.close();
  await new Promise((resolve) => lambdaApi?.close(resolve));
  await esplora?.close();
  observer?.destroy();
  await dynamodb?.stop();
  await queue?.stop();
});

/** What an invocation came to: a step (and its next tick), a twin's end, an error... */
function outcomeOf(outcome: unknown): string {
  if (outcome === undefined) return 'running';
  if (outcome instanceof Error) return 'error';
  if (stepped(outcome)) return 'stepped';
  return Object.keys(outcome as object)
    .filter((key) => key !== 'steps' && key !== 'failures')
    .join(',');
}

/** The line's steps until `end`: the first, the largest gap between two (or from the last to `end`), and since the last. */
function gaps(end: number): { first?: number; largest: number; since: number } {
  const ends = invocations
    .filter((invocation) => stepped(invocation.outcome))
    .map((invocation) => invocation.ended!)
    .sort((a, b) => a - b);
  let largest = 0;
  for (const [index, at] of [...ends, end].entries()) if (index > 0) largest = Math.max(largest, at - ends[index - 1]!);
  return { first: ends[0], largest, since: end - (ends.at(-1) ?? end) };
}

const stepped = (outcome: unknown) => typeof outcome === 'object' && outcome !== null && ((outcome as { steps?: number }).steps ?? 0) > 0;
const total = (counts: Map<string, number>, operation?: string) =>
  [...counts].filter(([name]) => operation === undefined || name === operation || name.startsWith(`${operation} `)).reduce((sum, [, n]) => sum + n, 0);

describe('the stepped line with DynamoDB and SQS failing about one call in ten', () => {
  it('books every payment once, before the line starts, while it runs and in one block, and never stops stepping', async () => {
    const { handler: tickWatchers } = await import('#functions/tick-watchers/handler');
    const { startQueuePoller } = await import('#infra/local/queue-poller');

    // Before the line: two orders paid and mined, one paid in the mempool.
    const early = [await sale(), await sale(), await sale()];
    pay([{ to: early[0]!, sats: satsOf(early[0]!) }]);
    pay([{ to: early[1]!, sats: satsOf(early[1]!) }]);
    chain.mine();
    pay([{ to: early[2]!, sats: satsOf(early[2]!) }]);

    const started = Date.now();
    dynamodb.plan = dynamodbPlan(0.1);
    queue.plan = atRate(0.1, SQS_FAULTS, { seed: 7, operations: ['SendMessage', 'SendMessageBatch'] });
    // The event source reads the real emulator, as Lambda's does.
    poller = await startQueuePoller({ endpoint: sqsEmulator, queueUrl, handler: tickWatchers, batchSize: 10, waitTimeSeconds: 1 });
    // The minute's schedule (every 4 s here): the first run starts the line, the others find it leased.
    const schedule: unknown[] = [];
    let scheduling = true;
    const minutes = (async () => {
      while (scheduling) {
        schedule.push(await modules.watchChain({ source: 'aws.events', 'detail-type': 'Scheduled Event' }, context).catch((error: unknown) => error));
        await sleep(4_000);
      }
    })();

    try {
      // While the line runs (each order made with the faults on), a round every 1.5 s: two orders
      // in one transaction, or each in its own; one paid in two parts in two rounds; every other
      // round a block with the mempool's (the early one's among them).
      const late: Sale[] = [];
      let split: { to: Sale; rest: bigint } | undefined;
      for (let round = 0; round < ROUNDS; round += 1) {
        const [one, other] = [await sale(), await sale()];
        late.push(one, other);
        if (round === 2) {
          const half = satsOf(other) / 2n;
          pay([
            { to: one, sats: satsOf(one) },
            { to: other, sats: half },
          ]);
          split = { to: other, rest: satsOf(other) - half };
        } else if (round % 2 === 0) {
          pay([
            { to: one, sats: satsOf(one) },
            { to: other, sats: satsOf(other) },
          ]);
        } else {
          pay([{ to: one, sats: satsOf(one) }]);
          pay([{ to: other, sats: satsOf(other) }]);
        }
        // The rest in the next round, before the block that takes both (a part confirmed alone is UNDERPAID).
        if (round === 3) pay([{ to: split!.to, sats: split!.rest }]);
        if (round % 2 === 1) chain.mine();
        await sleep(1_500);
      }
      chain.mine();
      const sales = [...early, ...late];
      await until('every order PAID', async () => (await Promise.all(sales.map(async (one) => (await observed(one.orderId)).status))).every((status) => status === 'PAID'), 25_000).catch(
        async (error: unknown) => {
          const unpaid = await Promise.all(sales.map(async (one) => ({ orderId: one.orderId, ...(await observed(one.orderId)) })));
          const { largest, since } = gaps(Date.now());
          throw new Error(
            `${(error as Error).message}; the line's largest gap between steps ${largest} ms, its last step ${since} ms ago; ` +
              `not PAID: ${JSON.stringify(unpaid.filter((one) => one.status !== 'PAID').map(({ orderId, status, payments }) => ({ orderId, status, payments: payments.length })))}; ` +
              `invocations: ${invocations.map((invocation) => outcomeOf(invocation.outcome)).join(' ')}`,
          );
        },
      );
      // The line goes on stepping after the work is done (empty blocks to follow).
      chain.mineEmpty(1);
      await sleep(4_000);
      const ended = Date.now();

      scheduling = false;
      await minutes;
      dynamodb.plan = () => undefined;
      queue.plan = () => undefined;
      await poller.stop();
      poller = undefined;
      await Promise.all(invocations.map((invocation) => invocation.result));

      // Every invoice: PAID, its payments exactly the transfers made to it (one record per transfer), the amount exact.
      const { stored } = await import('../support/watchers');
      for (const one of sales) {
        const { order, invoice } = await stored(one.orderId);
        expect(order.status, one.orderId).toBe('PAID');
        const payments = invoice!.payments ?? [];
        expect(payments.map((payment) => payment.key).sort(), one.orderId).toEqual(one.transfers.map((transfer) => transfer.key).sort());
        const paid = payments.reduce((sum, payment) => sum + satsOf(payment.amount), 0n);
        expect(paid, one.orderId).toBe(satsOf(one));
        expect(one.transfers.reduce((sum, transfer) => sum + transfer.sats, 0n)).toBe(satsOf(one));
      }

      // The line never stopped: the largest gap between two steps (and from the last to the end).
      const { largest: largestGap, first: firstStep } = gaps(ended);
      const outcomes = new Map<string, number>();
      for (const invocation of invocations) outcomes.set(outcomeOf(invocation.outcome), (outcomes.get(outcomeOf(invocation.outcome)) ?? 0) + 1);
      console.log(
        JSON.stringify({
          seconds: (ended - started) / 1000,
          firstStepAfterMs: (firstStep ?? ended) - started,
          largestGapMs: largestGap,
          invocations: invocations.length,
          outcomes: Object.fromEntries(outcomes),
          schedule: schedule.map((outcome) =>
            outcome instanceof Error
              ? `error: ${outcome.name}`
              : Object.keys(outcome as object)
                  .filter((key) => key !== 'steps' && key !== 'failures')
                  .join(',') || 'stepped',
          ),
          dynamodbCalls: total(dynamodb.counts.calls),
          dynamodbFaults: Object.fromEntries(dynamodb.counts.faults),
          claimFaults: Object.fromEntries(claimFaults),
          sqsCalls: Object.fromEntries(queue.counts.calls),
          sqsFaults: Object.fromEntries(queue.counts.faults),
        }),
      );
      expect(largestGap).toBeLessThan(MAX_GAP_MS);
      // The faults reached the line's claims and its ticks, not only its steps.
      expect(total(claimFaults, 'UpdateItem')).toBeGreaterThan(0);
      // A claim's pass whose answer was lost, the SDK's retry meeting its own write (seed 56).
      expect(claimFaults.get('UpdateItem lost-answer') ?? 0).toBeGreaterThan(0);
      expect(total(claimFaults, 'GetItem') + total(claimFaults, 'Query')).toBeGreaterThan(0);
      expect(total(queue.counts.faults, 'SendMessage')).toBeGreaterThan(0);
      expect(total(dynamodb.counts.faults)).toBeGreaterThan(20);
    } finally {
      scheduling = false;
      await minutes;
    }
  }, 60_000);
});

describe('one failed call of a claim or a tick does not lose the line', () => {
  const lease = async () => (await observer.send(new GetCommand({ TableName: TABLE, Key: modules.keys.watchLeaseKey('BTC'), ConsistentRead: true }))).Item;
  /** A tick of the line holding the lease, whose claim is due. */
  const due = async () => ({ source: 'watch-tick' as const, chain: 'BTC', owner: (await lease())!.owner as string, claimed_at: ago(61_000), failures: 0 });
  /** Fails the first `count` calls that `matches`. */
  const failing = (count: number, fault: Fault, matches: (call: Call) => boolean) => (call: Call) => (matches(call) && count-- > 0 ? fault : undefined);
  const leaseWrite = (call: Call) => call.operation === 'UpdateItem' && isLeaseWrite(call);

  it("a claim whose lease write landed with its answer lost (the SDK's retry meets its own write) goes on as the lease's owner", async () => {
    const tick = await due();
    const kept = modules.steps.keptTicks();
    dynamodb.plan = failing(1, 'lost-answer', leaseWrite);
    const summary = await modules.steps.invokeWatcherOnce('BTC', tick, { send: kept.send });
    dynamodb.plan = () => undefined;
    expect(summary).toMatchObject({ next: { failures: 0 } });
    const holder = (await lease())!.owner;
    expect(holder).not.toBe(tick.owner);
    expect(kept.sent).toEqual([{ tick: expect.objectContaining({ owner: holder }), delaySeconds: expect.any(Number) }]);
  });

  it("a claim whose reads fail on each of the SDK's tries sends its tick again, to claim after a backoff", async () => {
    const tick = await due();
    const kept = modules.steps.keptTicks();
    const demandRead = (call: Call) => call.operation === 'GetItem' && isClaim(call);
    dynamodb.plan = failing(3, 'internal-error', demandRead);
    await expect(modules.steps.invokeWatcherOnce('BTC', tick, { send: kept.send })).rejects.toThrow();
    dynamodb.plan = () => undefined;
    expect(kept.sent).toEqual([{ tick: { ...tick, failures: 1 }, delaySeconds: expect.any(Number) }]);
    // That tick claims the lease and the line goes on.
    const next = modules.steps.keptTicks();
    expect(await modules.steps.invokeWatcherOnce('BTC', kept.sent[0]!.tick, { send: next.send })).toMatchObject({ next: { failures: 0 } });
    expect(next.sent[0]!.tick.owner).toBe((await lease())!.owner);
  });

  it("a tick whose send fails on each of the SDK's tries is sent again", async () => {
    const tick = await due();
    // A queue of its own: the line's last ticks wait on the other.
    const ticks = await modules.steps.freshQueue();
    const sendTick = (call: Call) => call.operation === 'SendMessage';
    queue.plan = failing(3, 'internal-error', sendTick);
    const summary = await modules.steps.invokeWatcherOnce('BTC', tick, { send: modules.ticks.queueTickSender(ticks) });
    queue.plan = () => undefined;
    expect(summary).toMatchObject({ next: { failures: 0 } });
    const holder = (await lease())!.owner;
    await until('the tick on the queue', async () => (await modules.steps.receiveTicks(ticks, 1)).some((sent) => sent.owner === holder), 10_000);
  });
});

/** The satoshis a sale's invoice asks (or of a payment's amount). */
function satsOf(of: Sale | string): bigint {
  const amount = typeof of === 'string' ? of : of.payAmount;
  const [whole, fraction = ''] = amount.split('.');
  return BigInt(whole!) * 100_000_000n + BigInt(fraction.padEnd(8, '0').slice(0, 8));
}
