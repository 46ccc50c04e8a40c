/**
 * Callback latency and delivery throughput, and what one paid order costs in invocations,
 * DynamoDB units and SQS requests (the figures bench/cost.ts prices).
 *
 * It runs in its own node process (measureCallbacks spawns this file), with its own table, so
 * the table's stream carries only its orders and the handlers load with this environment, as
 * tests/e2e/callbacks.test.ts does. The pipeline is the one infra/local/pipeline.ts starts (the
 * stream poller feeding order-events, the queue poller feeding deliver-callback, the sweeper),
 * built here from the same parts with the same options, with each handler wrapped to count its
 * invocations, durations and DynamoDB units, and the SQS client pointed through a counting proxy.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import type { LambdaHandler, StreamingLambdaHandler } from '#shared/http/api-handler';
import { runChild } from './child';
import { Instrument, type FunctionUse } from './instrument';
import { cloneCounts, diffCounts, startSqsCounter, type SqsCounts } from './sqs-counter';
import { summarize, type LatencyFigures } from './stats';

export interface CallbackRun {
  orders: number;
  /** Status-change write (the PAID order's updated_at) to the merchant's receipt, ms. */
  latency_ms: LatencyFigures;
  /** Callbacks received per second, first status-change write to last receipt. */
  throughput_per_s: number;
  /** Callbacks received more than once (at-least-once; should be 0 here). */
  duplicates: number;
  /**
   * Where the latency goes, ms: write -> queue message sent (stream poller and order-events),
   * sent -> a delivery invocation took it (queue poller), taken -> merchant receipt (the POST).
   */
  stages_p50_ms: { write_to_enqueue: number; enqueue_to_delivery: number; delivery_to_receipt: number };
}

export interface CallbackReport {
  /** Orders paid one every `interval_ms` (steady, light load). */
  paced: CallbackRun & { interval_ms: number };
  /** Orders paid all at once by `concurrency` workers (the queue fills up). */
  burst: CallbackRun & { concurrency: number };
  /**
   * One order at a time through create, checkout, two Get Orders, sandbox pay and its callback,
   * each step drained from the stream before the next (so each write is its own stream batch, as
   * at low traffic in AWS). Per order, averaged over `orders` (after one warm-up order).
   */
  per_order: {
    orders: number;
    /** Per function: invocations, total duration ms, DynamoDB requests and units, per order. */
    functions: Record<string, FunctionUse>;
    /** SQS requests per order by action (billed 64 KB chunks), without empty long polls. */
    sqs: Record<string, number>;
    sqs_largest_payload_bytes: number;
    /** Size of a delivery item as DynamoDB counts it (what a refused conditional Put of one is billed for). */
    delivery_item_bytes: number;
  };
  /** The scheduled functions, one run each (table with this bench's orders), averaged. */
  scheduled: Record<string, FunctionUse>;
  /** Mean invocation duration per function over every invocation of the whole run, ms. */
  mean_duration_ms: Record<string, number>;
  /** Records per handler call over the whole run (mean and max): how much the pollers batched. */
  batches: Record<'order-events' | 'deliver-callback', { invocations: number; mean: number; max: number }>;
  pipeline_errors: number;
  goals: { p50_ms_max: number; p99_ms_max: number };
}

export interface CallbackOptions {
  dynamodbEndpoint: string;
  /** Orders of the burst. */
  orders: number;
  /** Orders of the paced run and the pause between their payments. */
  pacedOrders: number;
  intervalMs: number;
  probes: number;
  concurrency: number;
}

/** Runs this module in a fresh node process (its own table and handler modules). */
export function measureCallbacks(options: CallbackOptions): Promise<CallbackReport> {
  return runChild<CallbackReport>('bench/callbacks.ts', { BENCH_CALLBACKS_JOB: JSON.stringify(options) });
}

const TABLE = 'bench-callbacks';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntil(what: string, predicate: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`callbacks bench: ${what} did not happen within ${timeoutMs} ms`);
    await sleep(5);
  }
}

/** Runs `fn` over `items` with at most `concurrency` at a time. */
async function pool<T>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

const batchFigures = (sizes: number[]) => ({
  invocations: sizes.length,
  mean: sizes.length ? Math.round((sizes.reduce((a, b) => a + b, 0) / sizes.length) * 10) / 10 : 0,
  max: Math.max(0, ...sizes),
});

/** An item's size as DynamoDB counts it: attribute names plus values (numbers about 1 byte per 2 digits). */
export function itemSizeBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return Math.ceil(String(value).replace(/[-.]/g, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, entry) => sum + 1 + itemSizeBytes(entry), 0);
  if (value instanceof Uint8Array) return value.length;
  return 3 + Object.entries(value as Record<string, unknown>).reduce((sum, [name, entry]) => sum + 1 + Buffer.byteLength(name) + itemSizeBytes(entry), 0);
}

