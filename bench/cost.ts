/**
 * AWS cost per million orders, from the figures this bench measured, at the us-east-1 list
 * prices (on-demand, 2026; the constants below). An order is: Create Order, a checkout, two Get Orders, the
 * payment (the sandbox payment stands in for the chain watcher or gateway notification) and one
 * PAID callback. Every assumption is in the result and in docs/performance.md.
 */
import type { EndpointFigures } from './api-latency';
import type { BundleReport } from './bundles';
import type { CallbackReport } from './callbacks';
import type { FunctionUse } from './instrument';
import type { WatcherReport } from './watcher';
import { CHAINS } from '#shared/payments/chain-sources';

/** us-east-1 list prices (on-demand, 2026), USD. */
export const PRICES = {
  lambda_request: 0.2 / 1e6,
  lambda_gb_second_arm64: 0.0000133334,
  http_api_request: 1.0 / 1e6,
  dynamodb_write_request_unit: 0.625 / 1e6,
  dynamodb_read_request_unit: 0.125 / 1e6,
  sqs_request: 0.4 / 1e6,
} as const;

export interface CostAssumptions {
  /** Lambda memory of every function (the construct's default). */
  memory_mb: number;
  /** Orders per month, to spread the fixed monthly work (schedules, idle queue polling) over. */
  orders_per_month: number;
  /** Share of invocations that are cold starts, each billed its bundle's load time on top. */
  cold_start_fraction: number;
  /** Scheduled runs per 30-day month: expire-orders every minute, sweep-callbacks every 5 minutes. */
  scheduled_runs_per_month: Record<string, number>;
  /** Empty ReceiveMessage calls per month of the SQS event source when idle (pollers x 20 s long polls). */
  idle_sqs_receives_per_month: number;
  /** HTTP API requests per order: the four API calls and the payment notification. */
  http_requests_per_order: number;
  /** Minimum read units AWS bills per read request that finds nothing (eventually consistent). */
  min_read_units_per_request: number;
}

/**
 * The chain watchers: one watch-chain function per chain, started every minute and polling for
 * 55 s (billed about 56 s a run at 256 MB), plus the DynamoDB work of scanning every block and
 * of every idle round. Blocks a day and outputs a block are public chain averages (2025-2026,
 * rounded): BTC about 144 blocks of ~3,500 transactions (~8,000 outputs), LTC 576 of ~100
 * (~250 outputs), BCH 144 of ~500 (~1,200 outputs). LBTC (LND) and EOS (Hyperion) read only
 * what reached our node or account (their sources are indexed by it), so their DynamoDB work
 * grows with payments (the booking line), not with the chain: as chains they are the Lambda and
 * the idle rounds (no blocks). ETH (with its tokens) is modelled with the read units per output
 * and the write units per block measured on UTXO blocks: an Ethereum block's value transfers and
 * token logs are looked up the same way (one address-index key each), and the cursor write is
 * the same; its Ethereum-specific reads (receipts, logs) cost the node, not DynamoDB.
 *
 * This is the cost while every chain is in demand (at a million orders a month an invoice is
 * always open somewhere). With no orders, pay-per-use runs (shared/watchers/run.ts) only look
 * at each source once a minute: {@link idleMonthlyCost}.
 */
export interface WatcherAssumptions {
  chains: { chain: string; blocks_per_day: number; outputs_per_block: number }[];
  memory_mb: number;
  billed_ms_per_run: number;
  runs_per_month: number;
  /** Idle rounds a month (WATCH_INTERVAL_SECONDS=10: 259,200). */
  idle_rounds_per_month: number;
}

export const DEFAULT_WATCHER_ASSUMPTIONS: WatcherAssumptions = {
  chains: [
    { chain: 'BTC', blocks_per_day: 144, outputs_per_block: 8000 },
    { chain: 'LTC', blocks_per_day: 576, outputs_per_block: 250 },
    { chain: 'BCH', blocks_per_day: 144, outputs_per_block: 1200 },
    // ETH with USDT and USDC: ~7,200 blocks a day of ~150 value transfers and ~300 token Transfer logs of the two contracts.
    { chain: 'ETH', blocks_per_day: 7200, outputs_per_block: 450 },
    { chain: 'LBTC', blocks_per_day: 0, outputs_per_block: 0 },
    { chain: 'EOS', blocks_per_day: 0, outputs_per_block: 0 },
  ],
  memory_mb: 256,
  billed_ms_per_run: 56_000,
  runs_per_month: 30 * 24 * 60,
  idle_rounds_per_month: (30 * 86_400) / 10,
};

