/**
 * Provider requests of the Solana watcher (issue 28) against the public endpoint's budget:
 * about 100 requests per 10 s per IP, 40 per method (docs/operator-guide.md, "Providers and their plans").
 *
 * The source (shared/watchers/sources/solana.ts) runs against the local Solana cluster
 * (tests/support/solana-server.ts: real signed transactions, getSignaturesForAddress with
 * until/before/limit as a node), stepped as the watcher's loop does at the default
 * WATCH_INTERVAL_SECONDS (10): a step every 10 s on a clock the bench moves (cluster and
 * watcher alike), again at once when the step moved its cursor (the watermark). Each scenario
 * has `open` watched references spread over `merchants` wallets, a cold start first (not
 * counted: it reads back to the invoices' creation once), then `minutes` minutes with
 * `ours` Solana Pay payments of open invoices and `other` transfers to the merchants that name
 * no invoice, per minute, each finalized before the next step. No table: the watch list is
 * given to the source, so only provider requests are counted.
 *
 * - requests_per_minute and by_method: over the measured minutes, per minute;
 * - max_per_10s / max_per_method_per_10s: the most in any 10 s of the bench's clock, against
 *   the limits;
 * - step_ms: the wall time of a step on this machine; detection at the interval is about half
 *   the interval plus a step (a payment finalized at a random moment waits for the next step).
 *
 * Run alone: `npx tsx bench/solana-requests.ts` (prints one JSON line).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { base58 } from '@scure/base';
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit';
import { SolanaTransfers } from '#shared/watchers/sources/solana';
import { MAINNET_BETA_GENESIS_HASH, SolanaTestServer, solanaPayTransfer } from '../tests/support/solana-server';
import { median, round2 } from './stats';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const INTERVAL_S = 10;
/** The public mainnet endpoint's rate (per IP): requests per 10 s, and per method. */
export const PUBLIC_SOLANA_LIMITS = { per_10s: 100, per_method_per_10s: 40 };

export interface SolanaScenario {
  merchants: number;
  open_invoices: number;
  requests_per_minute: number;
  by_method: Record<string, number>;
  max_per_10s: number;
  max_per_method_per_10s: number;
  within_public_limits: boolean;
  /** Payments reported over the measured minutes (each of `ours` once). */
  reported: number;
  step_ms_p50: number;
}

export interface SolanaRequestsReport {
  interval_seconds: number;
  minutes: number;
  transfers_per_minute: { ours: number; other: number };
  limits: typeof PUBLIC_SOLANA_LIMITS;
  scenarios: SolanaScenario[];
  /** requests_per_minute at the most open invoices over the fewest, per merchant count (the goal: at most 1.5). */
  growth: Record<string, number>;
  /** Half the interval plus a step's p50 at the most invoices: a payment finalized at a random moment, to its report. */
  detection_p50_ms_estimate: number;
}

export interface SolanaRequestsOptions {
  /** Watched references per scenario, for one merchant and for `merchants` merchants. */
  open?: { one: number[]; many: number[] };
  merchants?: number;
  minutes?: number;
  ours?: number;
  other?: number;
}

