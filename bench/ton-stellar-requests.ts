/**
 * The TON (TON, USDT_TON) and Stellar (USDC_XLM) watchers: provider requests, detection, cost in
 * demand and cold load. Like bench/tron-requests.ts and bench/solana-requests.ts it prints figures
 * (one JSON line) and asserts nothing by timers. Each source runs against its local server
 * speaking the provider's real format (tests/support/toncenter-server.ts: signed wallet
 * messages, @ton/core cells, TEP-74 jetton transfers; tests/support/horizon-server.ts: signed
 * XDR transactions closed in ledgers), real HTTP on loopback, on a clock the bench moves (the
 * sources' `clock` option and the servers' own), so no step waits for its interval.
 *
 * - requests: 2, 50, 200 and 1,000 open invoices over min(invoices, 50) merchant accounts
 *   (TON: half TON, half USDT_TON; Stellar: USDC_XLM), the four watch lists stepped in lockstep
 *   on one server, each step `WATCH_INTERVAL_SECONDS` (shared/core/settings.ts) after the last
 *   one ended, again at once while the source is behind (the indexed watcher's rule), as the
 *   local loop runs (shared/watchers/watch-loop.ts) and AWS steps (shared/watchers/stepped.ts:
 *   the next tick delayed by the same interval). A cold first step (reading back to the
 *   invoices' creation) is not counted. TON: a few payments to our invoices and the merchants'
 *   other money a minute. Stellar: the requests follow the network, not us: the bench closes a
 *   ledger every 5.5 s holding an ASSUMED number of payment-class operations (200, 400, 700:
 *   XLM and USDC between strangers, and ours), per ledger, since no figure of mainnet's is
 *   measured here. Per step, and per hour over the simulated time and at a step every interval
 *   (360 an hour: the most an hour holds, what bench/cost.ts counts).
 * - detection: from a payment's being on the server (TON: added with its transaction's time;
 *   Stellar: its ledger's close) to the end of the step that reports it. The payment's time is
 *   uniform over the step period; the step's own duration is measured in wall time (with the
 *   TON client's real pacing: 1.1 s between requests without an API key, as in AWS where
 *   TON_API_KEY cannot be set, then 110 ms with a free key), the waits between steps are the
 *   interval on the simulated clock; a proxy times the paced client's requests (the busiest second). A payment made while a step runs is counted as seen by the next one (pessimistic by
 *   at most a step). AWS adds the step timer's delivery (about 0.1 to 0.15 s, docs/performance.md
 *   "Watching by the block"); Horizon adds its ingestion (about 1 s after the ledger closes).
 * - cost: a child process on the bench's DynamoDB Local runs each chain as AWS steps it
 *   (shared/watchers/stepped.ts `watchChainStep`, with the real watch list, cursor, lease and
 *   health writes; the TON client paced as without a key, then, in a second process, with one):
 *   a caught-up step, a claiming step, the minute's run while a line holds the chain,
 *   tick-watchers' handling of one tick; priced by bench/cost.ts `steppingMonthlyCost` (its
 *   prices, 259,200 steps a month, 50 ms per source request) at the watcher's memory
 *   (infra/cdk/constructs/chain-watchers.ts).
 * - cold load: the two source modules, @ton/core (with @ton/crypto, tweetnacl and jssha, which
 *   it brings) and the functions that carry them (watch-chain, report-refund-txid,
 *   portal-report-refund-txid; checkout-order, which has @ton/core through the TON address
 *   codec), and two of them with @ton/core left out, bundled as the CDK construct bundles them
 *   (bench/bundles.ts `constructBundlingOptions`), each import() timed in fresh node processes
 *   (bench/bundles.ts's way; its timer is not exported, so it is written again here).
 *
 * Run alone: `npx tsx bench/ton-stellar-requests.ts` (a couple of minutes; prints one JSON line).
 */
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Metafile, Plugin } from 'esbuild';
import { Asset, Keypair, Memo, Operation, type xdr } from '@stellar/stellar-base';
import { readWatchConfig } from '#shared/core/config';
import { STELLAR_CURSOR_EVERY_MS } from '#shared/watchers/wiring';
import { canonicalTonAddress } from '#shared/payments/addresses/ton';
import { muxedAddress } from '#shared/payments/addresses/stellar';
import { TonTransfers } from '#shared/watchers/sources/toncenter';
import { StellarPayments } from '#shared/watchers/sources/horizon';
import type { IndexedSource } from '#shared/watchers/sources/port';
import type { WatchedAddress } from '#shared/store/watch-list';
import { nextDelaySeconds } from '#shared/watchers/stepped';
import { watcherMemoryMb } from '#infra/cdk/constructs/chain-watchers';
import { type TestWallet, ToncenterTestServer, USDT_MASTER } from '../tests/support/toncenter-server';
import { CIRCLE_USDC_ISSUER, HorizonTestServer, PUBLIC_PASSPHRASE, USDC } from '../tests/support/horizon-server';
import { buildAsLambda, constructBundlingOptions, timeImport } from './bundles';
import { runChild } from './child';
import { DEFAULT_WATCHER_ASSUMPTIONS, PRICES, steppingMonthlyCost } from './cost';
import { type InvocationFigures, type SteppedReport, tickQueueEvent } from './stepped';
import { meterCapacity } from './capacity';
import { median, percentile, round2 } from './stats';

/** The step interval: WATCH_INTERVAL_SECONDS's default, as both runtimes read it. */
const INTERVAL_S = readWatchConfig({}).watchIntervalSeconds;
/** What AWS delays the next tick by after a step that worked and is caught up (shared/watchers/stepped.ts). */
const AWS_DELAY_S = nextDelaySeconds(0, false, INTERVAL_S);
/** The providers' limits: toncenter per second (with a free key, without), SDF's public Horizon per hour (per IP). */
export const PROVIDER_LIMITS = { toncenter_per_second: { free_key: 10, no_key: 1 }, horizon_public_per_hour: 3600 } as const;
/** What the figures are held against (the brief of this bench). */
export const GOALS = { flat_ratio_max: 1.1, detection_p50_ms_max: 10_000, usd_per_chain_month_max: 1, cold_load_ms_max: 100 } as const;

