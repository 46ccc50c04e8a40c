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
import type { SteppedReport } from './stepped';
import type { WatcherReport } from './watcher';
import { CHAINS } from '#shared/chains/sources';
import { readWatchConfig } from '#shared/core/config';
import { TICKER_MEMORY_MB, watcherMemoryMb } from '#infra/cdk/constructs/chain-watchers';
import { READ_OVERLAP_MS } from '#shared/store/incremental-list';

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
 * The chain watchers: one watch-chain function per chain. While a chain is in demand it is
 * stepped (shared/watchers/stepped.ts): every WATCH_INTERVAL_SECONDS one invocation billed the
 * measured step (bench/stepped.ts: a caught-up step, its reads and its tick sent), one
 * tick-watchers invocation passing the tick on, three SQS requests (the tick sent, received,
 * deleted); once a minute the claim (the measured claiming step instead of a step) and the
 * scheduled run that finds the line holding the chain. Then the DynamoDB work of scanning every
 * block. Blocks a day and outputs a block are public chain averages (2025-2026,
 * rounded): BTC about 144 blocks of ~3,500 transactions (~8,000 outputs), LTC 576 of ~100
 * (~250 outputs), BCH 144 of ~500 (~1,200 outputs). LBTC (LND) and EOS (Hyperion) read only
 * what reached our node or account (their sources are indexed by it), so their DynamoDB work
 * grows with payments (the booking line), not with the chain: as chains they are the Lambda and
 * the idle rounds (no blocks). ETH with its tokens and the other EVM networks are modelled with
 * the figures measured on UTXO blocks: an EVM block's value transfers and token logs are matched
 * the same way (against the open-address list; an address-index key each only if listed), and
 * the cursor write is the same; their EVM-specific reads (receipts, logs) cost the node, not
 * DynamoDB. Per block beyond an idle round: the keys looked up for outputs that are not ours
 * (measured per output: 0.5 before the open-address list, 0 with it), the list's incremental
 * read (a strongly consistent Query: at least 1 RRU) and the cursor's write. The bookings of the
 * measured block are the booking line's, per order. TRON reads its solid blocks by range (the
 * cursor's write and the watch list's read once a step); Solana follows receiving accounts (its
 * cursor a time, written every 10 minutes); each order's entry on their watch list is
 * {@link watchedAddressCost}.
 *
 * This is the cost while every chain is in demand (at a million orders a month an invoice is
 * always open somewhere). With no orders, pay-per-use runs (shared/watchers/idle.ts) only look
 * at each source once a minute: {@link idleMonthlyCost}.
 */
export interface WatcherAssumptions {
  /**
   * Per chain: blocks a day and the outputs (UTXO) or value transfers and configured-token
   * Transfer logs (EVM) a block, each one a transfer the watcher examines.
   */
  chains: { chain: string; blocks_per_day: number; outputs_per_block: number }[];
  /** Each chain's watcher memory (the stack's: BTC and BCH 512 MB, the others 256). */
  memory_mb: (chain: string) => number;
  /** The minute's scheduled runs a month (and a line's claims: one a minute). */
  runs_per_month: number;
  /** Steps a month of a chain in demand (WATCH_INTERVAL_SECONDS=10: 259,200), each an invocation and its tick. */
  steps_per_month: number;
  /** SQS requests per step: the tick sent, received by tick-watchers' event source, deleted. */
  sqs_requests_per_step: number;
  /** tick-watchers' memory, MB (the stack's). */
  ticker_memory_mb: number;
  /**
   * A provider's round trip, billed on top of each source request of a measured step (the bench's
   * sources answer on loopback in well under a millisecond; a hosted node from Lambda in tens of ms).
   */
  source_round_trip_ms: number;
}