async function run(options: CallbackOptions): Promise<CallbackReport> {
  const { ensureTable, LOCAL_AWS_ENV } = await import('#infra/local/dynamodb');
  const { startLocalSqs } = await import('#infra/local/sqs');
  Object.assign(process.env, LOCAL_AWS_ENV, {
    TABLE_NAME: TABLE,
    DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
    PAYMENT_PAGE_URL: 'http://127.0.0.1/pay/',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
  });
  await ensureTable(options.dynamodbEndpoint, TABLE);
  const sqs = await startLocalSqs({ prefix: TABLE });
  const counter = await startSqsCounter(sqs.endpoint);
  // The environment the local runtime gives the handlers (infra/local/runtime.ts), set before
  // any handler module loads; SQS goes through the counting proxy.
  Object.assign(process.env, {
    CALLBACK_QUEUE_URL: sqs.callbackQueueUrl,
    CALLBACK_DLQ_URL: sqs.callbackDeadLetterQueueUrl,
    SQS_ENDPOINT: counter.endpoint,
    CALLBACK_ALLOW_LOOPBACK: 'true',
    CALLBACK_SWEEP_GRACE_SECONDS: '30',
  });

  const stops: (() => Promise<void>)[] = [() => sqs.stop(), () => counter.stop()];
  try {
    const instrument = new Instrument();
    const { db } = await import('#shared/store/client');
    instrument.attach(db());

    // The API, as the local runtime serves it, with each function's handler wrapped.
    const { ROUTES } = await import('#shared/http/routes');
    const { createApiServer } = await import('#infra/local/http-adapter');
    const { apiFunctions } = await import('#infra/local/handlers');
    const { isStreamingHandler } = await import('#infra/local/lambda-streaming');
    const wrapped = new Map<string, Promise<{ handler: LambdaHandler | StreamingLambdaHandler }>>();
    const load = (fn: string) => {
      let module = wrapped.get(fn);
      if (!module) {
        // A streamed answer (the CSV export) has no result to time: it runs unwrapped.
        module = apiFunctions[fn]!().then(({ handler }) => ({ handler: isStreamingHandler(handler) ? handler : instrument.wrap(fn, handler) }));
        wrapped.set(fn, module);
      }
      return module;
    };
    const server = createApiServer(ROUTES.map((route) => ({ ...route, load: () => load(route.fn) })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // The merchant's endpoint: receipt time of each PAID callback by order id.
    const receipts = new Map<string, number[]>();
    const merchantSite = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const at = Date.now();
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { order_id?: string; status?: string };
          if (body.order_id && body.status === 'PAID') receipts.set(body.order_id, [...(receipts.get(body.order_id) ?? []), at]);
        } catch {
          // not a callback
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"status":200}');
      });
    });
    await new Promise<void>((resolve) => merchantSite.listen(0, '127.0.0.1', resolve));
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          merchantSite.close(() => resolve());
          merchantSite.closeAllConnections();
        }),
    );
    const callbackUrl = `http://127.0.0.1:${(merchantSite.address() as AddressInfo).port}/callback`;

    const { createMerchant } = await import('#shared/services/merchants');
    const merchant = await createMerchant({ name: 'Bench callbacks', sandbox: true });
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(api + path, {
        method,
        headers: { token: merchant.api_token, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`callbacks bench: ${method} ${path} answered ${response.status} ${text}`);
      return JSON.parse(text) as { order: { order_id: string; status: string; updated_at: string } };
    };
    let sequence = 0;
    const createOrder = async (payCurrency?: string) =>
      (
        await call('POST', '/v1/orders', {
          price_amount: 65,
          price_currency: 'USD',
          title: 'Callback bench order',
          merchant_order_id: `cb-${process.pid}-${(sequence += 1)}`,
          callback_url: callbackUrl,
          ...(payCurrency ? { pay_currency: payCurrency } : {}),
        })
      ).order.order_id;
    const pay = async (id: string) => {
      const paid = (await call('POST', `/v1/sandbox/orders/${id}/pay`, {})).order;
      if (paid.status !== 'PAID') throw new Error(`callbacks bench: order ${id} is ${paid.status} after the sandbox payment`);
      return Date.parse(paid.updated_at);
    };

    // The pipeline of infra/local/pipeline.ts, from the same parts with the same options.
    const { startStreamPoller } = await import('#infra/local/stream-poller');
    const { isOutboxInsert } = await import('#shared/callbacks/outbox');
    const { startQueuePoller } = await import('#infra/local/queue-poller');
    const { DELIVERY_CONCURRENCY } = await import('#infra/local/pipeline');
    const { handler: orderEvents } = await import('#functions/order-events/handler');
    const { handler: deliverCallback } = await import('#functions/deliver-callback/handler');
    const { handler: sweepCallbacks } = await import('#functions/sweep-callbacks/handler');
    const { handler: expireOrders } = await import('#functions/expire-orders/handler');
    const { sweepDeliveries } = await import('#shared/callbacks/delivery-job');
    let pipelineErrors = 0;
    /** Per order: when its queue message was sent, and when a delivery invocation took it. */
    const stages = new Map<string, { enqueued: number; started: number }>();
    const streamBatches: number[] = [];
    const deliveryBatches: number[] = [];
    const onError = (error: unknown) => {
      pipelineErrors += 1;
      console.error('callbacks bench: pipeline error:', error);
    };
    await sweepDeliveries(new Date(), 0);
    const stream = await startStreamPoller({
      endpoint: options.dynamodbEndpoint,
      tableName: TABLE,
      handler: instrument.wrap('order-events', async (event: DynamoDBStreamEvent) => {
        streamBatches.push(event.Records.length);
        return orderEvents(event);
      }),
      // The event filter of the AWS mapping: Lambda is not invoked (nor billed) for other records.
      filter: isOutboxInsert,
      onError,
    });
    stops.push(() => stream.stop());
    // As infra/local/pipeline.ts: several delivery pollers at once, like Lambda's concurrency.
    const queues = await Promise.all(
      Array.from({ length: DELIVERY_CONCURRENCY }, () =>
        startQueuePoller({
          endpoint: counter.endpoint,
          queueUrl: sqs.callbackQueueUrl,
          handler: instrument.wrap('deliver-callback', async (event: SQSEvent) => {
            const now = Date.now();
            deliveryBatches.push(event.Records.length);
            for (const record of event.Records) {
              try {
                const job = JSON.parse(record.body) as { order_id?: string };
                if (job.order_id && !stages.has(job.order_id)) stages.set(job.order_id, { enqueued: Number(record.attributes.SentTimestamp), started: now });
              } catch {
                // not a delivery job; the handler reports it
              }
            }
            return deliverCallback(event);
          }),
          onError,
        }),
      ),
    );
    stops.push(() => Promise.all(queues.map((queue) => queue.stop())).then(() => undefined));
    const sweep = instrument.wrap('sweep-callbacks', sweepCallbacks);
    let sweeping: Promise<unknown> = Promise.resolve();
    // The local runtime sweeps every EXPIRY_SWEEP_SECONDS (30 by default).
    const sweepTimer = setInterval(() => (sweeping = sweeping.then(() => sweep()).catch(onError)), 30_000);
    stops.push(async () => {
      clearInterval(sweepTimer);
      await sweeping;
    });

    let lastProbe = '';
    // 1. One order at a time, every step drained: the per-order invocations, units and requests.
    const probe = async () => {
      const id = await createOrder();
      lastProbe = id;
      await stream.drain();
      await call('POST', `/v1/orders/${id}/checkout`, { pay_currency: 'BTC' });
      await stream.drain();
      await call('GET', `/v1/orders/${id}`);
      await call('GET', `/v1/orders/${id}`);
      const deletesBefore = counter.counts.requests.DeleteMessageBatch ?? 0;
      await pay(id);
      await waitUntil(`the callback of probe order ${id}`, () => receipts.has(id), 30_000);
      await waitUntil('the delivered message to be deleted', () => (counter.counts.requests.DeleteMessageBatch ?? 0) > deletesBefore, 30_000);
      await waitUntil('the delivery to finish', () => instrument.idle, 30_000);
      await stream.drain();
      await waitUntil('the last stream batch to finish', () => instrument.idle, 30_000);
    };
    await probe(); // warm-up: first loads, SDK connections, the token cache
    const useBefore = instrument.snapshot();
    const sqsBefore = cloneCounts(counter.counts);
    for (let i = 0; i < options.probes; i += 1) await probe();
    const perOrderUse = Instrument.diff(instrument.snapshot(), useBefore);
    const perOrderSqs: SqsCounts = diffCounts(counter.counts, sqsBefore);
    const perOrder = (value: number) => Math.round((value / options.probes) * 1000) / 1000;
    const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const deliveryItems = await db().send(
      new QueryCommand({
        TableName: TABLE,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :delivery)',
        ExpressionAttributeValues: { ':pk': `ORDER#${lastProbe}`, ':delivery': 'DELIVERY#' },
      }),
    );
    const deliveryItemBytes = Math.max(0, ...(deliveryItems.Items ?? []).map((item) => itemSizeBytes(item)));

    // 2. The scheduled functions, a few runs each (nothing due: the steady state).
    const scheduledBefore = instrument.snapshot();
    const expire = instrument.wrap('expire-orders', expireOrders);
    const scheduledRuns = 5;
    for (let i = 0; i < scheduledRuns; i += 1) {
      await expire();
      await sweep();
    }
    const scheduledUse = Instrument.diff(instrument.snapshot(), scheduledBefore);

    // 3 and 4: paid orders, paced then in a burst; each created (checked out in BTC) beforehand.
    const measure = async (count: number, payAll: (ids: string[], written: Map<string, number>) => Promise<void>): Promise<CallbackRun> => {
      const ids: string[] = [];
      await pool(
        Array.from({ length: count }, (_, i) => i),
        4,
        async () => {
          ids.push(await createOrder('BTC'));
        },
      );
      await stream.drain();
      const written = new Map<string, number>();
      await payAll(ids, written);
      await waitUntil(`${count} callbacks`, () => ids.every((id) => receipts.has(id)), Math.max(60_000, count * 500));
      const latencies = ids.map((id) => receipts.get(id)![0]! - written.get(id)!);
      const stage = (pick: (id: string) => number) => summarize(ids.filter((id) => stages.has(id)).map(pick)).p50;
      const first = Math.min(...written.values());
      const last = Math.max(...ids.map((id) => receipts.get(id)![0]!));
      await sleep(300); // a duplicate would arrive about now
      return {
        orders: count,
        latency_ms: summarize(latencies),
        throughput_per_s: Math.round((count / Math.max(1, last - first)) * 1000 * 10) / 10,
        duplicates: ids.reduce((sum, id) => sum + receipts.get(id)!.length - 1, 0),
        stages_p50_ms: {
          write_to_enqueue: stage((id) => stages.get(id)!.enqueued - written.get(id)!),
          enqueue_to_delivery: stage((id) => stages.get(id)!.started - stages.get(id)!.enqueued),
          delivery_to_receipt: stage((id) => receipts.get(id)![0]! - stages.get(id)!.started),
        },
      };
    };
    const paced = await measure(options.pacedOrders, async (ids, written) => {
      const payments: Promise<void>[] = [];
      for (const id of ids) {
        payments.push(pay(id).then((at) => void written.set(id, at)));
        await sleep(options.intervalMs);
      }
      await Promise.all(payments);
    });
    const burst = await measure(options.orders, (ids, written) =>
      pool(ids, options.concurrency, async (id) => {
        written.set(id, await pay(id));
      }),
    );

    const perFunction = (use: Record<string, FunctionUse>, runs: number) =>
      Object.fromEntries(
        Object.entries(use).map(([name, u]) => [
          name,
          {
            invocations: Math.round((u.invocations / runs) * 1000) / 1000,
            durationMs: Math.round((u.durationMs / runs) * 100) / 100,
            requests: Math.round((u.requests / runs) * 1000) / 1000,
            readUnits: Math.round((u.readUnits / runs) * 1000) / 1000,
            writeUnits: Math.round((u.writeUnits / runs) * 1000) / 1000,
            failedConditionalWrites: Math.round((u.failedConditionalWrites / runs) * 1000) / 1000,
          },
        ]),
      );
    return {
      paced: { ...paced, interval_ms: options.intervalMs },
      burst: { ...burst, concurrency: options.concurrency },
      per_order: {
        orders: options.probes,
        functions: perFunction(perOrderUse, options.probes),
        sqs: Object.fromEntries(Object.entries(perOrderSqs.billed).map(([action, n]) => [action, perOrder(n)])),
        sqs_largest_payload_bytes: perOrderSqs.largestPayloadBytes,
        delivery_item_bytes: deliveryItemBytes,
      },
      scheduled: perFunction(scheduledUse, scheduledRuns),
      mean_duration_ms: Object.fromEntries([...instrument.durations].map(([name, list]) => [name, Math.round((list.reduce((a, b) => a + b, 0) / list.length) * 100) / 100])),
      batches: { 'order-events': batchFigures(streamBatches), 'deliver-callback': batchFigures(deliveryBatches) },
      pipeline_errors: pipelineErrors,
      goals: { p50_ms_max: 1000, p99_ms_max: 3000 },
    };
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
}

if (process.env.BENCH_CALLBACKS_JOB) {
  const result = await run(JSON.parse(process.env.BENCH_CALLBACKS_JOB) as CallbackOptions);
  // Clients with keep-alive sockets (the handlers' SDK clients) would hold the process open.
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
}