const OPEN_INVOICES = [2, 50, 200, 1000];
const MERCHANTS = 50;
/** Stellar closes a ledger every ~5.5 s. */
const LEDGER_MS = 5500;
/** Assumed payment-class operations per ledger (successful ones: what `/payments` lists). */
const OPS_PER_LEDGER = [200, 400, 700];
const STEPS_PER_HOUR_AT_INTERVAL = 3600 / INTERVAL_S;

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const began = performance.now();
const progress = (message: string) => process.stderr.write(`ton-stellar: ${((performance.now() - began) / 1000).toFixed(1)} s ${message}\n`);
const total = (counts: ReadonlyMap<string, number>) => [...counts.values()].reduce((sum, n) => sum + n, 0);
/** Requests by path (or route) since `before`. */
const since = (now: ReadonlyMap<string, number>, before: ReadonlyMap<string, number>) => new Map([...now].map(([path, n]) => [path, n - (before.get(path) ?? 0)] as const).filter(([, n]) => n > 0));

/** An invoice's comment or memo id (as checkout makes them: 16 digits, no leading zero). */
const invoiceId = (i: number) => String(1_000_000_000_000_000 + i);

export interface Latency {
  n: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
}

function latency(samples: readonly number[]): Latency {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 50)),
    p95: round(percentile(sorted, 95)),
    max: round(sorted.at(-1) ?? NaN),
    mean: round(sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length)),
  };
}

export interface RequestsByOpen {
  open_invoices: number;
  merchants: number;
  steps: number;
  requests_per_step: { mean: number; max: number };
  by_path_per_step: Record<string, number>;
  /** Over the simulated time (each step the interval after the last one ended). */
  requests_per_hour: number;
  /** At a step every interval (360 an hour). */
  requests_per_hour_at_interval: number;
  reported: number;
}

/** One source stepped as the indexed watcher steps it: its cursor carried, booked after each step, again at once while behind. */
class Stepped {
  cursor: string | undefined;
  reported = 0;
  constructor(readonly source: IndexedSource) {}

  /** One step (and those at once after it while behind); what each reported. */
  async step(): Promise<{ transfers: { key: string; txid: string }[]; steps: number; ms: number }> {
    const transfers: { key: string; txid: string }[] = [];
    const started = performance.now();
    let steps = 0;
    for (let again = true; again; ) {
      const previous = this.cursor;
      const result = await this.source.after(this.cursor, 100);
      this.source.booked?.();
      steps += 1;
      this.cursor = result.next;
      transfers.push(...result.transfers);
      // shared/watchers/indexed-watcher.ts: behind only when the cursor moved and the source says more.
      again = result.next !== undefined && result.next !== previous && result.more !== false && steps < 20;
    }
    this.reported += transfers.length;
    return { transfers, steps, ms: performance.now() - started };
  }
}

/** Counts requests per step for each open-invoice count, stepped in lockstep on one server. */
async function lockstep(
  sources: { open: number; merchants: number; stepped: Stepped }[],
  counter: () => ReadonlyMap<string, number>,
  options: { steps: number; clock: { now: number }; traffic: (from: number, to: number) => void },
): Promise<{ figures: RequestsByOpen[]; simulatedMs: number }> {
  const { clock } = options;
  // The cold first step: reads back to the invoices' creation once (not counted).
  for (const { stepped } of sources) await stepped.step();
  const perStep = sources.map(() => [] as number[]);
  const byPath = sources.map(() => new Map<string, number>());
  const reportedBefore = sources.map(({ stepped }) => stepped.reported);
  const started = clock.now;
  let last = 0;
  for (let step = 0; step < options.steps; step += 1) {
    const next = clock.now + last + INTERVAL_S * 1000;
    options.traffic(clock.now, next);
    clock.now = next;
    for (const [index, { stepped }] of sources.entries()) {
      const before = new Map(counter());
      const done = await stepped.step();
      const asked = since(counter(), before);
      perStep[index]!.push(total(asked));
      for (const [path, n] of asked) byPath[index]!.set(path, (byPath[index]!.get(path) ?? 0) + n);
      // The period follows the most-watched list's step (the slowest).
      if (index === sources.length - 1) last = done.ms;
    }
  }
  const simulatedMs = clock.now + last - started;
  const figures = sources.map(({ open, merchants, stepped }, index) => {
    const counts = perStep[index]!;
    const sum = counts.reduce((a, b) => a + b, 0);
    return {
      open_invoices: open,
      merchants,
      steps: counts.length,
      requests_per_step: { mean: round(sum / counts.length), max: Math.max(...counts) },
      by_path_per_step: Object.fromEntries([...byPath[index]!].map(([path, n]) => [path, round(n / counts.length)])),
      requests_per_hour: Math.round((sum * 3_600_000) / simulatedMs),
      requests_per_hour_at_interval: Math.round((sum / counts.length) * STEPS_PER_HOUR_AT_INTERVAL),
      reported: stepped.reported - reportedBefore[index]!,
    };
  });
  return { figures, simulatedMs };
}

const flatRatio = (figures: readonly RequestsByOpen[]) => {
  const means = figures.map((f) => f.requests_per_step.mean);
  return round(Math.max(...means) / Math.min(...means));
};

