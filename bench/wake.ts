/**
 * Waking an idle chain (bench group `wake`, issue 21), in its own node process with its own
 * table on the bench's DynamoDB Local:
 *
 * - checkout -> first watcher step for an idle chain: checkout's demand write (what a checkout
 *   on an idle chain writes last before its invoice), the table stream read by the local
 *   stream poller at Lambda's rate for a stream shard (4 polls a second) with the mapping's
 *   filter, the real wake-watchers handler, its signed asynchronous Invoke to a local stand-in
 *   of the Lambda API, and the chain's pay-per-use run in process until its first step against a
 *   local Esplora is done. AWS adds the queueing of the asynchronous invocation and, when cold,
 *   the watch-chain function's start (about 100 to 200 ms of module load; docs/performance.md).
 * - one idle run of an indexed source with nothing watched (TRON; Solana's step is the same
 *   Query of its watch list): the demand check, the step and the health report, for the idle
 *   month's cost (bench/cost.ts `idleMonthlyCost`).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { startEsploraServer } from '../tests/support/esplora-server';
import { UtxoChain } from '../tests/support/utxo-chain';
import { runChild } from './child';
import { meterCapacity } from './capacity';
import { round2, summarize, type LatencyFigures } from './stats';

export interface WakeReport {
  samples: number;
  /** Lambda's stream poll interval modelled by the local poller. */
  stream_poll_ms: number;
  /** The demand write (in checkout) -> the watch-chain function invoked. */
  checkout_to_invoke_ms: LatencyFigures;
  /** The demand write -> the woken run's first step done (its first look at the chain). */
  checkout_to_first_step_ms: LatencyFigures;
  /** Before: an idle chain waited for the next scheduled run, 0 to 60 s (mean 30 s). */
  before_ms: { mean: number; max: number };
  /** One idle run of TRON with nothing watched: DynamoDB requests and units, source requests, ms (median of 5). */
  indexed_idle_run: { dynamodb_requests: number; read_units: number; write_units: number; source_requests: number; ms: number };
}

export interface WakeOptions {
  dynamodbEndpoint: string;
  samples: number;
}

/** Runs this module in a fresh node process (its own table, configuration and handler modules). */
export function measureWake(options: WakeOptions): Promise<WakeReport> {
  return runChild<WakeReport>('bench/wake.ts', { BENCH_WAKE_JOB: JSON.stringify(options) });
}

