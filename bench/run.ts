/**
 * `npm run bench`: every figure in one run. Prints human tables, then one JSON line last.
 * It measures and reports; it never fails because the machine was slow. It exits non-zero only
 * when a measurement could not be made (something is broken); the other groups still report.
 *
 * Groups, one module each: bundles (bench/bundles.ts), page (bench/page.ts), api
 * (bench/api-latency.ts), load (bench/load.ts), callbacks (bench/callbacks.ts), auth-flood
 * (bench/auth-flood.ts), export (bench/export.ts), paging (bench/paging.ts: Get Orders at deep
 * offsets), cost (bench/cost.ts, from the others' figures). See docs/performance.md for every setting.
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { ensureTable, LOCAL_AWS_ENV, startDynamoDbLocal, type LocalDynamoDb } from '#infra/local/dynamodb';
import { positiveInteger } from '#shared/core/env';
import type { ApiClient, EndpointFigures } from './api-latency';
import type { AuthFloodReport, FloodRun } from './auth-flood';
import { measureBundles } from './bundles';
import { measureCallbacks, type CallbackReport, type CallbackRun } from './callbacks';
import { measureExport, type ExportReport } from './export';
import { idleFloor } from './idle-floor';
import { computeCost, DEFAULT_ASSUMPTIONS } from './cost';
import type { LoadReport } from './load';
import { measurePage } from './page';
import type { PagingReport } from './paging';
import type { WatcherReport } from './watcher';
import type { WakeReport } from './wake';
import type { SteppedReport } from './stepped';
import type { TronRequestsReport } from './tron-requests';
import type { SolanaRequestsReport } from './solana-requests';
import type { EvmRequestsReport } from './evm-requests';
import type { RefundRequestsReport } from './refund-requests';
import { runChild } from './child';
import { watcherMonthlyCost } from './cost';

Object.assign(process.env, LOCAL_AWS_ENV, {
  POWERTOOLS_LOG_LEVEL: 'ERROR',
  // API tokens are stored under a server-side key (as the local runtime makes one): a key for this run.
  TOKEN_HMAC_KEY: process.env.TOKEN_HMAC_KEY ?? randomBytes(32).toString('hex'),
});
const env = process.env;
function apiClient(value: string | undefined): ApiClient {
  if (value === undefined || value === 'http' || value === 'fetch') return value ?? 'http';
  throw new Error(`BENCH_API_CLIENT must be http or fetch, got ${value}`);
}
const config = {
  iterations: positiveInteger(env, 'BENCH_ITERATIONS', 300),
  api_client: apiClient(env.BENCH_API_CLIENT),
  bundle_load_runs: positiveInteger(env, 'BENCH_BUNDLE_RUNS', 3),
  load_seconds: positiveInteger(env, 'BENCH_LOAD_SECONDS', 8),
  load_connections: positiveInteger(env, 'BENCH_LOAD_CONNECTIONS', 10),
  callback_orders: positiveInteger(env, 'BENCH_CALLBACK_ORDERS', 200),
  callback_paced_orders: positiveInteger(env, 'BENCH_CALLBACK_PACED', 40),
  callback_interval_ms: positiveInteger(env, 'BENCH_CALLBACK_INTERVAL_MS', 200),
  callback_probes: positiveInteger(env, 'BENCH_CALLBACK_PROBES', 5),
  callback_concurrency: positiveInteger(env, 'BENCH_CALLBACK_CONCURRENCY', 10),
  watcher_orders: positiveInteger(env, 'BENCH_WATCHER_ORDERS', 20),
  auth_flood_requests: positiveInteger(env, 'BENCH_AUTH_FLOOD_REQUESTS', 600),
  auth_flood_concurrency: positiveInteger(env, 'BENCH_AUTH_FLOOD_CONCURRENCY', 20),
  export_sizes: (env.BENCH_EXPORT_SIZES ?? '20000,100000').split(',').map((size) => positiveInteger({ size }, 'size', 1)),
  wake_samples: positiveInteger(env, 'BENCH_WAKE_SAMPLES', 10),
  stepped_samples: positiveInteger(env, 'BENCH_STEPPED_SAMPLES', 10),
  orders_per_month: positiveInteger(env, 'BENCH_ORDERS_PER_MONTH', DEFAULT_ASSUMPTIONS.orders_per_month),
  paging_orders: positiveInteger(env, 'BENCH_PAGING_ORDERS', 100_000),
  paging_iterations: positiveInteger(env, 'BENCH_PAGING_ITERATIONS', 30),
};
const GROUPS = ['bundles', 'page', 'api', 'load', 'callbacks', 'watcher', 'steps', 'requests', 'wake', 'auth-flood', 'export', 'paging', 'cost'] as const;
type Group = (typeof GROUPS)[number];
const only = env.BENCH_ONLY?.split(',')
  .map((g) => g.trim())
  .filter(Boolean);
const unknown = only?.filter((g) => !(GROUPS as readonly string[]).includes(g));
if (unknown?.length) throw new Error(`BENCH_ONLY: unknown group ${unknown.join(', ')} (groups: ${GROUPS.join(', ')})`);
// The cost is computed from the api, callbacks and bundles figures: asking for it runs them.
if (only?.includes('cost')) only.push('api', 'callbacks', 'bundles', 'watcher', 'steps', 'wake');
/** Groups run only when BENCH_ONLY names them: paging seeds 100,000 orders (about 15 minutes here). */
const ON_REQUEST: readonly Group[] = ['paging'];
const wanted = (group: Group) => (only ? only.includes(group) : !ON_REQUEST.includes(group));