async function scenario(merchants: number, open: number, minutes: number, perMinute: { ours: number; other: number }): Promise<SolanaScenario> {
  const cluster = await new SolanaTestServer(MAINNET_BETA_GENESIS_HASH).start();
  let now = Date.now();
  cluster.clock = () => now;
  try {
    cluster.mint(USDC, 6);
    const buyer = await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(32).fill(7));
    await cluster.tokenAccount(buyer.address, USDC, 10n ** 15n);
    const wallets = Array.from({ length: merchants }, () => base58.encode(randomBytes(32)));
    for (const wallet of wallets) await cluster.tokenAccount(wallet, USDC);
    const since = new Date(now - 60_000).toISOString();
    const watched = Array.from({ length: open }, (_, i) => ({ address: base58.encode(randomBytes(32)), currency: 'USDC_SOL', since, recipient: wallets[i % merchants]! }));
    const source = new SolanaTransfers({
      url: cluster.url,
      tokens: [{ currency: 'USDC_SOL', mint: USDC, decimals: 6 }],
      genesisHash: MAINNET_BETA_GENESIS_HASH,
      clock: () => new Date(now),
      watched: async () => watched,
    });

    let cursor: string | undefined;
    const step = async () => {
      const started = performance.now();
      const { transfers, next } = await source.after(cursor, 100);
      source.booked();
      const moved = next !== cursor;
      cursor = next;
      return { transfers: transfers.length, ms: performance.now() - started, moved };
    };
    await step(); // the cold start
    const counted = () => new Map(cluster.requests);
    const start = counted();
    const windows: Map<string, number>[] = [];
    const stepMs: number[] = [];
    let reported = 0;
    const steps = (minutes * 60) / INTERVAL_S;
    const paysPerStep = (perMinute.ours * INTERVAL_S) / 60;
    const otherPerStep = (perMinute.other * INTERVAL_S) / 60;
    // Each transfer's amount differs: a wallet's two identical transfers would be one transaction (one signature).
    let sent = 0n;
    let owedOurs = 0;
    let owedOther = 0;
    for (let i = 0; i < steps; i += 1) {
      now += INTERVAL_S * 1000;
      for (owedOurs += paysPerStep; owedOurs >= 1; owedOurs -= 1) {
        const invoice = watched[Math.floor(Math.random() * open)]!;
        cluster.send(await solanaPayTransfer(buyer, invoice.recipient, 1_000_000n + (sent += 1n), invoice.address, USDC));
      }
      for (owedOther += otherPerStep; owedOther >= 1; owedOther -= 1) {
        cluster.send(await solanaPayTransfer(buyer, wallets[Math.floor(Math.random() * merchants)]!, 5n + (sent += 1n), base58.encode(randomBytes(32)), USDC));
      }
      cluster.finalize();
      const before = counted();
      // The loop steps again at once while a step moves its cursor: the same 10 s.
      for (let again = true; again; ) {
        const done = await step();
        reported += done.transfers;
        stepMs.push(done.ms);
        again = done.moved;
      }
      windows.push(new Map([...cluster.requests].map(([method, count]) => [method, count - (before.get(method) ?? 0)])));
    }
    const byMethod: Record<string, number> = {};
    for (const [method, count] of cluster.requests) if (count > (start.get(method) ?? 0)) byMethod[method] = round2((count - (start.get(method) ?? 0)) / minutes);
    const total = (window: Map<string, number>) => [...window.values()].reduce((a, b) => a + b, 0);
    const maxPer10s = Math.max(...windows.map(total));
    const maxPerMethod = Math.max(...windows.flatMap((window) => [...window.values()]));
    return {
      merchants,
      open_invoices: open,
      requests_per_minute: round2(Object.values(byMethod).reduce((a, b) => a + b, 0)),
      by_method: byMethod,
      max_per_10s: maxPer10s,
      max_per_method_per_10s: maxPerMethod,
      within_public_limits: maxPer10s <= PUBLIC_SOLANA_LIMITS.per_10s && maxPerMethod <= PUBLIC_SOLANA_LIMITS.per_method_per_10s,
      reported,
      step_ms_p50: round2(median(stepMs)),
    };
  } finally {
    await cluster.close();
  }
}

/** The Solana watcher's provider requests a minute at 2 to 1,000 open invoices, for one merchant and for several. */
export async function measureSolanaRequests(options: SolanaRequestsOptions = {}): Promise<SolanaRequestsReport> {
  const { open = { one: [2, 100, 1000], many: [10, 100, 1000] }, merchants = 10, minutes = 3, ours = 6, other = 2 } = options;
  const scenarios: SolanaScenario[] = [];
  for (const count of open.one) scenarios.push(await scenario(1, count, minutes, { ours, other }));
  for (const count of open.many) scenarios.push(await scenario(merchants, count, minutes, { ours, other }));
  const growth: Record<string, number> = {};
  for (const group of [1, merchants]) {
    const of = scenarios.filter((entry) => entry.merchants === group);
    growth[`${group}_merchant${group === 1 ? '' : 's'}`] = round2(of.at(-1)!.requests_per_minute / of[0]!.requests_per_minute);
  }
  return {
    interval_seconds: INTERVAL_S,
    minutes,
    transfers_per_minute: { ours, other },
    limits: PUBLIC_SOLANA_LIMITS,
    scenarios,
    growth,
    detection_p50_ms_estimate: round2((INTERVAL_S * 1000) / 2 + Math.max(...scenarios.map((entry) => entry.step_ms_p50))),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measureSolanaRequests()));
}
