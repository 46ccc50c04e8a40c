/**
 * Provider requests of the TRON watcher (issue 28): does a step's cost grow with open invoices,
 * and does a day fit a free TronGrid key (100,000 requests)? Against the local TronGrid
 * (tests/support/trongrid-server.ts: real signed transactions, java-tron's eth_getLogs) with a
 * chain like mainnet's: a block every 3 s, solidified 19 blocks behind the head, other people's
 * USDT transfers in every block and a few paying our invoices.
 *
 * - by_open_invoices: the TRON source (shared/watchers/sources/tron.ts) stepped every
 *   WATCH_INTERVAL_SECONDS (10) of simulated chain time, its cursor carried from step to step as
 *   the indexed watcher does, with 2, 100 and 1,000 open invoices on its watch list: provider
 *   requests a minute by kind, and a day's total against the free quota. The chain's time is
 *   simulated (blocks are made at their 3 s times without waiting), the requests are real HTTP.
 * - bytes_per_step: the trade-off of matching recipients here: one step's eth_getLogs of the
 *   contract's every Transfer (what the watcher asks), against the same range filtered on the
 *   1,000 recipients in topic 2 (a request that grows with the watch list).
 * - detection_ms: in real time, at the 10 s interval with 3 s blocks, from the moment a
 *   payment's block is solidified to the step that reports it (booking it adds one DynamoDB
 *   transaction: bench/network-detection.ts measures that path).
 *
 * Run alone: `npx tsx bench/tron-requests.ts` (prints one JSON line).
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { tronAddressOfBytes, tronHex } from '#shared/payments/addresses/tron';
import { TronTransfers } from '#shared/watchers/sources/tron';
import type { WatchEntry } from '#shared/watchers/sources/per-address';
import { pollChain } from '#shared/watchers/watch-loop';
import { signedTrc20Transfer, TronGridTestServer } from '../tests/support/trongrid-server';
import { summarize, type LatencyFigures } from './stats';

const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const BUYER = '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const BLOCK_MS = 3000;
const SOLID_LAG_BLOCKS = 19;
const FREE_DAILY_QUOTA = 100_000;

export interface TronRequestsOptions {
  /** Open invoices of each measurement. Default 2, 100, 1000. */
  openInvoices?: number[];
  /** Simulated minutes of chain per measurement. Default 5. */
  minutes?: number;
  /** The watch interval, s. Default 10 (WATCH_INTERVAL_SECONDS's default). */
  intervalSeconds?: number;
  /** Other people's USDT transfers in each block (mainnet has ~75). Default 25. */
  transfersPerBlock?: number;
  /** Payments to our invoices a minute (each costs one receipt). Default 2. */
  paymentsPerMinute?: number;
  /** Real-time detection samples; 0 skips them (~12 s each). Default 5. */
  latencySamples?: number;
}

export interface TronRequestsReport {
  watch_interval_seconds: number;
  block_seconds: number;
  transfers_per_block: number;
  payments_to_us_per_minute: number;
  simulated_minutes: number;
  by_open_invoices: Record<string, { requests_per_minute: number; by_kind: Record<string, number>; requests_per_day: number; share_of_free_quota: number }>;
  /** The most requests a minute over the fewest, across the open-invoice counts (1 = flat). */
  flat_ratio: number;
  /** One step's range (its new solid blocks): bytes sent and received, all Transfers vs filtered on 1,000 recipients. */
  bytes_per_step: { blocks: number; all_transfers: { request: number; response: number }; filtered_on_1000_recipients: { request: number; response: number } };
  /** A payment's block solidified -> the step reporting it, ms (real time). */
  detection_ms?: LatencyFigures;
}

const account = () => tronAddressOfBytes(randomBytes(20));
const word = (address: string) => `0x${'0'.repeat(24)}${tronHex(address).slice(2)}`;
const round = (value: number) => Math.round(value * 100) / 100;