const errors: Partial<Record<Group, string>> = {};
const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);

/** Runs one group; a failure is recorded (and makes the exit code 1), the others go on. */
async function group<T>(name: Group, measure: () => Promise<T> | T): Promise<T | undefined> {
  if (!wanted(name)) return undefined;
  const start = Date.now();
  progress(`${name}...`);
  try {
    const result = await measure();
    progress(`${name} done in ${((Date.now() - start) / 1000).toFixed(1)} s`);
    return result;
  } catch (error) {
    errors[name] = error instanceof Error ? (error.stack ?? error.message) : String(error);
    progress(`${name} FAILED: ${errors[name]}`);
    return undefined;
  }
}

// Bundles first, before DynamoDB Local's JVM competes for the two cores.
const bundles = await group('bundles', () => measureBundles(config.bundle_load_runs));
const page = await group('page', () => measurePage());

let endpoints: EndpointFigures[] | undefined;
let load: LoadReport | undefined;
let callbacks: CallbackReport | undefined;
let watcher: WatcherReport | undefined;
let authFlood: AuthFloodReport | undefined;
let exported: ExportReport | undefined;
let paging: PagingReport | undefined;
let wake: WakeReport | undefined;
let stepped: SteppedReport | undefined;
/** Provider requests a minute per chain at 2 to 1,000 open invoices (issue 28): each measured in a process of its own. */
let requests: { tron: TronRequestsReport; solana: SolanaRequestsReport; evm: EvmRequestsReport; refunds: RefundRequestsReport } | undefined;
let dynamodb: LocalDynamoDb | undefined;
if (
  wanted('api') ||
  wanted('load') ||
  wanted('callbacks') ||
  wanted('watcher') ||
  wanted('steps') ||
  wanted('requests') ||
  wanted('wake') ||
  wanted('auth-flood') ||
  wanted('export') ||
  wanted('paging') ||
  wanted('cost')
) {
  dynamodb = await startDynamoDbLocal();
}
try {
  if (dynamodb) {
    const tableName = 'bench-orders';
    await ensureTable(dynamodb.endpoint, tableName);
    Object.assign(process.env, { TABLE_NAME: tableName, DYNAMODB_ENDPOINT: dynamodb.endpoint, PAYMENT_PAGE_URL: 'http://127.0.0.1/pay/' });
    const endpoint = dynamodb.endpoint;
    endpoints = await group('api', async () => (await import('./api-latency')).measureApiLatency(config.iterations, config.api_client));
    // The load group runs last: its flood of writes leaves DynamoDB Local slower for whatever
    // runs after it (in one trial the burst callback p50 went from 1.1 s to 1.9 s).
    callbacks = await group('callbacks', () =>
      measureCallbacks({
        dynamodbEndpoint: endpoint,
        orders: config.callback_orders,
        pacedOrders: config.callback_paced_orders,
        intervalMs: config.callback_interval_ms,
        probes: config.callback_probes,
        concurrency: config.callback_concurrency,
      }),
    );
    watcher = await group('watcher', async () => (await import('./watcher')).measureWatcher({ orders: config.watcher_orders }));
    stepped = await group('steps', async () => (await import('./stepped')).measureStepped({ dynamodbEndpoint: endpoint, samples: config.stepped_samples }));
    requests = await group('requests', async () => ({
      tron: await runChild<TronRequestsReport>('bench/tron-requests.ts', {}),
      solana: await runChild<SolanaRequestsReport>('bench/solana-requests.ts', {}),
      evm: await runChild<EvmRequestsReport>('bench/evm-requests.ts', {}),
      // Refunds waiting for the merchant's payment: TRON flat, Solana one account a refund (issue 30).
      refunds: await runChild<RefundRequestsReport>('bench/refund-requests.ts', {}),
    }));
    wake = await group('wake', async () => (await import('./wake')).measureWake({ dynamodbEndpoint: endpoint, samples: config.wake_samples }));
    authFlood = await group('auth-flood', async () =>
      (await import('./auth-flood')).measureAuthFlood({ requests: config.auth_flood_requests, concurrency: config.auth_flood_concurrency, victimSamples: config.iterations }),
    );
    exported = await group('export', () => measureExport({ dynamodbEndpoint: endpoint, tableName, sizes: config.export_sizes }));
    paging = await group('paging', async () => (await import('./paging')).measurePaging({ orders: config.paging_orders, iterations: config.paging_iterations }));
    load = await group('load', async () => (await import('./load')).measureLoad({ connections: config.load_connections, seconds: config.load_seconds }));
  }
} finally {
  await dynamodb?.stop();
}
const cost = await group('cost', () => {
  if (!endpoints || !callbacks) throw new Error('cost needs the api and callbacks figures (one of them failed or was not run)');
  const computed = computeCost(endpoints, callbacks, bundles, { ...DEFAULT_ASSUMPTIONS, orders_per_month: config.orders_per_month }, watcher, wake?.indexed_idle_run, stepped);
  // The whole deployment idle (alarms, metrics, keys, secrets, schedules, polls), from the synthesized stack.
  return { ...computed, idle_floor: idleFloor(computed.idle, callbacks.scheduled) };
});