export const DEFAULT_WATCHER_ASSUMPTIONS: WatcherAssumptions = {
  chains: [
    { chain: 'BTC', blocks_per_day: 144, outputs_per_block: 8000 },
    { chain: 'LTC', blocks_per_day: 576, outputs_per_block: 250 },
    { chain: 'BCH', blocks_per_day: 144, outputs_per_block: 1200 },
    // ETH with USDT and USDC: ~7,200 blocks a day of ~150 value transfers and ~300 token Transfer logs of the two contracts.
    { chain: 'ETH', blocks_per_day: 7200, outputs_per_block: 450 },
    // The other EVM networks (blocks a day: docs/performance.md "More networks"). Transfers a
    // block are this model's assumptions (public explorers' daily counts of the configured
    // tokens' Transfer logs and, where the coin is a pay currency, value transfers, divided by
    // blocks; rounded up): Arbitrum ~3 M a day of USDT, USDC and ETH, Base ~5 M of USDC and ETH,
    // Polygon ~2.5 M of USDC, BNB Smart Chain ~6 M of USDT, Celo ~1 M of USDT and cUSD.
    { chain: 'ARBITRUM', blocks_per_day: 345_600, outputs_per_block: 10 },
    { chain: 'BASE', blocks_per_day: 43_200, outputs_per_block: 120 },
    { chain: 'POLYGON', blocks_per_day: 43_200, outputs_per_block: 60 },
    { chain: 'BSC', blocks_per_day: 115_200, outputs_per_block: 55 },
    { chain: 'CELO', blocks_per_day: 86_400, outputs_per_block: 12 },
    { chain: 'LBTC', blocks_per_day: 0, outputs_per_block: 0 },
    { chain: 'EOS', blocks_per_day: 0, outputs_per_block: 0 },
    // TRON reads its solid blocks by range (a block every 3 s): the cursor's write and the watch
    // list's read once a step, its transfers matched in memory (no address-index key per transfer).
    // Solana's cursor is a time written at most every 10 minutes: nothing per block.
    { chain: 'TRON', blocks_per_day: 28_800, outputs_per_block: 0 },
    { chain: 'SOLANA', blocks_per_day: 0, outputs_per_block: 0 },
  ],
  memory_mb: watcherMemoryMb,
  runs_per_month: 30 * 24 * 60,
  steps_per_month: (30 * 86_400) / 10,
  sqs_requests_per_step: 3,
  ticker_memory_mb: TICKER_MEMORY_MB,
  source_round_trip_ms: 50,
};

/** A measured invocation billed as it would run against a remote source (`source_round_trip_ms` per source request). */
export const withSourceLatency = (figures: IdleRunFigures & { source_requests?: number }, assumptions: WatcherAssumptions = DEFAULT_WATCHER_ASSUMPTIONS): IdleRunFigures => ({
  ...figures,
  ms: figures.ms + (figures.source_requests ?? 0) * assumptions.source_round_trip_ms,
});

/** The watchers' monthly cost per chain and the figures it was computed from. */
export interface WatcherCost {
  per_chain_per_month_usd: Record<string, { lambda: number; dynamodb: number; sqs: number; total: number }>;
  /** A chain in demand a month without its blocks' work (what the stepping alone costs), per memory size. */
  stepping_usd_per_chain_month: Record<string, number>;
  /** Address-index keys looked up per output examined that pays none of our invoices (0 with the open-address list). */
  lookups_per_output: number;
  read_units_per_output: number;
  /** Per block beyond an idle round: the open-address list's read (what was added lately). */
  read_units_per_block: number;
  /** Per block: the cursor's write (the bookings are the booking line's). */
  write_units_per_block: number;
  /** Each chain's watcher memory, MB (assumptions.memory_mb, which JSON cannot show). */
  memory_mb_per_chain: Record<string, number>;
  assumptions: WatcherAssumptions;
}

/** AWS bills at least this for a strongly consistent read of up to 4 KB (the open-address list's incremental Query). */
const MIN_CONSISTENT_READ_UNITS = 1;

/** What one kind of invocation bills a month, split: Lambda (requests and duration at `memoryMb`) and DynamoDB. */
function invocationsPerMonth(figures: IdleRunFigures, memoryMb: number, count: number): { lambda: number; dynamodb: number } {
  const price = idleRunPrice(figures, memoryMb);
  const lambda = PRICES.lambda_request + (price.billed_ms / 1000) * (memoryMb / 1024) * PRICES.lambda_gb_second_arm64;
  return { lambda: count * lambda, dynamodb: count * (price.usd - lambda) };
}