/** The watchers' monthly cost per chain and the figures it was computed from. */
export interface WatcherCost {
  per_chain_per_month_usd: Record<string, { lambda: number; dynamodb: number; total: number }>;
  read_units_per_output: number;
  write_units_per_block: number;
  assumptions: WatcherAssumptions;
}

/** The watchers' fixed cost a month, per chain, from the measured work per block and per idle round. */
export function watcherMonthlyCost(watcher: WatcherReport, assumptions: WatcherAssumptions = DEFAULT_WATCHER_ASSUMPTIONS): WatcherCost {
  // The largest measured Esplora block: read units per output scanned, write units per block (the cursor).
  const block = [...watcher.per_block].filter((b) => b.source === 'esplora').sort((a, b) => b.outputs - a.outputs)[0];
  if (!block) throw new Error('cost: no measured Esplora block');
  // DynamoDB Local reports units only for the items it found; AWS bills 0.5 RCU for every key
  // of an eventually consistent BatchGetItem, found or not: the larger of the two counts.
  const readPerOutput = Math.max(block.read_units, block.billed_lookup_read_units) / block.outputs;
  const writePerBlock = block.write_units;
  const lambda =
    assumptions.runs_per_month * PRICES.lambda_request +
    assumptions.runs_per_month * (assumptions.billed_ms_per_run / 1000) * (assumptions.memory_mb / 1024) * PRICES.lambda_gb_second_arm64;
  const idle = assumptions.idle_rounds_per_month * (watcher.idle_round.read_units * PRICES.dynamodb_read_request_unit + watcher.idle_round.write_units * PRICES.dynamodb_write_request_unit);
  const perChain: WatcherCost['per_chain_per_month_usd'] = {};
  for (const chain of assumptions.chains) {
    const blocks = chain.blocks_per_day * 30;
    const dynamodb =
      idle + blocks * (chain.outputs_per_block * readPerOutput * PRICES.dynamodb_read_request_unit + writePerBlock * PRICES.dynamodb_write_request_unit);
    perChain[chain.chain] = { lambda: round(lambda, 2), dynamodb: round(dynamodb, 2), total: round(lambda + dynamodb, 2) };
  }
  return { per_chain_per_month_usd: perChain, read_units_per_output: round(readPerOutput, 4), write_units_per_block: writePerBlock, assumptions };
}

/**
 * Every source a deployment can configure, for the idle month: the block chains (BTC, LTC, BCH,
 * ETH and the other EVM networks: an idle run looks at the tip), LBTC and EOS (one step over
 * what reached our node or account), TRON and Solana (one step over their watch list, empty).
 */
export const IDLE_SOURCES = {
  block: Object.keys(CHAINS),
  indexed: ['LBTC', 'EOS'],
  perAddress: ['TRON', 'SOLANA'],
} as const;

/** What one idle run bills: Lambda ms, DynamoDB units. */
export interface IdleRunFigures {
  dynamodb_requests: number;
  read_units: number;
  write_units: number;
  ms: number;
}

/** A month with every source configured and no order: one pay-per-use idle run per source a minute. */
export interface IdleCost {
  usd_per_month: number;
  per_source_usd: Record<string, number>;
  /** Billed per idle run: Lambda ms (at the watcher's memory), DynamoDB read and write units; `per_address` for TRON and Solana. */
  per_run: { billed_ms: number; read_units: number; write_units: number };
  per_address_run: { billed_ms: number; read_units: number; write_units: number } | null;
  runs_per_month: number;
}

