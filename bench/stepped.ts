/**
 * A chain in demand stepped one invocation at a time (bench group `steps`, issue 28 item 2;
 * shared/watchers/stepped.ts), in its own node process with its own table on the bench's
 * DynamoDB Local and the SQS emulator (fauxqs):
 *
 * - detection latency through the whole line, as AWS runs it: the step timer's queue (delayed
 *   messages) read by a poller as Lambda's SQS event source reads it (20 s long polls), the real
 *   tick-watchers handler, its signed asynchronous Invoke to a local stand-in of the Lambda API,
 *   which runs the real watch-chain handler in process, against a local Esplora. From a
 *   transaction's broadcast to PENDING, and from the block of its last confirmation to PAID,
 *   with WATCH_INTERVAL_SECONDS=1 as the polling watcher's figure in the `watcher` group;
 * - what AWS bills per invocation (median of 20, warm): a tick of a caught-up chain (the usual
 *   step: the source's tip and mempool, the cursor and maturing reads, the next tick sent), a
 *   tick that claims the lease again (once a minute), the minute's scheduled run while a line
 *   holds the chain, and tick-watchers' handling of one message (its Invoke included): ms,
 *   DynamoDB requests and units, source and SQS requests. bench/cost.ts prices the month from
 *   these.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import type { Context, SQSEvent } from 'aws-lambda';
import { startEsploraServer } from '../tests/support/esplora-server';
import { UtxoChain } from '../tests/support/utxo-chain';
import { openListsBeganLongAgo, satsOf } from '../tests/support/watchers';
import { runChild } from './child';
import { meterCapacity } from './capacity';
import { round2, summarize, type LatencyFigures } from './stats';

/** One kind of invocation, as AWS bills it (the median of its samples). */
export interface InvocationFigures {
  ms: number;
  dynamodb_requests: number;
  read_units: number;
  write_units: number;
  source_requests: number;
  sqs_requests: number;
}

export interface SteppedReport {
  samples: number;
  interval_seconds: number;
  /** Broadcast -> PENDING through the line (timer queue, tick-watchers, Invoke, watch-chain). */
  broadcast_to_pending_ms: LatencyFigures;
  /** The block of the last confirmation -> PAID. */
  block_to_paid_ms: LatencyFigures;
  /** A tick of a caught-up chain in demand (the usual step). */
  step: InvocationFigures;
  /** A tick a minute after its line's claim: the demand checked, the lease handed on, then the step. */
  claiming_step: InvocationFigures;
  /** The minute's scheduled run while a line holds the chain. */
  minute_run_leased: InvocationFigures;
  /** tick-watchers: one message passed on (its Invoke to the Lambda API included). */
  ticker: InvocationFigures;
}

export interface SteppedOptions {
  dynamodbEndpoint: string;
  samples: number;
}