// ---- Human tables ---------------------------------------------------------------------------

function table(title: string, header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  console.log(`\n${title}`);
  for (const [index, row] of cells.entries()) {
    console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
    if (index === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  }
}
const ms = (value: number) => `${value.toFixed(2)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const verdict = (met: boolean) => (met ? 'met' : 'NOT met');

if (bundles) {
  const { goals } = bundles;
  table(
    `Bundles (esbuild as the CDK construct: ${bundles.esbuild.target}, ESM, minified; load = import() in a fresh node ${bundles.load_node}, median of ${config.bundle_load_runs}) — goal < ${kb(goals.minified_bytes_max)} and < ${goals.load_ms_max} ms`,
    ['function', 'minified', 'gzip', 'load p50', 'load min', 'load max', 'size goal', 'load goal'],
    bundles.bundles.map((b) => [
      b.function,
      kb(b.minified_bytes),
      kb(b.gzip_bytes),
      ms(b.load_ms.median),
      ms(b.load_ms.min),
      ms(b.load_ms.max),
      verdict(b.minified_bytes < goals.minified_bytes_max),
      verdict(b.load_ms.median < goals.load_ms_max),
    ]),
  );
}
if (page) {
  table(
    `Payment page (gzip -9 of web/dist) — goal < ${kb(page.goals.total_gzip_bytes_max)} JS + CSS`,
    ['what', 'gzip', 'goal'],
    page.total_gzip_bytes === null
      ? [['web/dist', 'n/a', page.note ?? '']]
      : [
          ['JS', kb(page.js_gzip_bytes ?? 0), ''],
          ['CSS', kb(page.css_gzip_bytes ?? 0), ''],
          ['total', kb(page.total_gzip_bytes), verdict(page.total_gzip_bytes < page.goals.total_gzip_bytes_max)],
        ],
  );
}
if (endpoints) {
  table(
    `Endpoint latency through the local runtime (n=${config.iterations}) vs the same DynamoDB calls made directly — goal ratio < 1.5x at p50`,
    ['endpoint', 'api p50', 'api p99', 'raw p50', 'raw p99', 'ratio', 'ddb req', 'RCU', 'WCU', 'goal'],
    endpoints.map((e) => [
      e.endpoint,
      ms(e.api.p50),
      ms(e.api.p99),
      ms(e.raw.p50),
      ms(e.raw.p99),
      `${e.overheadP50}x`,
      e.dynamodb.requests,
      e.dynamodb.readUnits,
      e.dynamodb.writeUnits,
      verdict(e.overheadP50 < 1.5),
    ]),
  );
}
if (load) {
  const row = (name: string, f: LoadReport['mix']) => [name, `${f.throughput_rps}/s`, ms(f.latency_ms.p50), ms(f.latency_ms.p99), f.requests, f.non2xx, f.errors, f.body_errors];
  table(
    `Load (autocannon, ${config.load_connections} connections, ${config.load_seconds} s each) — goals: zero errors; create throughput >= 60% of DynamoDB Local's for the same writes`,
    ['run', 'throughput', 'p50', 'p99', 'requests', 'non-2xx', 'errors', 'error bodies'],
    [row('API mix (create, get, checkout, get, list)', load.mix), row('API Create Order only', load.create), row('DynamoDB Local, same write', load.dynamodb)],
  );
  console.log(
    `create / DynamoDB Local throughput: ${Math.round(load.create_vs_dynamodb_ratio * 100)}% (goal >= 60%: ${verdict(load.create_vs_dynamodb_ratio >= 0.6)}); API errors: ${load.api_errors} (goal 0: ${verdict(load.api_errors === 0)})`,
  );
}
if (callbacks) {
  const row = (name: string, r: CallbackRun) => [
    name,
    r.orders,
    ms(r.latency_ms.p50),
    ms(r.latency_ms.p99),
    `${r.throughput_per_s}/s`,
    r.duplicates,
    ms(r.stages_p50_ms.write_to_enqueue),
    ms(r.stages_p50_ms.enqueue_to_delivery),
    ms(r.stages_p50_ms.delivery_to_receipt),
    verdict(r.latency_ms.p50 < 1000 && r.latency_ms.p99 < 3000),
  ];
  table(
    'Callbacks (status-change write to the merchant receipt, local pipeline) — goal p50 < 1 s, p99 < 3 s',
    ['run', 'orders', 'p50', 'p99', 'delivered', 'duplicates', 'write->queued p50', 'queued->taken p50', 'taken->received p50', 'goal'],
    [row(`paced (one payment every ${callbacks.paced.interval_ms} ms)`, callbacks.paced), row(`burst (${callbacks.burst.concurrency} concurrent payments)`, callbacks.burst)],
  );
  const b = callbacks.batches;
  console.log(
    `pipeline errors: ${callbacks.pipeline_errors}; records per call: order-events mean ${b['order-events'].mean} (max ${b['order-events'].max}), deliver-callback mean ${b['deliver-callback'].mean} (max ${b['deliver-callback'].max})`,
  );
}
if (exported) {
  table(
    `Orders export, streamed through the local runtime (${exported.page_size} orders a page; server and client in one process)`,
    ['orders', 'rows', 'size', 'first byte', 'first row', 'total', 'rows/s', 'RSS growth', 'heap growth', 'complete'],
    exported.runs.map((r) => [
      r.orders,
      r.rows,
      kb(r.bytes),
      ms(r.first_byte_ms),
      ms(r.first_row_ms),
      ms(r.total_ms),
      r.rows_per_second,
      `${r.rss_growth_mb} MB`,
      `${r.heap_growth_mb} MB`,
      String(r.complete),
    ]),
  );
}
if (watcher) {
  const d = watcher.detection_ms;
  table(
    `Chain watcher detection (local Esplora, real transactions, polling every ${watcher.interval_ms} ms; ${d.orders} orders) — goal p50 < ${watcher.goals.detection_p50_ms_max / 1000} s`,
    ['from -> to', 'p50', 'p99', 'max', 'goal'],
    [
      ['broadcast -> PENDING (callback queued)', ms(d.pending.p50), ms(d.pending.p99), ms(d.pending.max), verdict(d.pending.p50 < watcher.goals.detection_p50_ms_max)],
      ['confirming block -> PAID (callback queued)', ms(d.paid.p50), ms(d.paid.p99), ms(d.paid.max), verdict(d.paid.p50 < watcher.goals.detection_p50_ms_max)],
    ],
  );
  table(
    'Chain watcher work per block (one step; 5 outputs pay invoices)',
    ['source', 'transactions', 'outputs', 'open-list items read', 'addresses looked up', 'source requests', 'ddb requests', 'RCU (local)', 'RCU (AWS bills)', 'WCU', 'time'],
    watcher.per_block.map((b) => [
      b.source,
      b.transactions,
      b.outputs,
      b.open_list_items,
      b.lookups,
      b.source_requests,
      b.dynamodb_requests,
      b.read_units,
      b.billed_lookup_read_units,
      b.write_units,
      ms(b.ms),
    ]),
  );
  table(
    "One order's booking, request by request (units as DynamoDB Local reports them; 'step' lines are the step's, not the order's)",
    ['step', 'request', 'items', 'per', 'WRU', 'WRU (AWS bills)', 'RRU', 'by table / index'],
    watcher.booking_requests.map((r) => [
      r.step,
      r.request,
      r.items,
      r.per,
      r.write_units,
      r.billed_write_units,
      r.read_units,
      Object.entries(r.units_by)
        .map(([k, v]) => `${k} ${v}`)
        .join(', '),
    ]),
  );
  console.log(
    `idle round: ${watcher.idle_round.dynamodb_requests} DynamoDB requests (${watcher.idle_round.read_units} RCU), ${watcher.idle_round.source_requests} source requests; booking one order: ${watcher.per_order_booking.write_units} WCU (AWS bills ${watcher.per_order_booking.billed_write_units}), ${watcher.per_order_booking.read_units} RCU`,
  );
  if (stepped) {
    const fixed = watcherMonthlyCost(watcher, stepped);
    console.log(
      `in demand per chain and month (stepped): ${Object.entries(fixed.per_chain_per_month_usd)
        .map(([c, u]) => `${c} $${u.total} (Lambda $${u.lambda}, DynamoDB $${u.dynamodb}, SQS $${u.sqs})`)
        .join(', ')}`,
    );
  }
}
if (stepped) {
  const lat = (f: { p50: number; p99: number; mean: number }) => [ms(f.p50), ms(f.p99), ms(f.mean)];
  table(
    `A chain in demand, stepped through the timer queue (WATCH_INTERVAL_SECONDS=${stepped.interval_seconds}, ${stepped.samples} payments; shared/watchers/stepped.ts)`,
    ['detection', 'p50', 'p99', 'mean'],
    [
      ['broadcast -> PENDING', ...lat(stepped.broadcast_to_pending_ms)],
      ['last confirmation -> PAID', ...lat(stepped.block_to_paid_ms)],
    ],
  );
  const row = (name: string, f: SteppedReport['step']) => [name, ms(f.ms), f.dynamodb_requests, f.read_units, f.write_units, f.source_requests, f.sqs_requests];
  table(
    'Each invocation, warm (median of 20)',
    ['invocation', 'time', 'DynamoDB req', 'RRU', 'WRU', 'source req', 'SQS req'],
    [
      row('a step (caught up)', stepped.step),
      row('a step that claims the lease (once a minute)', stepped.claiming_step),
      row('the minute run, a line holding the chain', stepped.minute_run_leased),
      row('tick-watchers, one message', stepped.ticker),
    ],
  );
}
if (authFlood) {
  const row = (name: string, r: FloodRun) => [
    name,
    r.victim.n,
    ms(r.victim.p50),
    ms(r.victim.p99),
    r.flood ? `${r.flood.requests_per_s}/s` : '',
    r.flood
      ? Object.entries(r.flood.by_status)
          .map(([status, n]) => `${status} x${n}`)
          .join(', ')
      : '',
  ];
  table(
    `Failed-authentication flood (${authFlood.flood_requests} bad tokens from one address, ${authFlood.flood_concurrency} at once) against another merchant's Get Order; budget ${authFlood.budget.limit} failures per ${authFlood.budget.window_seconds} s per address`,
    ['run', 'victim n', 'victim p50', 'victim p99', 'flood rate', 'flood answers'],
    [
      row('no flood', authFlood.quiet),
      row('flood, failure budget on', authFlood.flood),
      row('flood, budget off (before issue 21)', authFlood.flood_without_budget),
      row('no flood, again', authFlood.quiet_after),
    ],
  );
}
if (requests) {
  const tron = Object.entries(requests.tron.by_open_invoices).map(([open, f]) => [`TRON, ${open} open`, f.requests_per_minute, Math.round(f.requests_per_minute * 1440).toLocaleString('en-US')]);
  const solana = requests.solana.scenarios.map((f) => [
    `Solana, ${f.merchants} merchant(s), ${f.open_invoices} open`,
    f.requests_per_minute,
    Math.round(f.requests_per_minute * 1440).toLocaleString('en-US'),
  ]);
  const evm = requests.evm.networks.flatMap((n) =>
    (['after_2', 'after_1000'] as const).map((run) => [
      `${n.chain}, ${run === 'after_2' ? 2 : 1000} open (HTTP / calls)`,
      `${n.runs[run]!.http_per_minute} / ${n.runs[run]!.calls_per_minute}`,
      Math.round(n.runs[run]!.http_per_minute * 1440).toLocaleString('en-US'),
    ]),
  );
  table(`Provider requests a minute at WATCH_INTERVAL_SECONDS=10, by open invoices (issue 28)`, ['source', 'requests / min', 'a day'], [...tron, ...solana, ...evm]);
}
if (wake) {
  const lat = (f: { p50: number; p99: number; mean: number }) => [ms(f.p50), ms(f.p99), ms(f.mean)];
  table(
    `Waking an idle chain (stream polled every ${wake.stream_poll_ms} ms, as Lambda polls a shard; ${wake.samples} checkouts) — before: the next scheduled run, 0 to 60 s`,
    ["from the checkout's demand write", 'p50', 'p99', 'mean'],
    [
      ['-> watch-chain invoked', ...lat(wake.checkout_to_invoke_ms)],
      ['-> its first step done', ...lat(wake.checkout_to_first_step_ms)],
    ],
  );
  const r = wake.indexed_idle_run;
  console.log(`idle TRON/Solana run (nothing watched): ${r.dynamodb_requests} DynamoDB requests (${r.read_units} RCU, ${r.write_units} WCU), ${r.source_requests} source requests, ${ms(r.ms)}`);
}
if (cost) {
  table(
    `AWS cost per million orders (us-east-1 list prices; ${DEFAULT_ASSUMPTIONS.memory_mb} MB arm64; ${cost.assumptions.orders_per_month.toLocaleString('en-US')} orders/month) — goal < $${cost.goals.usd_per_million_orders_max}`,
    ['step (per order)', 'invocations', 'billed ms', 'WRU', 'RRU', 'SQS req', 'HTTP req', '$ / 1M orders'],
    cost.lines.map((l) => [l.step, l.invocations, l.billed_ms, l.write_units, l.read_units, l.sqs_requests, l.http_requests, l.usd_per_million_orders.toFixed(3)]),
  );
  const u = cost.usd_per_million_orders;
  table(
    'Cost by service ($ per million orders)',
    ['service', '$'],
    [
      ['Lambda requests', u.lambda_requests.toFixed(2)],
      ['Lambda duration', u.lambda_duration.toFixed(2)],
      ['API Gateway HTTP API', u.http_api.toFixed(2)],
      ['DynamoDB writes', u.dynamodb_writes.toFixed(2)],
      ['DynamoDB reads', u.dynamodb_reads.toFixed(2)],
      ['SQS', u.sqs.toFixed(2)],
      [`total (goal < $${cost.goals.usd_per_million_orders_max}: ${verdict(u.total < cost.goals.usd_per_million_orders_max)})`, u.total.toFixed(2)],
      ['total if Lambda ran 3x slower than here', cost.total_if_lambda_3x_slower.toFixed(2)],
    ],
  );
  if (cost.chain_payment) {
    const c = cost.chain_payment;
    const goal = cost.goals.chain_payment_usd_per_million_orders_max;
    console.log(
      `chain payment, one more order (goal < $${goal}: ${verdict(c.per_order_max < goal)}): ` +
        `${Object.entries(c.per_order)
          .map(([kind, usd]) => `${kind} $${usd}`)
          .join(', ')} per million orders ` +
        `(a block chain's booking $${c.booking}, one reported final $${c.final_booking}; TRON's and Solana's watched address ${Object.entries(c.per_watched_address)
          .map(([chain, w]) => `${chain} $${w.usd_per_million_orders} (${w.read_units} RRU)`)
          .join(', ')})`,
    );
    console.log(
      `with the watchers' polling while every chain is in demand ($${Object.values(c.in_demand_usd_per_chain_month)
        .reduce((a, b) => a + b, 0)
        .toFixed(2)} a month for ${Object.keys(c.in_demand_usd_per_chain_month).length} chains), ` +
        `spread over ${cost.assumptions.orders_per_month.toLocaleString('en-US')} orders: $${c.total} per million (the watchers' share $${c.watchers}); ` +
        (c.orders_per_month_for_total_under_goal ? `under $${goal} from ${c.orders_per_month_for_total_under_goal.toLocaleString('en-US')} orders a month` : 'never under the goal'),
    );
  }
  if (cost.idle) {
    const run = cost.idle.per_run;
    console.log(
      `idle month, every source configured and no order (pay-per-use; node providers excluded; goal < $1): $${cost.idle.usd_per_month} ` +
        `(${Object.keys(cost.idle.per_source_usd).join(', ')}: ${cost.idle.runs_per_month} idle runs each, ${cost.idle.looks_per_month} of them looks of ${run.billed_ms} ms, ${run.read_units} RRU, ${run.write_units} WRU, the others demand checks of ${cost.idle.rested_run.billed_ms} ms, ${cost.idle.rested_run.read_units} RRU` +
        (cost.idle.per_address_run ? `; TRON and Solana ${cost.idle.per_address_run.billed_ms} ms, ${cost.idle.per_address_run.read_units} RRU, ${cost.idle.per_address_run.write_units} WRU)` : ')'),
    );
  }
  const floor = cost.idle_floor;
  table(
    `The whole deployment idle, a month (every source configured, no order; main stack ${floor.stacks.main_resources} resources, watchers ${floor.stacks.watcher_resources}): ` +
      `$${floor.usd_per_month} ($${floor.usd_per_month_with_free_tier} within CloudWatch's free 10 alarms and 10 metrics)`,
    ['What', 'Count', '$ a month'],
    floor.lines.map((line) => [line.what, String(line.count), line.usd_per_month.toFixed(2)]),
  );
}
for (const [name, message] of Object.entries(errors)) console.log(`\n${name} FAILED: ${message.split('\n')[0]}`);
console.log('');