/** A local TronGrid whose head times are its blocks' own, and a maker of mainnet-like blocks. */
async function chain(transfersPerBlock: number) {
  const server = await new TronGridTestServer([{ address: USDT, symbol: 'USDT', name: 'Tether USD', decimals: 6 }]).start();
  server.solidHeadAgeMs = undefined;
  const mine = (time: number, payTo?: string) => {
    const txs = Array.from({ length: transfersPerBlock }, () => signedTrc20Transfer(BUYER, USDT, account(), 1_000_000n));
    if (payTo) txs.push(signedTrc20Transfer(BUYER, USDT, payTo, 30_000_000n));
    const [first] = server.sendBlock(txs, time);
    server.solidify(server.height - SOLID_LAG_BLOCKS);
    return first!.block;
  };
  return { server, mine };
}

/** Open invoices watched from `now` for an hour (the late window matched the same way, at no cost). */
const targets = (count: number, now: number): (WatchEntry & { open_until: string })[] =>
  Array.from({ length: count }, () => ({ address: account(), currency: 'USDT_TRC20', since: new Date(now - 60_000).toISOString(), open_until: new Date(now + 3_600_000).toISOString() }));

async function requestsAt(openInvoices: number, options: Required<TronRequestsOptions>) {
  const { server, mine } = await chain(options.transfersPerBlock);
  try {
    let now = server.timeOf(server.height);
    const watched = targets(openInvoices, now);
    const source = new TronTransfers({ url: server.url, contract: USDT, currency: 'USDT_TRC20', decimals: 6, watched: async () => watched, clock: () => new Date(now) });
    // The first step finds where to start (a block look-up): not part of a minute's cost.
    let { next: cursor } = await source.after(undefined, 100);
    const before = new Map(server.requests);
    const blocksPerPayment = Math.max(1, Math.round(60_000 / BLOCK_MS / options.paymentsPerMinute));
    let blocks = 0;
    let found = 0;
    const steps = Math.round((options.minutes * 60) / options.intervalSeconds);
    for (let step = 0; step < steps; step += 1) {
      const until = now + options.intervalSeconds * 1000;
      for (let time = server.timeOf(server.height) + BLOCK_MS; time <= until; time += BLOCK_MS) {
        blocks += 1;
        mine(time, blocks % blocksPerPayment === 0 ? watched[blocks % watched.length]!.address : undefined);
      }
      now = until;
      const result = await source.after(cursor, 100);
      if (result.more) throw new Error('the watcher fell behind the simulated chain');
      found += result.transfers.length;
      cursor = result.next;
    }
    const byKind = Object.fromEntries([...server.requests].map(([kind, n]) => [kind, round((n - (before.get(kind) ?? 0)) / options.minutes)]).filter(([, n]) => (n as number) > 0));
    const perMinute = round(Object.values(byKind).reduce((sum: number, n) => sum + (n as number), 0));
    const perDay = Math.round(perMinute * 1440);
    if (found === 0) throw new Error('no payment to our invoices was found');
    return { requests_per_minute: perMinute, by_kind: byKind, requests_per_day: perDay, share_of_free_quota: round(perDay / FREE_DAILY_QUOTA) };
  } finally {
    await server.close();
  }
}