/** Runs this module in a fresh node process (its own table, configuration and handler modules). */
export function measureStepped(options: SteppedOptions): Promise<SteppedReport> {
  return runChild<SteppedReport>('bench/stepped.ts', { BENCH_STEPPED_JOB: JSON.stringify(options) });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const context = { getRemainingTimeInMillis: () => 120_000 } as unknown as Context;

async function run(options: SteppedOptions): Promise<SteppedReport> {
  const { ensureTable } = await import('#infra/local/dynamodb');
  const { startLocalSqs } = await import('#infra/local/sqs');
  const table = `bench-stepped-${randomUUID().slice(0, 8)}`;
  await ensureTable(options.dynamodbEndpoint, table);
  const sqsServer = await startLocalSqs({ prefix: table });
  const chain = new UtxoChain('BTC');
  const esplora = await startEsploraServer(chain);
  const sourceRequests = () => [...esplora.requests.values()].reduce((sum, n) => sum + n, 0);

  // The local stand-in of the Lambda Invoke API: each invocation runs the watch-chain handler in process.
  let watchChain: ((event: unknown, context: Context) => Promise<unknown>) | undefined;
  const running = new Set<Promise<unknown>>();
  const lambdaApi: Server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      response.writeHead(202).end();
      const invocation = watchChain!(JSON.parse(Buffer.concat(chunks).toString('utf8')), context).catch((error: unknown) => error);
      running.add(invocation);
      void invocation.finally(() => running.delete(invocation));
    });
  });
  await new Promise<void>((resolve) => lambdaApi.listen(0, '127.0.0.1', resolve));
  const interval = 1;
  Object.assign(process.env, {
    TABLE_NAME: table,
    DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
    SQS_ENDPOINT: sqsServer.endpoint,
    WATCH_CHAIN: 'BTC',
    WATCH_TICK_QUEUE_URL: sqsServer.watchTickQueueUrl,
    WATCHER_FUNCTIONS: JSON.stringify({ BTC: 'watch-chain-btc' }),
    LAMBDA_ENDPOINT: `http://127.0.0.1:${(lambdaApi.address() as AddressInfo).port}`,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    BTC_ESPLORA_URL: esplora.url,
    BTC_CONFIRMATIONS: '2',
    WATCH_INTERVAL_SECONDS: String(interval),
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  watchChain = (await import('#functions/watch-chain/handler')).handler;
  const { handler: tickWatchers } = await import('#functions/tick-watchers/handler');
  const { startQueuePoller } = await import('#infra/local/queue-poller');
  const { demandWatching } = await import('#shared/store/watch-demand');
  const { createMerchant } = await import('#shared/services/merchants');
  const { createOrder } = await import('#shared/services/orders');
  const { findMerchant } = await import('#shared/store/merchants');
  const { findOrderWithInvoice } = await import('#shared/store/orders');
  const { watchChainStep } = await import('#shared/watchers/stepped');
  const { queueTickSender } = await import('#shared/watchers/ticks');
  const { db } = await import('#shared/store/client');
  const { sqs } = await import('#shared/aws/sqs');
  const { reset } = meterCapacity(db());
  let sqsRequests = 0;
  sqs().middlewareStack.add((next) => async (args) => ((sqsRequests += 1), next(args)), { step: 'initialize', name: 'benchSqsCount' });

  await openListsBeganLongAgo();
  const merchant = (await findMerchant((await createMerchant({ name: 'Bench stepped', sandbox: true })).user_id))!;
  await demandWatching('BTC', new Date(Date.now() + 3_600_000));
  const status = async (id: string) => (await findOrderWithInvoice(id))!.order.status;
  const waitFor = async (id: string, wanted: string) => {
    for (let i = 0; i < 3000; i += 1) {
      if ((await status(id)) === wanted) return;
      await sleep(10);
    }
    throw new Error(`stepped bench: order ${id} never became ${wanted}`);
  };

  // 1. Detection through the line. The minute's run starts it; the poller reads the timer as Lambda does.
  const poller = await startQueuePoller({
    endpoint: sqsServer.endpoint,
    queueUrl: sqsServer.watchTickQueueUrl,
    handler: tickWatchers as (event: SQSEvent) => Promise<never>,
    batchSize: 10,
    waitTimeSeconds: 20,
  });
  const pending: number[] = [];
  const paid: number[] = [];
  try {
    await watchChain({ source: 'aws.events' }, context);
    for (let i = 0; i < options.samples; i += 1) {
      const { order, invoice } = await createOrder(merchant, { price_amount: 65, pay_currency: 'BTC' }, new Date());
      await sleep(Math.random() * interval * 1000);
      const sent = performance.now();
      chain.pay([{ address: invoice!.payment_address, sats: satsOf(invoice!.pay_amount) }]);
      await waitFor(order.order_id, 'PENDING');
      pending.push(performance.now() - sent);
      chain.mine();
      await sleep(Math.random() * interval * 1000);
      const confirmed = performance.now();
      chain.mineEmpty(1);
      await waitFor(order.order_id, 'PAID');
      paid.push(performance.now() - confirmed);
    }
  } finally {
    await poller.stop();
    await Promise.all([...running]);
  }

  // 2. Each kind of invocation, warm, measured alone (the line above stopped: its lease is taken over here).
  const { DeleteCommand, GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { watchLeaseKey } = await import('#shared/store/keys');
  await db().send(new DeleteCommand({ TableName: table, Key: watchLeaseKey('BTC') }));
  const send = queueTickSender(sqsServer.watchTickQueueUrl);
  const started = await watchChainStep('BTC', undefined, { send, budgetMs: 5_000 });
  if (!('next' in started)) throw new Error(`stepped bench: no line started (${JSON.stringify(started)})`);
  const owner = async () => (await db().send(new GetCommand({ TableName: table, Key: watchLeaseKey('BTC'), ConsistentRead: true }))).Item!.owner as string;
  /** The median of 20 warm invocations of `act`, each after its `prepare` (not measured), and after the invocations it started. */
  const measure = async <T>(prepare: () => Promise<T>, act: (prepared: T) => Promise<unknown>): Promise<InvocationFigures> => {
    const samples: InvocationFigures[] = [];
    for (let i = 0; i < 20; i += 1) {
      const prepared = await prepare();
      const source = sourceRequests();
      const queued = sqsRequests;
      reset();
      const start = performance.now();
      await act(prepared);
      const ms = performance.now() - start;
      const units = reset();
      samples.push({
        ms: round2(ms),
        dynamodb_requests: units.requests,
        read_units: round2(units.readUnits),
        write_units: round2(units.writeUnits),
        source_requests: sourceRequests() - source,
        sqs_requests: sqsRequests - queued,
      });
      await Promise.all([...running]);
    }
    return samples.sort((a, b) => a.ms - b.ms)[10]!;
  };
  const tickOf = async (claimedAgoMs: number) => ({ source: 'watch-tick' as const, chain: 'BTC', owner: await owner(), claimed_at: new Date(Date.now() - claimedAgoMs).toISOString(), failures: 0 });
  const step = await measure(
    () => tickOf(1_000),
    (tick) => watchChain!(tick, context),
  );
  const claimingStep = await measure(
    () => tickOf(61_000),
    (tick) => watchChain!(tick, context),
  );
  const minuteRun = await measure(
    async () => undefined,
    () => watchChain!({ source: 'aws.events' }, context),
  );
  // Only the handler is timed: the watcher's invocation it started is the watcher's (measured above).
  const ticker = await measure(
    async () => tickQueueEvent(JSON.stringify(await tickOf(1_000))),
    (event) => tickWatchers(event),
  );
  await Promise.all([...running]);
  await new Promise((resolve) => lambdaApi.close(resolve));
  await esplora.close();
  await sqsServer.stop();
  return {
    samples: options.samples,
    interval_seconds: interval,
    broadcast_to_pending_ms: summarize(pending),
    block_to_paid_ms: summarize(paid),
    step,
    claiming_step: claimingStep,
    minute_run_leased: minuteRun,
    // The watcher's invocation it started ran in this process: its DynamoDB and source requests are the step's.
    ticker: { ms: ticker.ms, dynamodb_requests: 0, read_units: 0, write_units: 0, source_requests: 0, sqs_requests: 0 },
  };
}

/** The step timer queue's event for tick-watchers, as SQS hands Lambda one message `body`. */
export const tickQueueEvent = (body: string): SQSEvent =>
  ({
    Records: [
      {
        messageId: randomUUID(),
        receiptHandle: 'r',
        body,
        attributes: {},
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:ticks',
        awsRegion: 'us-east-1',
      },
    ],
  }) as unknown as SQSEvent;

if (process.env.BENCH_STEPPED_JOB) {
  const result = await run(JSON.parse(process.env.BENCH_STEPPED_JOB) as SteppedOptions);
  // Clients with keep-alive sockets (the handlers' SDK clients) would hold the process open.
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
}