/** A loopback proxy that notes when each request arrives (the paced client's spacing, in wall time). */
async function timingProxy(target: string): Promise<{ url: string; times: number[]; close: () => Promise<void> }> {
  const times: number[] = [];
  const { hostname, port } = new URL(target);
  const server: Server = createServer((request, response) => {
    times.push(performance.now());
    const upstream = httpRequest({ hostname, port, path: request.url, method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    times,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
}

/** The most requests that arrived within any one second, and the least time between two. */
function burst(times: readonly number[]): { max_per_second: number; min_spacing_ms: number } {
  let most = 0;
  let least = Number.POSITIVE_INFINITY;
  for (let i = 0, j = 0; i < times.length; i += 1) {
    while (times[i]! - times[j]! >= 1000) j += 1;
    most = Math.max(most, i - j + 1);
    if (i > 0) least = Math.min(least, times[i]! - times[i - 1]!);
  }
  return { max_per_second: most, min_spacing_ms: round(least) };
}

// ---- TON ------------------------------------------------------------------------------------

export interface TonReport {
  merchants: number;
  currencies: string[];
  payments_per_minute: { ours: number; merchants_other_money: number };
  requests: RequestsByOpen[];
  /** The most requests a step over the fewest, across the open-invoice counts (1 = flat). */
  flat_ratio: number;
  /** The 1,000-invoice list through a client paced as AWS runs it (no API key: 1.1 s between requests), with the payments of the detection run. */
  paced: PacedRun;
  /** The same with a free API key (110 ms between requests): the local runtime's TON_API_KEY; not settable in AWS. */
  paced_with_key: PacedRun;
  /** Payments to invoices per step period in the detection runs (each its own time in the period). */
  detection_payments_per_period: number;
}

export interface PacedRun {
  /** A step's wall time (its requests' pacing included). */
  step_ms: Latency;
  requests_per_step: number;
  /** The interval plus a step: the local loop's period (AWS adds the timer's delivery). */
  period_s: number;
  requests_per_hour: number;
  /** Requests that reached the server within any one second (wall time), and the least time between two. */
  max_per_second: number;
  min_spacing_ms: number;
  /** On the server -> reported. */
  detection_ms: Latency;
}

/** Watch-list entries: `open` invoices over min(open, merchants) accounts, TON and USDT_TON alternating per merchant. */
function tonWatches(open: number, accounts: readonly string[], now: number): WatchedAddress[] {
  return Array.from({ length: open }, (_, i) => {
    const created = now - 60_000 - ((i * 7919) % 240_000);
    return {
      chain: 'TON',
      // Each merchant gets both currencies once it has two invoices or more.
      currency: (i + Math.floor(i / MERCHANTS)) % 2 === 0 ? 'TON' : 'USDT_TON',
      address: accounts[i % Math.min(open, MERCHANTS)]!,
      since: new Date(created).toISOString(),
      open_until: new Date(created + 3_600_000).toISOString(),
      until: new Date(created + 86_400_000).toISOString(),
    };
  });
}

/** The key the local toncenter takes (requests without one are the keyless rate's). */
const BENCH_TON_KEY = 'bench-free-key';

async function measureTon(options: { minutes: number; detectionPayments: number; paymentsPerPeriod: number }): Promise<TonReport> {
  const server = await new ToncenterTestServer({ apiKey: BENCH_TON_KEY }).start();
  const clock = { now: Date.now() };
  server.clock = () => clock.now;
  const merchants: TestWallet[] = Array.from({ length: MERCHANTS }, (_, i) => server.wallet(100 + i));
  const accounts = merchants.map((wallet) => canonicalTonAddress(wallet.address.toString())!);
  const buyer = server.wallet(2);
  const ours = { perMinute: 2, owed: 0, n: 0 };
  const other = { perMinute: 2, owed: 0, n: 0 };
  /** A payment to an invoice at `at`: TON with its comment to merchant 0, or USDT (comment in a ref, or inline) to merchant 1 (both watched in every list). */
  const pay = (at: number, n: number) => {
    const comment = invoiceId(n);
    if (n % 2 === 0) return server.addTonTransfer({ from: buyer, to: accounts[0]!, nanotons: 1_000_000_000n + BigInt(n), comment, at: new Date(at) }).hex;
    return `${server.addJettonTransfer({ master: USDT_MASTER, to: accounts[1]!, units: 5_000_000n + BigInt(n), comment, inline: n % 4 === 1, at: new Date(at) }).hex}:jetton`;
  };
  try {
    const lists = OPEN_INVOICES.map((open) => ({ open, merchants: Math.min(open, MERCHANTS), watched: tonWatches(open, accounts, clock.now) }));
    const sources = lists.map(({ open, merchants: count, watched }) => ({
      open,
      merchants: count,
      stepped: new Stepped(new TonTransfers({ url: server.url, usdtMaster: USDT_MASTER, watched: async () => watched, clock: () => new Date(clock.now), minIntervalMs: 0 })),
    }));
    // Traffic between two steps, at its own times: payments to invoices, and merchants' other money (no comment, TON or USDT).
    const traffic = (from: number, to: number) => {
      const minutes = (to - from) / 60_000;
      const times: { at: number; kind: 'ours' | 'other' }[] = [];
      for (ours.owed += ours.perMinute * minutes; ours.owed >= 1; ours.owed -= 1) times.push({ at: from + Math.random() * (to - from), kind: 'ours' });
      for (other.owed += other.perMinute * minutes; other.owed >= 1; other.owed -= 1) times.push({ at: from + Math.random() * (to - from), kind: 'other' });
      for (const { at, kind } of times.sort((a, b) => a.at - b.at)) {
        if (kind === 'ours') pay(at, (ours.n += 1));
        else if ((other.n += 1) % 2 === 0) server.addTonTransfer({ from: buyer, to: accounts[other.n % MERCHANTS]!, nanotons: 2_000_000_000n, at: new Date(at) });
        else server.addJettonTransfer({ master: USDT_MASTER, to: accounts[other.n % MERCHANTS]!, units: 7_000_000n, at: new Date(at) });
      }
    };
    progress('TON requests...');
    const { figures } = await lockstep(sources, () => server.requests, { steps: (options.minutes * 60) / INTERVAL_S, clock, traffic });

    // Detection: the 1,000-invoice list through a paced client (as in AWS: no key; then with one), its requests timed by a proxy.
    const watched = lists.at(-1)!.watched;
    const detect = async (apiKey: string | undefined): Promise<PacedRun> => {
      const proxy = await timingProxy(server.url);
      const paced = new Stepped(new TonTransfers({ url: proxy.url, ...(apiKey ? { apiKey } : {}), usdtMaster: USDT_MASTER, watched: async () => watched, clock: () => new Date(clock.now) }));
      // The client spaces each request from the one before: a step 10 s after the last starts unhindered, as after this pause.
      const pause = apiKey ? 200 : 1200;
      const latencies: number[] = [];
      const stepMs: number[] = [];
      const requestsPerStep: number[] = [];
      try {
        await paced.step(); // cold
        await sleep(pause);
        proxy.times.length = 0;
        let last = 0;
        while (latencies.length < options.detectionPayments) {
          const start = clock.now;
          const next = start + last + INTERVAL_S * 1000;
          const due = new Map<string, number>();
          const times = Array.from({ length: options.paymentsPerPeriod }, () => start + Math.random() * (next - start)).sort((a, b) => a - b);
          for (const at of times) due.set(pay(at, (ours.n += 1)), at);
          clock.now = next;
          const before = proxy.times.length;
          const done = await paced.step();
          last = done.ms;
          stepMs.push(done.ms);
          requestsPerStep.push(proxy.times.length - before);
          for (const transfer of done.transfers) {
            const at = due.get(transfer.key);
            if (at !== undefined) latencies.push(clock.now + done.ms - at);
          }
          await sleep(pause);
        }
      } finally {
        await proxy.close();
      }
      const meanRequests = requestsPerStep.reduce((a, b) => a + b, 0) / requestsPerStep.length;
      const period = INTERVAL_S + median(stepMs) / 1000;
      return {
        step_ms: latency(stepMs),
        requests_per_step: round(meanRequests),
        period_s: round(period),
        requests_per_hour: Math.round((meanRequests * 3600) / period),
        ...burst(proxy.times),
        detection_ms: latency(latencies),
      };
    };
    progress('TON detection, paced as without a key...');
    const paced = await detect(undefined);
    progress('TON detection, paced as with a free key...');
    const pacedWithKey = await detect(BENCH_TON_KEY);
    return {
      merchants: MERCHANTS,
      currencies: ['TON', 'USDT_TON'],
      payments_per_minute: { ours: ours.perMinute, merchants_other_money: other.perMinute },
      requests: figures,
      flat_ratio: flatRatio(figures),
      paced,
      paced_with_key: pacedWithKey,
      detection_payments_per_period: options.paymentsPerPeriod,
    };
  } finally {
    await server.close();
  }
}

// ---- Stellar --------------------------------------------------------------------------------

const stellarKey = (n: number) => Keypair.fromRawEd25519Seed(Buffer.alloc(32, n));

/** A local Stellar network with a payer, strangers and the merchants, its ledgers closed by the bench every 5.5 s of simulated time. */
async function stellarNetwork(opsPerLedger: number, start: number) {
  const server = await new HorizonTestServer({ autoClose: false, historyEndsAt: start }).start();
  const payer = stellarKey(1);
  server.createAccount(payer, '1000000000');
  server.trust(payer.publicKey(), USDC, { balance: '1000000000' });
  const strangers = Array.from({ length: 20 }, (_, i) => server.createAccount(stellarKey(200 + i)));
  for (const stranger of strangers) server.trust(stranger, USDC);
  const merchants = Array.from({ length: MERCHANTS }, (_, i) => server.createAccount(stellarKey(10 + i)));
  for (const merchant of merchants) server.trust(merchant, USDC);
  let nextClose = start + LEDGER_MS;
  let sent = 0;
  type ToUs = { to: string; memo?: Memo }[];
  /** Transaction hash -> its ledger's close time (ms): when the payment is on the server. */
  const closedAt = new Map<string, number>();
  const send = (operations: xdr.Operation[], memo?: Memo) => {
    const builder = server.builder(payer);
    for (const operation of operations) builder.addOperation(operation);
    if (memo) builder.addMemo(memo);
    const tx = builder.build();
    tx.sign(payer);
    return server.send(tx).hash;
  };
  /** Closes a ledger at `at` of `ops` payment operations: `paying` ours (each its own transaction), the rest XLM and USDC between strangers (100 a transaction). */
  const closeLedger = (ops: number, paying: ToUs, at: number) => {
    const hashes: string[] = [];
    for (const { to, memo } of paying) hashes.push(send([Operation.payment({ destination: to, asset: USDC, amount: '10.0000000' })], memo));
    const others = Math.max(0, ops - paying.length);
    for (let done = 0; done < others; done += 100) {
      send(
        Array.from({ length: Math.min(100, others - done) }, () =>
          Operation.payment({ destination: strangers[(sent += 1) % strangers.length]!, asset: sent % 2 ? USDC : Asset.native(), amount: '0.5000000' }),
        ),
      );
    }
    server.closeLedger(at);
    for (const hash of hashes) closedAt.set(hash, at);
  };
  /** Closes every ledger due by `upTo` (one every 5.5 s), `toUs()` of each ledger's operations ours. */
  const closeUntil = (upTo: number, toUs: () => ToUs) => {
    for (; nextClose <= upTo; nextClose += LEDGER_MS) closeLedger(opsPerLedger, toUs(), nextClose);
  };
  return { server, merchants, closeLedger, closeUntil, closedAt };
}

const stellarWatches = (open: number, merchants: readonly string[], now: number): WatchedAddress[] =>
  Array.from({ length: open }, (_, i) => {
    const created = now - 60_000 - ((i * 7919) % 240_000);
    return {
      chain: 'STELLAR',
      currency: 'USDC_XLM',
      address: merchants[i % Math.min(open, MERCHANTS)]!,
      since: new Date(created).toISOString(),
      open_until: new Date(created + 3_600_000).toISOString(),
      until: new Date(created + 86_400_000).toISOString(),
    };
  });

export interface StellarTraffic {
  ops_per_ledger: number;
  /** Records a step reads at a step every interval: ops_per_ledger x interval / 5.5 s. */
  records_per_step: number;
  requests: RequestsByOpen[];
  flat_ratio: number;
  /** The 1,000-invoice list's requests an hour against the public Horizon's 3,600. */
  share_of_public_limit: number;
}

export interface StellarReport {
  assumption: string;
  merchants: number;
  payments_per_minute: { ours: number; merchants_other_money: number };
  by_traffic: StellarTraffic[];
  detection_ms: Latency;
  detection_payments: number;
  detection_ops_per_ledger: number;
  step_ms: Latency;
}

/** Payments to invoices (merchant 0 at muxed addresses, merchant 1 with a MEMO_ID) and merchants' other money (no memo): both watched in every list. */
function stellarPayer(merchants: readonly string[], perMinute: { ours: number; other: number }) {
  const state = { ours: 0, other: 0, n: 0 };
  return () => {
    const paying: { to: string; memo?: Memo }[] = [];
    for (state.ours += (perMinute.ours * LEDGER_MS) / 60_000; state.ours >= 1; state.ours -= 1) {
      const id = invoiceId((state.n += 1));
      paying.push(state.n % 2 === 0 ? { to: muxedAddress(merchants[0]!, id) } : { to: merchants[1]!, memo: Memo.id(id) });
    }
    for (state.other += (perMinute.other * LEDGER_MS) / 60_000; state.other >= 1; state.other -= 1) paying.push({ to: merchants[(state.n += 1) % 2]! });
    return paying;
  };
}

async function measureStellar(options: { minutes: number; detectionPayments: number; detectionOps: number }): Promise<StellarReport> {
  const perMinute = { ours: 2, other: 1 };
  const byTraffic: StellarTraffic[] = [];
  let detection: { latencies: number[]; stepMs: number[] } | undefined;
  for (const ops of OPS_PER_LEDGER) {
    progress(`Stellar requests at ${ops} operations a ledger...`);
    const clock = { now: Date.now() };
    const network = await stellarNetwork(ops, clock.now);
    try {
      const toUs = stellarPayer(network.merchants, perMinute);
      const sources = OPEN_INVOICES.map((open) => {
        const watched = stellarWatches(open, network.merchants, clock.now);
        return {
          open,
          merchants: Math.min(open, MERCHANTS),
          stepped: new Stepped(
            new StellarPayments({
              url: network.server.url,
              issuer: CIRCLE_USDC_ISSUER,
              networkPassphrase: PUBLIC_PASSPHRASE,
              currency: 'USDC_XLM',
              decimals: 7,
              watched: async () => watched,
              clock: () => new Date(clock.now),
            }),
          ),
        };
      });
      const { figures } = await lockstep(sources, () => network.server.requests, { steps: (options.minutes * 60) / INTERVAL_S, clock, traffic: (_, to) => network.closeUntil(to, toUs) });
      byTraffic.push({
        ops_per_ledger: ops,
        records_per_step: round((ops * INTERVAL_S * 1000) / LEDGER_MS),
        requests: figures,
        flat_ratio: flatRatio(figures),
        share_of_public_limit: round(figures.at(-1)!.requests_per_hour / PROVIDER_LIMITS.horizon_public_per_hour),
      });
      if (ops !== options.detectionOps) continue;
      // Detection on the same network, the 1,000-invoice list: more payments to us, each ledger's close its time on the server.
      progress(`Stellar detection at ${ops} operations a ledger...`);
      const stepped = sources.at(-1)!.stepped;
      const busy = stellarPayer(network.merchants, { ours: 30, other: 0 });
      const latencies: number[] = [];
      const stepMs: number[] = [];
      let last = 0;
      while (latencies.length < options.detectionPayments) {
        const next = clock.now + last + INTERVAL_S * 1000;
        network.closeUntil(next, busy);
        clock.now = next;
        const done = await stepped.step();
        last = done.ms;
        stepMs.push(done.ms);
        for (const transfer of done.transfers) {
          const closed = network.closedAt.get(transfer.txid);
          if (closed !== undefined) latencies.push(clock.now + done.ms - closed);
        }
      }
      detection = { latencies, stepMs };
    } finally {
      await network.server.close();
    }
  }
  return {
    assumption: `ASSUMED, not measured on mainnet: ${OPS_PER_LEDGER.join(', ')} successful payment-class operations per ledger (what /payments lists: payments, path payments, account creations and merges, contract transfers), a ledger every ${LEDGER_MS / 1000} s`,
    merchants: MERCHANTS,
    payments_per_minute: { ours: perMinute.ours, merchants_other_money: perMinute.other },
    by_traffic: byTraffic,
    detection_ms: latency(detection!.latencies),
    detection_payments: detection!.latencies.length,
    detection_ops_per_ledger: options.detectionOps,
    step_ms: latency(detection!.stepMs),
  };
}

// ---- Cost in demand (a child process on DynamoDB Local) -----------------------------------------

interface CostJob {
  dynamodbEndpoint: string;
  samples: number;
  claimSamples: number;
  /** TON alone, with this API key (TON_API_KEY: the local runtime's only). */
  tonApiKey?: string;
}

export interface ChainInvocations {
  chain: string;
  /** What was run: TON with or without an API key, Stellar at an assumed traffic. */
  variant: string;
  /** Stellar: the traffic assumed (operations per ledger). */
  ops_per_ledger?: number;
  step: InvocationFigures;
  claiming_step: InvocationFigures;
  minute_run_leased: InvocationFigures;
}

interface CostJobResult {
  chains: ChainInvocations[];
  ticker: InvocationFigures;
}

/** Each invocation kind of TON and Stellar in demand, warm, as AWS runs them (the median of `samples`). */
async function costJob(options: CostJob): Promise<CostJobResult> {
  const { ensureTable } = await import('#infra/local/dynamodb');
  const table = `bench-ton-stellar-${randomUUID().slice(0, 8)}`;
  await ensureTable(options.dynamodbEndpoint, table);
  const ton = await new ToncenterTestServer(options.tonApiKey ? { apiKey: options.tonApiKey } : {}).start();
  const start = Date.now();
  const stellar = await stellarNetwork(OPS_PER_LEDGER[0]!, start);
  const lambdaApi: Server = createServer((request, response) => (request.resume(), response.writeHead(202).end()));
  await new Promise<void>((resolve) => lambdaApi.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    TABLE_NAME: table,
    DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
    TON_API_URL: ton.url,
    STELLAR_HORIZON_URL: stellar.server.url,
    ...(options.tonApiKey ? { TON_API_KEY: options.tonApiKey } : {}),
    WATCHER_FUNCTIONS: JSON.stringify({ TON: 'watch-chain-ton', STELLAR: 'watch-chain-stellar' }),
    LAMBDA_ENDPOINT: `http://127.0.0.1:${(lambdaApi.address() as AddressInfo).port}`,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  const { db } = await import('#shared/store/client');
  const { demandWatching } = await import('#shared/store/watch-demand');
  const { PER_ADDRESS_ITEMS, watchAddress } = await import('#shared/store/watch-list');
  const { watchLeaseKey } = await import('#shared/store/keys');
  const { watchChainStep } = await import('#shared/watchers/stepped');
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { handler: tickWatchers } = await import('#functions/tick-watchers/handler');
  const { reset } = meterCapacity(db());
  let sent = 0;
  const send = async () => void (sent += 1);
  const merchants = Array.from({ length: MERCHANTS }, (_, i) => ton.wallet(100 + i));
  const tonAccounts = merchants.map((wallet) => canonicalTonAddress(wallet.address.toString())!);
  const buyer = ton.wallet(2);
  // 200 open invoices a chain, written 10 minutes ago (outside a warm step's incremental read).
  const writtenAt = () => Date.now() - 600_000;
  const entries = [...tonWatches(200, tonAccounts, start), ...stellarWatches(200, stellar.merchants, start)];
  for (let at = 0; at < entries.length; at += 25) await Promise.all(entries.slice(at, at + 25).map((entry) => watchAddress(PER_ADDRESS_ITEMS, entry, writtenAt)));
  for (const chain of ['TON', 'STELLAR']) await demandWatching(chain, new Date(Date.now() + 3_600_000));
  const owner = async (chain: string) => (await db().send(new GetCommand({ TableName: table, Key: watchLeaseKey(chain), ConsistentRead: true }))).Item!.owner as string;
  const tick = async (chain: string, claimedAgoMs: number) => ({
    source: 'watch-tick' as const,
    chain,
    owner: await owner(chain),
    claimed_at: new Date(Date.now() - claimedAgoMs).toISOString(),
    failures: 0,
  });
  const sourceRequests = (chain: string) => total(chain === 'TON' ? ton.requests : stellar.server.requests);
  /** The median of `count` invocations of `act`, each after its `prepare` (not measured). */
  const measure = async <T>(chain: string, count: number, prepare: () => Promise<T>, act: (prepared: T) => Promise<unknown>): Promise<InvocationFigures> => {
    const samples: InvocationFigures[] = [];
    for (let i = 0; i < count; i += 1) {
      const prepared = await prepare();
      const requests = sourceRequests(chain);
      const queued = sent;
      reset();
      const started = performance.now();
      await act(prepared);
      const ms = performance.now() - started;
      const units = reset();
      samples.push({
        ms: round2(ms),
        dynamodb_requests: units.requests,
        read_units: round2(units.readUnits),
        write_units: round2(units.writeUnits),
        source_requests: sourceRequests(chain) - requests,
        sqs_requests: sent - queued,
      });
    }
    return samples.sort((a, b) => a.ms - b.ms)[Math.floor(count / 2)]!;
  };
  const invoke = (chain: string) => (event: Awaited<ReturnType<typeof tick>> | undefined) => watchChainStep(chain, event, { send, budgetMs: 30_000 });
  const chains: ChainInvocations[] = [];
  try {
    // TON: between steps a merchant's other money in TON (no comment: reported and kept as unmatched, one PutItem; a USDT
    // one without a ref payload would add the look-up of its transaction, one request more). The pause: a step's first request waits
    // for no pacing left over from the last step, as 10 s later in AWS.
    let n = 0;
    const tonTraffic = async () => {
      await sleep(options.tonApiKey ? 200 : 1200);
      ton.addTonTransfer({ from: buyer, to: tonAccounts[(n += 1) % MERCHANTS]!, nanotons: 2_000_000_000n });
    };
    const tonVariant = options.tonApiKey ? 'TON, with a free API key (110 ms between requests; TON_API_KEY is local only)' : 'TON, no API key (1.1 s between requests), as in AWS';
    progress(`cost: ${tonVariant}...`);
    await invoke('TON')(undefined); // starts the line: the lease, the cold read of the list and of the accounts
    chains.push({
      chain: 'TON',
      variant: tonVariant,
      step: await measure('TON', options.samples, async () => (await tonTraffic(), tick('TON', 1000)), invoke('TON')),
      claiming_step: await measure('TON', options.claimSamples, async () => (await tonTraffic(), tick('TON', 61_000)), invoke('TON')),
      minute_run_leased: await measure('TON', options.samples, async () => undefined, invoke('TON')),
    });
    // Stellar: 10 s of the network's traffic between steps (nothing to us), at each assumed traffic.
    if (!options.tonApiKey) await invoke('STELLAR')(undefined);
    let owed = 0;
    for (const ops of options.tonApiKey ? [] : OPS_PER_LEDGER) {
      progress(`cost: Stellar steps at ${ops} operations a ledger...`);
      // An interval's ledgers (~1.8), closed just before the step (their close times do not matter to a caught-up step).
      const ledgers = async () => {
        let count = 0;
        for (owed += (INTERVAL_S * 1000) / LEDGER_MS; owed >= 1; owed -= 1) count += 1;
        for (let i = 0; i < count; i += 1) stellar.closeLedger(ops, [], Date.now() - (count - 1 - i));
      };
      chains.push({
        chain: 'STELLAR',
        variant: `STELLAR, ${ops} payment operations a ledger (assumed)`,
        ops_per_ledger: ops,
        step: withCursorShare(await measure('STELLAR', options.samples, async () => (await ledgers(), tick('STELLAR', 1000)), invoke('STELLAR'))),
        claiming_step: await measure('STELLAR', options.claimSamples, async () => (await ledgers(), tick('STELLAR', 61_000)), invoke('STELLAR')),
        minute_run_leased: await measure('STELLAR', options.samples, async () => undefined, invoke('STELLAR')),
      });
    }
    const message = async () => tickQueueEvent(JSON.stringify(await tick('TON', 1000)));
    const ticker = await measure('TON', options.samples, message, (event) => tickWatchers(event));
    return { chains, ticker };
  } finally {
    await new Promise((resolve) => lambdaApi.close(resolve));
    await ton.close();
    await stellar.server.close();
  }
}

/**
 * A caught-up Stellar step as priced: the measured one (its cursor kept in memory: the samples
 * run within a second) plus its share of the cursor's write, one UpdateItem of 1 WRU once a
 * minute while nothing is booked (shared/watchers/wiring.ts STELLAR_CURSOR_EVERY_MS), spread over
 * the minute's steps.
 */
function withCursorShare(step: InvocationFigures): InvocationFigures {
  const share = (INTERVAL_S * 1000) / STELLAR_CURSOR_EVERY_MS;
  return { ...step, dynamodb_requests: round2(step.dynamodb_requests + share), write_units: round2(step.write_units + share) };
}

export interface ChainCost {
  chain: string;
  variant: string;
  ops_per_ledger?: number;
  memory_mb: number;
  /** The measured caught-up step as priced: ms here plus 50 ms per source request (bench/cost.ts `withSourceLatency`). */
  step: InvocationFigures;
  claiming_step: InvocationFigures;
  minute_run_leased: InvocationFigures;
  usd_per_month: { lambda: number; dynamodb: number; sqs: number; total: number };
}

export interface CostReport {
  chains: ChainCost[];
  ticker: InvocationFigures;
  steps_per_month: number;
  source_round_trip_ms: number;
  prices: typeof PRICES;
}

async function measureCost(dynamodbEndpoint: string): Promise<CostReport> {
  const job: CostJob = { dynamodbEndpoint, samples: 5, claimSamples: 3 };
  // Each in a process of its own: the configuration (TON_API_KEY with it) is read once per process.
  const result = await runChild<CostJobResult>('bench/ton-stellar-requests.ts', { BENCH_TON_STELLAR_COST_JOB: JSON.stringify(job) });
  const withKey = await runChild<CostJobResult>('bench/ton-stellar-requests.ts', { BENCH_TON_STELLAR_COST_JOB: JSON.stringify({ ...job, tonApiKey: BENCH_TON_KEY }) });
  const [keyless, ...stellarRuns] = result.chains;
  const chains = [keyless!, ...withKey.chains, ...stellarRuns].map((figures): ChainCost => {
    const memory = watcherMemoryMb(figures.chain);
    // steppingMonthlyCost reads only these four invocations of a SteppedReport (the detection fields are the BTC line's, not measured here).
    const stepped = { step: figures.step, claiming_step: figures.claiming_step, minute_run_leased: figures.minute_run_leased, ticker: result.ticker } as SteppedReport;
    const usd = steppingMonthlyCost(stepped, memory);
    return {
      chain: figures.chain,
      variant: figures.variant,
      ...(figures.ops_per_ledger !== undefined ? { ops_per_ledger: figures.ops_per_ledger } : {}),
      memory_mb: memory,
      step: figures.step,
      claiming_step: figures.claiming_step,
      minute_run_leased: figures.minute_run_leased,
      usd_per_month: { lambda: round(usd.lambda), dynamodb: round(usd.dynamodb), sqs: round(usd.sqs), total: round(usd.lambda + usd.dynamodb + usd.sqs) },
    };
  });
  return { chains, ticker: result.ticker, steps_per_month: DEFAULT_WATCHER_ASSUMPTIONS.steps_per_month, source_round_trip_ms: DEFAULT_WATCHER_ASSUMPTIONS.source_round_trip_ms, prices: PRICES };
}

// ---- Cold load -----------------------------------------------------------------------------------

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface LoadFigures {
  what: string;
  minified_bytes: number;
  /** Output bytes of @ton/core with what it brings (@ton/crypto, tweetnacl, jssha) and of the two source modules in this bundle (esbuild's metafile). */
  ton_libraries_bytes: number;
  sources_bytes: number;
  load_ms: { median: number; min: number; max: number };
}

/** Output bytes of the inputs whose path matches. */
const bytesOf = (metafile: Metafile, pattern: RegExp) =>
  Object.values(metafile.outputs).reduce((sum, output) => sum + Object.entries(output.inputs).reduce((part, [path, input]) => part + (pattern.test(path) ? input.bytesInOutput : 0), 0), 0);

/**
 * @ton/core left out of a bundle (its two classes the service imports, empty): what the library
 * adds to a function's load, measured side by side (nothing calls them while a module loads).
 */
const withoutTonCore: Plugin = {
  name: 'without-ton-core',
  setup(builder) {
    builder.onResolve({ filter: /^@ton\/core$/ }, () => ({ path: '@ton/core', namespace: 'stub' }));
    builder.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({ contents: 'export class Address {} export class Cell {}', loader: 'js' }));
  },
};

export async function measureColdLoad(runs: number): Promise<{ runs: number; node: string; bundles: LoadFigures[]; goal_ms: number }> {
  const options = constructBundlingOptions();
  const outDir = mkdtempSync(join(tmpdir(), 'bench-ton-stellar-'));
  const entries: { what: string; contents?: string; entry?: string; plugins?: Plugin[] }[] = [
    { what: 'an empty module (baseline)', contents: 'export const nothing = 0;' },
    { what: '@ton/core', contents: "export * from '@ton/core';" },
    { what: 'shared/watchers/sources/toncenter.ts', contents: "export * from '#shared/watchers/sources/toncenter';" },
    { what: 'shared/watchers/sources/horizon.ts', contents: "export * from '#shared/watchers/sources/horizon';" },
    { what: 'functions/watch-chain', entry: 'functions/watch-chain/handler.ts' },
    { what: 'functions/watch-chain without @ton/core', entry: 'functions/watch-chain/handler.ts', plugins: [withoutTonCore] },
    { what: 'functions/report-refund-txid', entry: 'functions/report-refund-txid/handler.ts' },
    { what: 'functions/portal-report-refund-txid', entry: 'functions/portal-report-refund-txid/handler.ts' },
    // Not a source's: @ton/core comes with the TON address codec (shared/payments/addresses/ton.ts) to every function checking out.
    { what: 'functions/checkout-order', entry: 'functions/checkout-order/handler.ts' },
    { what: 'functions/checkout-order without @ton/core', entry: 'functions/checkout-order/handler.ts', plugins: [withoutTonCore] },
  ];
  try {
    const files = await Promise.all(
      entries.map(async ({ contents, entry, plugins }, index) => {
        const outfile = join(outDir, String(index), 'index.mjs');
        const built = await buildAsLambda(
          {
            ...(entry ? { entryPoints: [join(REPO_ROOT, entry)] } : { stdin: { contents: contents!, resolveDir: REPO_ROOT, sourcefile: `entry-${index}.ts`, loader: 'ts' } }),
            outfile,
            plugins: plugins ?? [],
          },
          options,
        );
        return { outfile, metafile: built.metafile };
      }),
    );
    const samples = entries.map(() => [] as number[]);
    // Round robin, so the shared machine's drift falls on all alike.
    for (let run = 0; run < runs; run += 1) for (const [index, { outfile }] of files.entries()) samples[index]!.push(await timeImport(outfile));
    return {
      runs,
      node: process.version,
      bundles: entries.map(({ what }, index) => ({
        what,
        minified_bytes: readFileSync(files[index]!.outfile).length,
        ton_libraries_bytes: bytesOf(files[index]!.metafile, /node_modules\/(@ton\/|tweetnacl\/|jssha\/)/),
        sources_bytes: bytesOf(files[index]!.metafile, /shared\/watchers\/sources\/(toncenter|horizon)\.ts$/),
        load_ms: { median: round2(median(samples[index]!)), min: round2(Math.min(...samples[index]!)), max: round2(Math.max(...samples[index]!)) },
      })),
      goal_ms: GOALS.cold_load_ms_max,
    };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

// ---- The run ---------------------------------------------------------------------------------------

export interface TonStellarReport {
  generated_at: string;
  node: string;
  machine: { cpus: number; model: string; load_average: number[] };
  interval: { watch_interval_seconds: number; aws_next_tick_delay_seconds: number; steps_per_hour_at_interval: number };
  limits: typeof PROVIDER_LIMITS;
  goals: typeof GOALS;
  ton: TonReport;
  stellar: StellarReport;
  cost: CostReport;
  cold_load: Awaited<ReturnType<typeof measureColdLoad>>;
  verdicts: Record<string, boolean>;
}

export async function measureTonStellar(): Promise<TonStellarReport> {
  // Cold load first, before DynamoDB Local's JVM competes for the cores.
  progress('cold load...');
  const coldLoad = await measureColdLoad(7);
  const ton = await measureTon({ minutes: 3, detectionPayments: 50, paymentsPerPeriod: 6 });
  const stellar = await measureStellar({ minutes: 3, detectionPayments: 50, detectionOps: 400 });
  const { LOCAL_AWS_ENV, startDynamoDbLocal } = await import('#infra/local/dynamodb');
  Object.assign(process.env, LOCAL_AWS_ENV);
  progress('cost (DynamoDB Local)...');
  // Run from bench/run.ts, its DynamoDB Local (DYNAMODB_ENDPOINT) is used; alone, one of its own.
  const given = process.env.DYNAMODB_ENDPOINT;
  const dynamodb = given ? undefined : await startDynamoDbLocal();
  let cost: CostReport;
  try {
    cost = await measureCost(given ?? dynamodb!.endpoint);
  } finally {
    await dynamodb?.stop();
  }
  const load = (what: string) => coldLoad.bundles.find((b) => b.what === what)!.load_ms.median;
  const verdicts = {
    ton_requests_flat: ton.flat_ratio <= GOALS.flat_ratio_max,
    stellar_requests_flat: stellar.by_traffic.every((t) => t.flat_ratio <= GOALS.flat_ratio_max),
    // Paced 1.1 s apart without a key (AWS), 0.11 s with one: the busiest second measured without.
    ton_within_1_per_second_without_key: ton.paced.max_per_second <= PROVIDER_LIMITS.toncenter_per_second.no_key,
    ...Object.fromEntries(
      stellar.by_traffic.map((t) => [`stellar_within_3600_per_hour_at_${t.ops_per_ledger}_ops`, t.requests.every((r) => r.requests_per_hour_at_interval <= PROVIDER_LIMITS.horizon_public_per_hour)]),
    ),
    ton_detection_p50_under_10s_without_key: ton.paced.detection_ms.p50 < GOALS.detection_p50_ms_max,
    ton_detection_p50_under_10s_with_key: ton.paced_with_key.detection_ms.p50 < GOALS.detection_p50_ms_max,
    stellar_detection_p50_under_10s: stellar.detection_ms.p50 < GOALS.detection_p50_ms_max,
    ...Object.fromEntries(cost.chains.map((c) => [`under $1 a month: ${c.variant}`, c.usd_per_month.total < GOALS.usd_per_chain_month_max])),
    ...Object.fromEntries(
      coldLoad.bundles.filter((b) => !b.what.startsWith('an empty') && !b.what.endsWith('without @ton/core')).map((b) => [`load_under_100ms: ${b.what}`, load(b.what) < GOALS.cold_load_ms_max]),
    ),
  };
  return {
    generated_at: new Date().toISOString(),
    node: process.version,
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', load_average: loadavg().map((n) => round(n)) },
    interval: { watch_interval_seconds: INTERVAL_S, aws_next_tick_delay_seconds: AWS_DELAY_S, steps_per_hour_at_interval: STEPS_PER_HOUR_AT_INTERVAL },
    limits: PROVIDER_LIMITS,
    goals: GOALS,
    ton,
    stellar,
    cost,
    cold_load: coldLoad,
    verdicts,
  };
}

if (process.env.BENCH_TON_STELLAR_COST_JOB) {
  const result = await costJob(JSON.parse(process.env.BENCH_TON_STELLAR_COST_JOB) as CostJob);
  // The SDK clients' keep-alive sockets would hold the process open.
  process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measureTonStellar()));
}