/**
 * A chain in demand a month, stepped (shared/watchers/stepped.ts), without its blocks' work:
 * every step one watch-chain invocation (the measured caught-up step) and one tick-watchers
 * invocation and three SQS requests; every minute the claim (a claiming step instead of a step)
 * and the scheduled run that finds the line holding the chain.
 */
export function steppingMonthlyCost(stepped: SteppedReport, memoryMb: number, assumptions: WatcherAssumptions = DEFAULT_WATCHER_ASSUMPTIONS): { lambda: number; dynamodb: number; sqs: number } {
  const { steps_per_month: steps, runs_per_month: runs } = assumptions;
  const parts = [
    invocationsPerMonth(withSourceLatency(stepped.step, assumptions), memoryMb, steps - runs),
    invocationsPerMonth(withSourceLatency(stepped.claiming_step, assumptions), memoryMb, runs),
    invocationsPerMonth(withSourceLatency(stepped.minute_run_leased, assumptions), memoryMb, runs),
    invocationsPerMonth(stepped.ticker, assumptions.ticker_memory_mb, steps),
  ];
  return {
    lambda: parts.reduce((sum, part) => sum + part.lambda, 0),
    dynamodb: parts.reduce((sum, part) => sum + part.dynamodb, 0),
    sqs: steps * assumptions.sqs_requests_per_step * PRICES.sqs_request,
  };
}