/** One idle run's price: a warm invocation billed its measured ms, at least 0.5 read unit per read request. */
function idleRunPrice(run: IdleRunFigures, memoryMb: number): { usd: number; billed_ms: number; read_units: number; write_units: number } {
  const writes = Math.ceil(run.write_units);
  const readUnits = Math.max(run.read_units, 0.5 * Math.max(0, run.dynamodb_requests - writes));
  const billedMs = Math.max(1, Math.ceil(run.ms));
  const usd =
    PRICES.lambda_request +
    (billedMs / 1000) * (memoryMb / 1024) * PRICES.lambda_gb_second_arm64 +
    readUnits * PRICES.dynamodb_read_request_unit +
    run.write_units * PRICES.dynamodb_write_request_unit;
  return { usd, billed_ms: billedMs, read_units: readUnits, write_units: run.write_units };
}

/**
 * The watchers' monthly cost when nothing is open (node providers excluded): per source and
 * minute, one invocation billed the measured idle run (a warm container: no init), its reads
 * (AWS bills at least 0.5 read unit per read request) and writes (the health report; the cursor
 * write when the chain moved). TRON and Solana are billed their own measured run (bench/wake.ts)
 * when given, else the block chain's. No demand is written while idle, so the wake function
 * costs nothing then.
 */
export function idleMonthlyCost(watcher: WatcherReport, assumptions: WatcherAssumptions = DEFAULT_WATCHER_ASSUMPTIONS, perAddressRun?: IdleRunFigures): IdleCost {
  const block = idleRunPrice(watcher.idle_run, assumptions.memory_mb);
  const perAddress = perAddressRun ? idleRunPrice(perAddressRun, assumptions.memory_mb) : undefined;
  const monthly = (price: { usd: number }) => round(price.usd * assumptions.runs_per_month, 4);
  const perSource: Record<string, number> = {};
  for (const source of [...IDLE_SOURCES.block, ...IDLE_SOURCES.indexed]) perSource[source] = monthly(block);
  for (const source of IDLE_SOURCES.perAddress) perSource[source] = monthly(perAddress ?? block);
  const { usd: _block, ...perRun } = block;
  return {
    usd_per_month: round(Object.values(perSource).reduce((sum, usd) => sum + usd, 0), 2),
    per_source_usd: perSource,
    per_run: perRun,
    per_address_run: perAddress ? { billed_ms: perAddress.billed_ms, read_units: perAddress.read_units, write_units: perAddress.write_units } : null,
    runs_per_month: assumptions.runs_per_month,
  };
}

export const DEFAULT_ASSUMPTIONS: CostAssumptions = {
  memory_mb: 512,
  orders_per_month: 1_000_000,
  cold_start_fraction: 0.01,
  scheduled_runs_per_month: { 'expire-orders': 30 * 24 * 60, 'sweep-callbacks': 30 * 24 * 12 },
  // The SQS event source starts with 5 concurrent long-polling pollers (20 s waits).
  idle_sqs_receives_per_month: 5 * 3 * 60 * 24 * 30,
  http_requests_per_order: 5,
  min_read_units_per_request: 0.5,
};

/** One line of the bill, per order. */
export interface CostLine {
  step: string;
  invocations: number;
  /** Billed Lambda time (1 ms granularity), ms. */
  billed_ms: number;
  write_units: number;
  read_units: number;
  sqs_requests: number;
  http_requests: number;
  usd_per_million_orders: number;
}

export interface CostReport {
  /** The watchers with every source configured and no order (pay-per-use idle runs); null without the watcher figures. */
  idle_usd_per_month: number | null;
  idle: IdleCost | null;
  lines: CostLine[];
  per_order: { lambda_invocations: number; lambda_gb_seconds: number; http_api_requests: number; dynamodb_write_units: number; dynamodb_read_units: number; sqs_requests: number };
  usd_per_million_orders: { lambda_requests: number; lambda_duration: number; http_api: number; dynamodb_writes: number; dynamodb_reads: number; sqs: number; total: number };
  /** The total if Lambda ran each handler 3x slower than this machine (512 MB is about 0.3 vCPU). */
  total_if_lambda_3x_slower: number;
  assumptions: CostAssumptions;
  prices: typeof PRICES;
  goals: { usd_per_million_orders_max: number };
}

const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