/** One step's range asked both ways: the contract's every Transfer, and only those to the 1,000 recipients (topic 2). */
async function bytesPerStep(options: Required<TronRequestsOptions>) {
  const { server, mine } = await chain(options.transfersPerBlock);
  try {
    const recipients = targets(1000, Date.now()).map((target) => target.address);
    const blocks = Math.ceil((options.intervalSeconds * 1000) / BLOCK_MS);
    for (let i = 0; i < blocks + SOLID_LAG_BLOCKS; i += 1) mine(server.timeOf(server.height) + BLOCK_MS, i === 0 ? recipients[0] : undefined);
    const to = server.solidHeight;
    const ask = async (topics: unknown[]) => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getLogs',
        params: [{ fromBlock: `0x${(to - blocks + 1).toString(16)}`, toBlock: `0x${to.toString(16)}`, address: `0x${tronHex(USDT).slice(2)}`, topics }],
      });
      const response = await fetch(`${server.url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { request: Buffer.byteLength(body), response: Buffer.byteLength(await response.text()) };
    };
    return { blocks, all_transfers: await ask([TRANSFER_TOPIC]), filtered_on_1000_recipients: await ask([TRANSFER_TOPIC, null, recipients.map(word)]) };
  } finally {
    await server.close();
  }
}

/** Real time: blocks every 3 s (solid one block behind), the watcher every `intervalSeconds`; a payment's solidification -> its report. */
async function detection(samples: number, options: Required<TronRequestsOptions>): Promise<LatencyFigures> {
  const { server } = await chain(options.transfersPerBlock);
  const watched = targets(10, Date.now());
  const source = new TronTransfers({ url: server.url, contract: USDT, currency: 'USDT_TRC20', decimals: 6, watched: async () => watched });
  const solidAt = new Map<string, number>();
  const pending = new Map<number, string>();
  const latencies: number[] = [];
  const controller = new AbortController();
  let cursor: string | undefined;
  const stepper = {
    step: async () => {
      const result = await source.after(cursor, 100);
      cursor = result.next;
      for (const transfer of result.transfers) {
        const at = solidAt.get(transfer.txid);
        if (at !== undefined && latencies.length < samples) latencies.push(Date.now() - at);
      }
      if (latencies.length >= samples) controller.abort();
      return { behind: result.more ? 1 : 0, yielded: false };
    },
  };
  let blocks = 0;
  const producer = setInterval(() => {
    blocks += 1;
    const txs = Array.from({ length: options.transfersPerBlock }, () => signedTrc20Transfer(BUYER, USDT, account(), 1_000_000n));
    // A payment every 4th block (12 s): a random phase against the 10 s poll.
    const pay = blocks % 4 === 0 ? signedTrc20Transfer(BUYER, USDT, watched[blocks % watched.length]!.address, 30_000_000n) : undefined;
    const [first] = server.sendBlock(pay ? [...txs, pay] : txs);
    if (pay) pending.set(first!.block, pay.txID);
    const solid = server.height - 1;
    server.solidify(solid);
    for (const [block, txid] of pending) {
      if (block > solid) continue;
      solidAt.set(txid, Date.now());
      pending.delete(block);
    }
  }, BLOCK_MS);
  const timeout = setTimeout(() => controller.abort(), (samples + 3) * 4 * BLOCK_MS + 30_000);
  try {
    await pollChain(stepper, { intervalMs: options.intervalSeconds * 1000, signal: controller.signal });
  } finally {
    clearInterval(producer);
    clearTimeout(timeout);
    await server.close();
  }
  return summarize(latencies);
}

export async function measureTronRequests(options: TronRequestsOptions = {}): Promise<TronRequestsReport> {
  const settings: Required<TronRequestsOptions> = {
    openInvoices: options.openInvoices ?? [2, 100, 1000],
    minutes: options.minutes ?? 5,
    intervalSeconds: options.intervalSeconds ?? 10,
    transfersPerBlock: options.transfersPerBlock ?? 25,
    paymentsPerMinute: options.paymentsPerMinute ?? 2,
    latencySamples: options.latencySamples ?? 5,
  };
  const byOpen: TronRequestsReport['by_open_invoices'] = {};
  for (const count of settings.openInvoices) byOpen[String(count)] = await requestsAt(count, settings);
  const perMinute = Object.values(byOpen).map((figures) => figures.requests_per_minute);
  return {
    watch_interval_seconds: settings.intervalSeconds,
    block_seconds: BLOCK_MS / 1000,
    transfers_per_block: settings.transfersPerBlock,
    payments_to_us_per_minute: settings.paymentsPerMinute,
    simulated_minutes: settings.minutes,
    by_open_invoices: byOpen,
    flat_ratio: round(Math.max(...perMinute) / Math.min(...perMinute)),
    bytes_per_step: await bytesPerStep(settings),
    ...(settings.latencySamples > 0 ? { detection_ms: await detection(settings.latencySamples, settings) } : {}),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measureTronRequests()));
}