const STREAM_POLL_MS = 250;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function run(options: WakeOptions): Promise<WakeReport> {
  const { ensureTable } = await import('#infra/local/dynamodb');
  const table = `bench-wake-${randomUUID().slice(0, 8)}`;
  await ensureTable(options.dynamodbEndpoint, table);
  const esplora = await startEsploraServer(new UtxoChain('BTC'));

  // The local stand-in of the Lambda Invoke API: each invocation runs the watcher in process
  // until its first step is done (the step in flight when its signal ends finishes).
  let invoked: ((at: number) => void) | undefined;
  let stepped: ((at: number) => void) | undefined;
  const runs: Promise<unknown>[] = [];
  const lambdaApi: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.writeHead(202).end();
      invoked?.(performance.now());
      // The woken invocation: one step (the next one's tick is kept here, not timed).
      runs.push(
        watchChainStep('BTC', undefined, { send: async () => undefined, budgetMs: 5_000 }).then((summary) => {
          if (!('next' in summary) || summary.steps < 1) throw new Error(`wake bench: the woken run did not step (${JSON.stringify(summary)})`);
          stepped?.(performance.now());
        }),
      );
    });
  });
  await new Promise<void>((resolve) => lambdaApi.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    TABLE_NAME: table,
    DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
    WATCHER_FUNCTIONS: JSON.stringify({ BTC: 'watch-chain-btc' }),
    LAMBDA_ENDPOINT: `http://127.0.0.1:${(lambdaApi.address() as AddressInfo).port}`,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    BTC_ESPLORA_URL: esplora.url,
    WATCH_INTERVAL_SECONDS: '1',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  const { watchChainStep } = await import('#shared/watchers/stepped');
  const { demandWatching, isWatchDemandChange, watchingNeeded } = await import('#shared/store/watch-demand');
  const { handler } = await import('#functions/wake-watchers/handler');
  const { startStreamPoller } = await import('#infra/local/stream-poller');
  const { db, tableName } = await import('#shared/store/client');
  const { DeleteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { watchDemandKey, watchLeaseKey } = await import('#shared/store/keys');
  const poller = await startStreamPoller({ endpoint: options.dynamodbEndpoint, tableName: table, handler, filter: isWatchDemandChange, pollIntervalMs: STREAM_POLL_MS });

  const toInvoke: number[] = [];
  const toStep: number[] = [];
  try {
    for (let i = 0; i < options.samples; i += 1) {
      // The chain idle again: its demand gone (a REMOVE, which the filter drops), no line holding it.
      await Promise.all(runs.splice(0));
      await db().send(new DeleteCommand({ TableName: tableName(), Key: watchDemandKey('BTC') }));
      await db().send(new DeleteCommand({ TableName: tableName(), Key: watchLeaseKey('BTC') }));
      if (await watchingNeeded('BTC', new Date())) throw new Error('wake bench: BTC is not idle');
      // A random phase against the stream poller, as a real checkout's is.
      await sleep(Math.random() * STREAM_POLL_MS);
      const invokedAt = new Promise<number>((resolve) => (invoked = resolve));
      const steppedAt = new Promise<number>((resolve) => (stepped = resolve));
      const start = performance.now();
      await demandWatching('BTC', new Date(Date.now() + 3_600_000));
      const timeout = sleep(15_000).then(() => Promise.reject(new Error('wake bench: no watcher step within 15 s of the checkout')));
      toInvoke.push((await Promise.race([invokedAt, timeout])) - start);
      toStep.push((await Promise.race([steppedAt, timeout])) - start);
    }
    await Promise.all(runs.splice(0));
  } finally {
    await poller.stop();
    await new Promise((resolve) => lambdaApi.close(resolve));
  }

  const indexedIdleRun = await measureIndexedIdleRun();
  await esplora.close();
  const step = summarize(toStep);
  return {
    samples: options.samples,
    stream_poll_ms: STREAM_POLL_MS,
    checkout_to_invoke_ms: summarize(toInvoke),
    checkout_to_first_step_ms: step,
    before_ms: { mean: 30_000, max: 60_000 },
    indexed_idle_run: indexedIdleRun,
  };
}

/** The parts of one idle TRON run (shared/watchers/idle.ts), each on a chain name of its own. Median of 5. */
async function measureIndexedIdleRun(): Promise<WakeReport['indexed_idle_run']> {
  const { watchingNeeded } = await import('#shared/store/watch-demand');
  const { PER_ADDRESS_ITEMS, WatchList } = await import('#shared/store/watch-list');
  const { IndexedWatcher } = await import('#shared/watchers/indexed-watcher');
  const { TronTransfers } = await import('#shared/watchers/sources/tron');
  const { HealthReporter } = await import('#shared/watchers/health-reports');
  const { db } = await import('#shared/store/client');
  const { reset } = meterCapacity(db());
  let sourceRequests = 0;
  // No address is watched, so the source is asked only its network, once per container (block
  // 0's id, mainnet's here), and its newest solidified block at most once a minute (each idle
  // look, minutes apart): a server that counts and answers those is enough.
  const tronGrid = createServer((request, response) => {
    sourceRequests += 1;
    request.resume();
    const answer = (body: unknown) => void response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.url === '/wallet/getblockbynum') return answer({ blockID: '00000000000000001ebf88508a03865c71d452e25f4d51194196a1d22b6653dc', block_header: { raw_data: {} } });
    if (request.url === '/walletsolidity/getnowblock') return answer({ blockID: '0'.repeat(64), block_header: { raw_data: { number: 70_000_000, timestamp: Date.now() - 57_000 } } });
    response.writeHead(500).end();
  });
  // The source's clock moves by an idle look's interval (WATCH_IDLE_LOOK_SECONDS, about 3 minutes) per run.
  let clock = Date.now();
  await new Promise<void>((resolve) => tronGrid.listen(0, '127.0.0.1', resolve));
  let name = `TRON-bench-idle-${randomUUID()}`;
  let list = new WatchList(PER_ADDRESS_ITEMS, name);
  // One source, as a warm container keeps it: its first step (the network check) is not measured.
  const source = new TronTransfers({
    url: `http://127.0.0.1:${(tronGrid.address() as AddressInfo).port}`,
    contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    currency: 'USDT_TRC20',
    decimals: 6,
    clock: () => new Date(clock),
    watched: (now) => list.current(now),
  });
  const runs: WakeReport['indexed_idle_run'][] = [];
  try {
    await source.after(undefined, 1);
    for (let i = 0; i < 5; i += 1) {
      name = `TRON-bench-idle-${randomUUID()}`;
      // A container's list (shared/watchers/wiring.ts): its first read is whole, of an empty list here.
      list = new WatchList(PER_ADDRESS_ITEMS, name);
      clock += 180_000;
      const watcher = new IndexedWatcher(source, { cursorName: name, keepUnmatched: true });
      const requestsBefore = sourceRequests;
      reset();
      const start = performance.now();
      if (await watchingNeeded(name, new Date())) throw new Error('wake bench: an idle chain was found needed');
      await watcher.step();
      // A new reporter per run: each run's report is written, as a run every minute's is.
      await new HealthReporter(name, 'trongrid').succeeded({ caughtUp: true });
      const ms = performance.now() - start;
      const units = reset();
      runs.push({ dynamodb_requests: units.requests, read_units: round2(units.readUnits), write_units: round2(units.writeUnits), source_requests: sourceRequests - requestsBefore, ms: round2(ms) });
    }
  } finally {
    await new Promise((resolve) => tronGrid.close(resolve));
  }
  return runs.sort((a, b) => a.ms - b.ms)[2]!;
}

if (process.env.BENCH_WAKE_JOB) {
  const result = await run(JSON.parse(process.env.BENCH_WAKE_JOB) as WakeOptions);
  // Clients with keep-alive sockets (the handlers' SDK clients) would hold the process open.
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
}