/** The watchers' fixed cost a month, per chain, from the measured work per block and per step. */
export function watcherMonthlyCost(watcher: WatcherReport, stepped: SteppedReport, assumptions: WatcherAssumptions = DEFAULT_WATCHER_ASSUMPTIONS): WatcherCost {
  // The largest measured Esplora block: keys looked up per output that is not ours (its 5
  // invoices' outputs are the booking line's). AWS bills 0.5 RCU for every key of an eventually
  // consistent BatchGetItem, found or not (DynamoDB Local reports only those found).
  const block = [...watcher.per_block].filter((b) => b.source === 'esplora').sort((a, b) => b.outputs - a.outputs)[0];
  if (!block) throw new Error('cost: no measured Esplora block');
  const ours = block.invoices;
  const lookupsPerOutput = Math.max(0, block.lookups - ours) / (block.outputs - ours);
  const readPerOutput = lookupsPerOutput * 0.5;
  // Per block beyond a caught-up step (whose cursor and maturing-payment reads every step makes):
  // the list's incremental read and the cursor's write, as one order's booking measured them.
  const blockSteps = watcher.booking_requests.filter((r) => r.per === 'step' && r.step !== watcher.booking_requests[0]?.step);
  const listReads = blockSteps.filter((r) => r.items.startsWith('open-address list'));
  const readPerBlock = listReads.length ? Math.max(MIN_CONSISTENT_READ_UNITS, ...listReads.map((r) => r.read_units)) : 0;
  const cursorWrites = blockSteps.filter((r) => r.items.startsWith('cursor') && r.write_units > 0);
  const writePerBlock = cursorWrites.length ? cursorWrites.reduce((sum, r) => sum + r.write_units, 0) / cursorWrites.length : 1;
  const perChain: WatcherCost['per_chain_per_month_usd'] = {};
  const stepping: Record<string, number> = {};
  for (const chain of assumptions.chains) {
    const blocks = chain.blocks_per_day * 30;
    const memory = assumptions.memory_mb(chain.chain);
    const steps = steppingMonthlyCost(stepped, memory, assumptions);
    stepping[`${memory} MB`] = round(steps.lambda + steps.dynamodb + steps.sqs, 2);
    // The list's read and the cursor's write come once per step that found blocks: per block on
    // chains slower than the interval, per step on the faster ones (a range of blocks a step).
    const blockSteps = Math.min(blocks, assumptions.steps_per_month);
    const dynamodb =
      steps.dynamodb +
      blocks * chain.outputs_per_block * readPerOutput * PRICES.dynamodb_read_request_unit +
      blockSteps * (readPerBlock * PRICES.dynamodb_read_request_unit + writePerBlock * PRICES.dynamodb_write_request_unit);
    perChain[chain.chain] = { lambda: round(steps.lambda, 2), dynamodb: round(dynamodb, 2), sqs: round(steps.sqs, 2), total: round(steps.lambda + dynamodb + steps.sqs, 2) };
  }
  return {
    per_chain_per_month_usd: perChain,
    stepping_usd_per_chain_month: stepping,
    lookups_per_output: round(lookupsPerOutput, 4),
    read_units_per_output: round(readPerOutput, 4),
    read_units_per_block: readPerBlock,
    write_units_per_block: writePerBlock,
    memory_mb_per_chain: Object.fromEntries(assumptions.chains.map(({ chain }) => [chain, assumptions.memory_mb(chain)])),
    assumptions,
  };
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
  /** Scheduled runs a month per source, of which `looks_per_month` look at the source; the others are `rested_run`s. */
  runs_per_month: number;
  looks_per_month: number;
  /** A run between two looks (WATCH_IDLE_LOOK_SECONDS): the demand check alone. */
  rested_run: { billed_ms: number; read_units: number; write_units: number };
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
  // Priced at the default watcher's memory (256 MB) for the figures per run; each source's month at its own.
  const block = idleRunPrice(watcher.idle_run, assumptions.memory_mb(''));
  const perAddress = perAddressRun ? idleRunPrice(perAddressRun, assumptions.memory_mb('')) : undefined;
  // A source is looked at once every `runsPerLook` scheduled runs (WATCH_IDLE_LOOK_SECONDS); the runs between check the demand only.
  const runsPerLook = Math.ceil((readWatchConfig({}).idleLookSeconds + 1) / 60);
  const rested = idleRunPrice(watcher.rested_run, assumptions.memory_mb(''));
  const looks = assumptions.runs_per_month / runsPerLook;
  const monthly = (source: string, run: IdleRunFigures) => {
    const memory = assumptions.memory_mb(source);
    return round(idleRunPrice(run, memory).usd * looks + idleRunPrice(watcher.rested_run, memory).usd * (assumptions.runs_per_month - looks), 4);
  };
  const perSource: Record<string, number> = {};
  for (const source of [...IDLE_SOURCES.block, ...IDLE_SOURCES.indexed]) perSource[source] = monthly(source, watcher.idle_run);
  for (const source of IDLE_SOURCES.perAddress) perSource[source] = monthly(source, perAddressRun ?? watcher.idle_run);
  const { usd: _block, ...perRun } = block;
  return {
    usd_per_month: round(
      Object.values(perSource).reduce((sum, usd) => sum + usd, 0),
      2,
    ),
    per_source_usd: perSource,
    per_run: perRun,
    per_address_run: perAddress ? { billed_ms: perAddress.billed_ms, read_units: perAddress.read_units, write_units: perAddress.write_units } : null,
    runs_per_month: assumptions.runs_per_month,
    looks_per_month: looks,
    rested_run: { billed_ms: rested.billed_ms, read_units: rested.read_units, write_units: rested.write_units },
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

/**
 * TRON and Solana match what their provider reports (TRON's solid blocks, Solana's receiving
 * accounts) against their chain's watch list, which their watcher keeps in memory (shared/store/watch-list.ts, the block chains' incremental read in
 * shared/store/incremental-list.ts): the whole list once per cold container, then per step
 * (strongly consistent, 1 RRU per 4 KB, at least 1) only what was written since the previous
 * read began, less READ_OVERLAP_MS. Item sizes as DynamoDB counts them (bench/callbacks.ts
 * itemSizeBytes on a TRON and a Solana watch item: 293 and 369 bytes, the same in the key layout
 * before and after); the invoice open 1 hour, then the 7-day late window, a step every 10 s.
 * Assumptions: `orders_per_month` of that chain (the per-million figure: every order a TRON, or a
 * Solana, one), arriving evenly; `cold_starts_per_day` of the watcher's container (AWS recycles
 * execution environments after some hours; deploys and a second concurrent run add some: 24 is
 * one an hour, pessimistic for a function run every minute); an item is in the table from
 * checkout to a day after its late window (its TTL) plus `ttl_lag_seconds` before DynamoDB's TTL
 * deletes it (documented as "within a few days"; typically within a day or two), and a cold read
 * reads all of it.
 */
export const WATCHED_ADDRESS_ASSUMPTIONS = {
  item_bytes: { TRON: 293, SOLANA: 369 } as Record<string, number>,
  watched_seconds: 3600 + 7 * 86_400,
  step_seconds: 10,
  orders_per_month: 1_000_000,
  cold_starts_per_day: 24,
  ttl_seconds_after_window: 86_400,
  ttl_lag_seconds: 86_400,
  read_overlap_ms: READ_OVERLAP_MS,
};

/** One TRON or Solana order's watched address: DynamoDB reads over its life. */
export interface WatchedAddressCost {
  /** Per order, as the watcher now reads: {@link incremental_read_units} + {@link cold_read_units}. */
  read_units: number;
  usd_per_million_orders: number;
  /** Its share of the steps' incremental reads (each step's Query rounded up to whole 4 KB). */
  incremental_read_units: number;
  /** Its share of the cold containers' whole-list reads. */
  cold_read_units: number;
  /** Items a warm step reads (written in the last step and the overlap), and one step's read units. */
  items_per_step: number;
  read_units_per_step: number;
  /** Items and read units of one cold container's whole read. */
  items_per_cold_read: number;
  read_units_per_cold_read: number;
  /** The whole list read every step, eventually consistent (before 2026-11-26). */
  before_read_units: number;
  before_usd_per_million_orders: number;
}

/** What one TRON or Solana order's watched address costs in DynamoDB reads over its life. */
export function watchedAddressCost(assumptions = WATCHED_ADDRESS_ASSUMPTIONS): Record<string, WatchedAddressCost> {
  const month = 30 * 86_400;
  const steps = month / assumptions.step_seconds;
  const perSecond = assumptions.orders_per_month / month;
  const usd = (units: number) => round(units * PRICES.dynamodb_read_request_unit * 1e6, 2);
  return Object.fromEntries(
    Object.entries(assumptions.item_bytes).map(([chain, bytes]) => {
      // Before: 0.5 RRU per 4 KB read (eventually consistent), each address's share of every step's Query of the whole list.
      const before = (assumptions.watched_seconds / assumptions.step_seconds) * (bytes / 4096) * 0.5;
      // A warm step reads what was written since the previous step's read began, less the overlap.
      const itemsPerStep = perSecond * (assumptions.step_seconds + assumptions.read_overlap_ms / 1000);
      const unitsPerStep = Math.max(1, Math.ceil((itemsPerStep * bytes) / 4096));
      const incremental = (steps * unitsPerStep) / assumptions.orders_per_month;
      // A cold container reads every item still in the table.
      const itemsInTable = perSecond * (assumptions.watched_seconds + assumptions.ttl_seconds_after_window + assumptions.ttl_lag_seconds);
      const unitsPerColdRead = Math.max(1, Math.ceil((itemsInTable * bytes) / 4096));
      const cold = (assumptions.cold_starts_per_day * 30 * unitsPerColdRead) / assumptions.orders_per_month;
      const cost: WatchedAddressCost = {
        read_units: round(incremental + cold, 2),
        usd_per_million_orders: usd(incremental + cold),
        incremental_read_units: round(incremental, 2),
        cold_read_units: round(cold, 2),
        items_per_step: round(itemsPerStep, 1),
        read_units_per_step: unitsPerStep,
        items_per_cold_read: Math.round(itemsInTable),
        read_units_per_cold_read: unitsPerColdRead,
        before_read_units: round(before, 1),
        before_usd_per_million_orders: usd(before),
      };
      return [chain, cost];
    }),
  );
}

/**
 * The payment on chain, on its own, read two ways. What one more order costs (`per_order`: its
 * booking and, on TRON and Solana, the reads of its watched address; the goal's reading) and
 * what it costs with its share of the watchers' polling while every chain is in demand
 * (`total`: a fixed ~$8 a chain a month whatever the number of orders, spread over the month's
 * orders, so it halves when the orders double).
 */
export interface ChainPaymentCost {
  booking: number;
  /** A payment reported final at once (TRON, Solana, LBTC, EOS): NEW -> PAID with its delivery in one booking. */
  final_booking: number;
  /** Every chain's watcher while in demand, spread over the month's orders. */
  watchers: number;
  total: number;
  watchers_per_chain: Record<string, number>;
  /** A TRON or Solana order instead: its watched address's reads, on top (not in `total`). */
  per_watched_address: Record<string, WatchedAddressCost>;
  /** What one more order costs, per chain kind: its booking (a block chain's, or one reported final), plus the watched address on TRON and Solana. */
  per_order: Record<string, number>;
  /** The dearest of `per_order`: the figure the goal is read against. */
  per_order_max: number;
  /** A chain's watcher while in demand, a month: it polls whether one order is open or thousands. */
  in_demand_usd_per_chain_month: Record<string, number>;
  /** Orders a month from which `total` (the watchers' share included) is under the goal too; null if the booking alone is over it. */
  orders_per_month_for_total_under_goal: number | null;
}

export interface CostReport {
  /** The watchers with every source configured and no order (pay-per-use idle runs); null without the watcher figures. */
  idle_usd_per_month: number | null;
  idle: IdleCost | null;
  lines: CostLine[];
  per_order: { lambda_invocations: number; lambda_gb_seconds: number; http_api_requests: number; dynamodb_write_units: number; dynamodb_read_units: number; sqs_requests: number };
  usd_per_million_orders: {
    lambda_requests: number;
    lambda_duration: number;
    http_api: number;
    dynamodb_writes: number;
    dynamodb_reads: number;
    sqs: number;
    total: number;
    /** The chain payment alone (booking + the watchers' share); null without the watcher figures. */
    chain_payment: number | null;
  };
  /** The chain payment's parts; null without the watcher figures. */
  chain_payment: ChainPaymentCost | null;
  /** The total if Lambda ran each handler 3x slower than this machine (512 MB is about 0.3 vCPU). */
  total_if_lambda_3x_slower: number;
  assumptions: CostAssumptions;
  prices: typeof PRICES;
  goals: { usd_per_million_orders_max: number; chain_payment_usd_per_million_orders_max: number };
}

/** Issue 21: a chain payment under $20 per million orders. */
const CHAIN_PAYMENT_GOAL = 20;

const BOOKING_LINE = 'chain watcher booking (mempool sighting, mined, confirmed with its callback delivery)';
const WATCHER_LINE = /^watch-chain (\S+) /;

/** The booking line and the watchers' lines of `lines`, as {@link ChainPaymentCost}. */
function chainPaymentCost(lines: readonly CostLine[], watchersInDemand: WatcherCost, finalBooking: WatcherReport['final_booking'], goal: number): ChainPaymentCost {
  const booking = lines.find((l) => l.step === BOOKING_LINE)?.usd_per_million_orders ?? 0;
  // TRON, Solana, LBTC and EOS report a payment final at once: NEW -> PAID in one booking.
  const final = (finalBooking.billed_write_units * PRICES.dynamodb_write_request_unit + finalBooking.read_units * PRICES.dynamodb_read_request_unit) * 1e6;
  const perChain: Record<string, number> = {};
  for (const l of lines) {
    const chain = WATCHER_LINE.exec(l.step)?.[1];
    if (chain) perChain[chain] = round(l.usd_per_million_orders, 2);
  }
  const watchers = Object.values(perChain).reduce((a, b) => a + b, 0);
  const perWatchedAddress = watchedAddressCost();
  const perOrder: Record<string, number> = { 'block chains (BTC, LTC, BCH, ETH and the EVM networks)': round(booking, 2), 'LBTC, EOS': round(final, 2) };
  for (const [chain, address] of Object.entries(perWatchedAddress)) perOrder[chain] = round(final + address.usd_per_million_orders, 2);
  const perOrderMax = Math.max(...Object.values(perOrder));
  const inDemand = Object.fromEntries(Object.entries(watchersInDemand.per_chain_per_month_usd).map(([chain, c]) => [chain, c.total]));
  // The watchers' monthly total over (goal - per order) dollars per million orders.
  const monthly = Object.values(inDemand).reduce((a, b) => a + b, 0);
  return {
    booking: round(booking, 2),
    final_booking: round(final, 2),
    watchers: round(watchers, 2),
    total: round(booking + watchers, 2),
    watchers_per_chain: perChain,
    per_watched_address: perWatchedAddress,
    per_order: perOrder,
    per_order_max: round(perOrderMax, 2),
    in_demand_usd_per_chain_month: inDemand,
    orders_per_month_for_total_under_goal: perOrderMax < goal ? Math.ceil((monthly / (goal - perOrderMax)) * 1e6) : null,
  };
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
  /** The stepped watcher's invocations (bench/stepped.ts): a chain in demand, priced with the watcher's figures. */
  stepped?: SteppedReport,
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
    // The payment as a chain watcher books it (seen in the mempool, mined, then confirmed with its callback delivery): no HTTP request.
    line(BOOKING_LINE, {
      // As AWS bills it: DynamoDB Local rounds a transaction's items together, AWS each item.
      write_units: watcher.per_order_booking.billed_write_units,
      read_units: watcher.per_order_booking.read_units,
    });
    if (!stepped) throw new Error("cost: the watcher figures need the stepped watcher's (bench group steps)");
    const fixed = watcherMonthlyCost(watcher, stepped);
    const share = 1 / assumptions.orders_per_month;
    const { memory_mb, steps_per_month: steps, runs_per_month: runs, sqs_requests_per_step, ticker_memory_mb } = fixed.assumptions;
    const billed = (figures: IdleRunFigures) => idleRunPrice(figures, assumptions.memory_mb);
    const step = billed(withSourceLatency(stepped.step));
    const claim = billed(withSourceLatency(stepped.claiming_step));
    const minute = billed(withSourceLatency(stepped.minute_run_leased));
    const ticker = billed(stepped.ticker);
    for (const chainAssumption of fixed.assumptions.chains) {
      const chain = chainAssumption.chain;
      const blocks = chainAssumption.blocks_per_day * 30;
      // Billed at the watcher's memory: expressed at this model's memory so the sum stays right.
      const scale = memory_mb(chain) / assumptions.memory_mb;
      line(`watch-chain ${chain} (in demand, stepped; amortized)`, {
        // Each step: a watch-chain and a tick-watchers invocation; each minute the scheduled run.
        invocations: (2 * steps + runs) * share,
        billed_ms: ((steps - runs) * step.billed_ms + runs * (claim.billed_ms + minute.billed_ms)) * scale * share + steps * ticker.billed_ms * (ticker_memory_mb / assumptions.memory_mb) * share,
        read_units:
          ((steps - runs) * step.read_units +
            runs * (claim.read_units + minute.read_units) +
            blocks * chainAssumption.outputs_per_block * fixed.read_units_per_output +
            Math.min(blocks, steps) * fixed.read_units_per_block) *
          share,
        write_units: ((steps - runs) * step.write_units + runs * (claim.write_units + minute.write_units) + Math.min(blocks, steps) * fixed.write_units_per_block) * share,
        sqs_requests: steps * sqs_requests_per_step * share,
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
    const coldMs = Object.entries(invocationsByFunction).reduce((sum, [fn, n]) => sum + n * assumptions.cold_start_fraction * Math.ceil(loadMs.get(fn) ?? 0), 0);
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
  const chainPayment = watcher && stepped ? chainPaymentCost(lines, watcherMonthlyCost(watcher, stepped), watcher.final_booking, CHAIN_PAYMENT_GOAL) : null;
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
      chain_payment: chainPayment?.total ?? null,
    },
    chain_payment: chainPayment,
    total_if_lambda_3x_slower: round(total + 2 * usd.lambda_duration, 2),
    assumptions,
    prices: PRICES,
    goals: { usd_per_million_orders_max: 15, chain_payment_usd_per_million_orders_max: CHAIN_PAYMENT_GOAL },
  };
}