export function computeCost(
  endpoints: readonly EndpointFigures[],
  callbacks: CallbackReport,
  bundles: BundleReport | undefined,
  assumptions: CostAssumptions = DEFAULT_ASSUMPTIONS,
  /** The chain watchers' figures: the payment is then their booking, and their fixed cost is in. */
  watcher?: WatcherReport,
  /** TRON's and Solana's idle run (bench/wake.ts), for the idle month. */
  perAddressIdleRun?: IdleRunFigures,
): CostReport {
  const gb = assumptions.memory_mb / 1024;
  const lines: CostLine[] = [];
  const line = (step: string, parts: Partial<Omit<CostLine, 'step' | 'usd_per_million_orders'>>) => {
    const l = { invocations: 0, billed_ms: 0, write_units: 0, read_units: 0, sqs_requests: 0, http_requests: 0, ...parts };
    const usd =
      l.invocations * PRICES.lambda_request +
      gb * (l.billed_ms / 1000) * PRICES.lambda_gb_second_arm64 +
      l.write_units * PRICES.dynamodb_write_request_unit +
      l.read_units * PRICES.dynamodb_read_request_unit +
      l.sqs_requests * PRICES.sqs_request +
      l.http_requests * PRICES.http_api_request;
    lines.push({
      step,
      invocations: round(l.invocations),
      billed_ms: round(l.billed_ms, 2),
      write_units: round(l.write_units),
      read_units: round(l.read_units),
      sqs_requests: round(l.sqs_requests),
      http_requests: round(l.http_requests),
      usd_per_million_orders: round(usd * 1e6, 3),
    });
  };

  // The API calls: units per call and mean duration from the API latency run.
  const endpoint = (name: string) => {
    const found = endpoints.find((e) => e.endpoint === name);
    if (!found) throw new Error(`cost: no API figures for ${name}`);
    return found;
  };
  const apiCall = (step: string, name: string, times: number) => {
    const e = endpoint(name);
    line(step, {
      invocations: times,
      billed_ms: times * Math.ceil(e.api.mean),
      write_units: times * e.dynamodb.writeUnits,
      read_units: times * e.dynamodb.readUnits,
      http_requests: times,
    });
  };
  apiCall('create-order (Create Order)', 'POST /v1/orders', 1);
  apiCall('checkout-order (checkout)', 'POST /v1/orders/:id/checkout', 1);
  apiCall('get-order (2 x Get Order)', 'GET /v1/orders/:order_id', 2);

  // The payment and the callback pipeline: per order, from the one-order-at-a-time probe.
  const refusedWriteUnits = Math.max(1, Math.ceil(callbacks.per_order.delivery_item_bytes / 1024));
  const probed = (step: string, fn: string, http: number) => {
    const use: FunctionUse | undefined = callbacks.per_order.functions[fn];
    if (!use) throw new Error(`cost: the callbacks run saw no ${fn} invocation`);
    line(step, {
      invocations: use.invocations,
      billed_ms: use.invocations * Math.ceil(use.durationMs / use.invocations),
      write_units: use.writeUnits + use.failedConditionalWrites * refusedWriteUnits,
      read_units: use.readUnits,
      http_requests: http,
    });
  };
  if (watcher) {
    // The payment as a chain watcher books it (seen in the mempool, then confirmed): no HTTP request.
    line('chain watcher booking (mempool sighting, then confirmation)', {
      write_units: watcher.per_order_booking.write_units,
      read_units: watcher.per_order_booking.read_units,
    });
    const fixed = watcherMonthlyCost(watcher);
    const share = 1 / assumptions.orders_per_month;
    const { memory_mb, billed_ms_per_run, runs_per_month, idle_rounds_per_month } = fixed.assumptions;
    for (const chainAssumption of fixed.assumptions.chains) {
      const chain = chainAssumption.chain;
      const blocks = chainAssumption.blocks_per_day * 30;
      line(`watch-chain ${chain} (scheduled, polling; amortized)`, {
        invocations: runs_per_month * share,
        // Billed at the watcher's memory: expressed at this model's memory so the sum stays right.
        billed_ms: runs_per_month * billed_ms_per_run * (memory_mb / assumptions.memory_mb) * share,
        read_units: (idle_rounds_per_month * watcher.idle_round.read_units + blocks * chainAssumption.outputs_per_block * fixed.read_units_per_output) * share,
        write_units: (idle_rounds_per_month * watcher.idle_round.write_units + blocks * fixed.write_units_per_block) * share,
      });
    }
  } else {
    probed('sandbox-pay (payment notification)', 'sandbox-pay', assumptions.http_requests_per_order - 4);
  }
  probed('order-events (stream)', 'order-events', 0);
  probed('deliver-callback (POST to merchant)', 'deliver-callback', 0);
  line('SQS (send, receive, delete per callback)', { sqs_requests: Object.values(callbacks.per_order.sqs).reduce((a, b) => a + b, 0) });

  // Fixed monthly work spread over the month's orders.
  for (const [fn, runs] of Object.entries(assumptions.scheduled_runs_per_month)) {
    const use = callbacks.scheduled[fn];
    if (!use) throw new Error(`cost: no measured run of ${fn}`);
    const share = runs / assumptions.orders_per_month;
    line(`${fn} (scheduled, amortized)`, {
      invocations: share,
      billed_ms: share * Math.ceil(use.durationMs),
      read_units: share * Math.max(use.readUnits, use.requests * assumptions.min_read_units_per_request),
      write_units: share * use.writeUnits,
    });
  }
  line('SQS idle long polls (amortized)', { sqs_requests: assumptions.idle_sqs_receives_per_month / assumptions.orders_per_month });

  // Cold starts: a share of the invocations also pays its bundle's load time (init is billed).
  if (bundles) {
    const loadMs = new Map(bundles.bundles.map((b) => [b.function, b.load_ms.median]));
    const invocationsByFunction: Record<string, number> = {
      'create-order': 1,
      'checkout-order': 1,
      'get-order': 2,
      'sandbox-pay': watcher ? 0 : (callbacks.per_order.functions['sandbox-pay']?.invocations ?? 0),
      'order-events': callbacks.per_order.functions['order-events']?.invocations ?? 0,
      'deliver-callback': callbacks.per_order.functions['deliver-callback']?.invocations ?? 0,
    };
    const coldMs = Object.entries(invocationsByFunction).reduce(
      (sum, [fn, n]) => sum + n * assumptions.cold_start_fraction * Math.ceil(loadMs.get(fn) ?? 0),
      0,
    );
    line(`cold starts (${assumptions.cold_start_fraction * 100}% of invocations, bundle load time)`, { billed_ms: coldMs });
  }

  const sum = (pick: (l: CostLine) => number) => lines.reduce((total, l) => total + pick(l), 0);
  const billedMs = sum((l) => l.billed_ms);
  const usd = {
    lambda_requests: sum((l) => l.invocations) * PRICES.lambda_request * 1e6,
    lambda_duration: gb * (billedMs / 1000) * PRICES.lambda_gb_second_arm64 * 1e6,
    http_api: sum((l) => l.http_requests) * PRICES.http_api_request * 1e6,
    dynamodb_writes: sum((l) => l.write_units) * PRICES.dynamodb_write_request_unit * 1e6,
    dynamodb_reads: sum((l) => l.read_units) * PRICES.dynamodb_read_request_unit * 1e6,
    sqs: sum((l) => l.sqs_requests) * PRICES.sqs_request * 1e6,
  };
  const total = Object.values(usd).reduce((a, b) => a + b, 0);
  const idle = watcher ? idleMonthlyCost(watcher, DEFAULT_WATCHER_ASSUMPTIONS, perAddressIdleRun) : null;
  return {
    idle_usd_per_month: idle?.usd_per_month ?? null,
    idle,
    lines,
    per_order: {
      lambda_invocations: round(sum((l) => l.invocations)),
      lambda_gb_seconds: round(gb * (billedMs / 1000), 6),
      http_api_requests: round(sum((l) => l.http_requests)),
      dynamodb_write_units: round(sum((l) => l.write_units)),
      dynamodb_read_units: round(sum((l) => l.read_units)),
      sqs_requests: round(sum((l) => l.sqs_requests)),
    },
    usd_per_million_orders: {
      ...(Object.fromEntries(Object.entries(usd).map(([k, v]) => [k, round(v, 2)])) as Omit<CostReport['usd_per_million_orders'], 'total'>),
      total: round(total, 2),
    },
    total_if_lambda_3x_slower: round(total + 2 * usd.lambda_duration, 2),
    assumptions,
    prices: PRICES,
    goals: { usd_per_million_orders_max: 15 },
  };
}