if (paging) {
  const n = paging.numbering;
  table(
    `Get Orders by offset (one merchant, ${paging.orders} orders, ${paging.not_numbered} newest not numbered yet; pages of 10 through the service, n=${config.paging_iterations})`,
    ['offset', 'requests', 'items read', 'RCU', 'p50', 'p99'],
    paging.pages.map((p) => [p.offset, p.requests, p.items_read, p.read_units, ms(p.latency_ms.p50), ms(p.latency_ms.p99)]),
  );
  table(
    'The same pages read through the list index (offset + limit items), once',
    ['offset', 'requests', 'items read', 'RCU', 'time'],
    paging.list_index_pages.map((p) => [p.offset, p.requests, p.items_read, p.read_units, `${p.ms} ms`]),
  );
  console.log(
    `numbering run: ${n.orders} orders in ${(n.ms / 1000).toFixed(1)} s (${n.orders_per_s}/s), ${n.write_units_per_order} WCU and ${n.read_units_per_order} RCU per order (DynamoDB Local's table units); ` +
      `a create's PutItem: ${paging.create_put_write_units.with_log_entry} WCU with its order log keys, ${paging.create_put_write_units.without} without`,
  );
}

const result = {
  generated_at: new Date().toISOString(),
  node: process.version,
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown' },
  config,
  iterations: config.iterations,
  endpoints: endpoints ?? null,
  bundles: bundles ?? null,
  page: page ?? null,
  load: load ?? null,
  callbacks: callbacks ?? null,
  watcher: watcher ? { ...watcher, ...(stepped ? { monthly_cost: watcherMonthlyCost(watcher, stepped) } : {}) } : null,
  steps: stepped ?? null,
  requests: requests ?? null,
  auth_flood: authFlood ?? null,
  export: exported ?? null,
  paging: paging ?? null,
  wake: wake ?? null,
  cost: cost ?? null,
  goals: {
    overhead_p50_max: 1.5,
    bundle_minified_bytes_max: 250 * 1024,
    bundle_load_ms_max: 100,
    load_errors_max: 0,
    load_create_vs_dynamodb_min: 0.6,
    callback_p50_ms_max: 1000,
    callback_p99_ms_max: 3000,
    watcher_detection_p50_ms_max: 5000,
    page_gzip_bytes_max: 50 * 1024,
    cost_usd_per_million_orders_max: 15,
  },
  errors,
};
console.log(JSON.stringify(result));
// A failed group may leave its servers open (the api group's, when a request was refused): its
// error is printed with the figures, so the run ends here rather than waiting on them.
if (Object.keys(errors).length > 0) process.exit(1);
