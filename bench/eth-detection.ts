/**
 * EVM detection latency on the local devnet, end to end as a user sees it: `npm run devnet`
 * (an Ethereum node mining a block every DEVNET_BLOCK_MS and an Arbitrum one every
 * DEVNET_ARBITRUM_BLOCK_MS, the service with one in-process watcher per network polling every
 * WATCH_INTERVAL_SECONDS) in its own process, real signed payments from the buyer on each
 * network, and the merchant's callback server here.
 *
 * - pending: broadcast (the node accepted the transaction) -> the PENDING callback received.
 *   ETH is seen in the node's pending block; a token transfer in its first block.
 * - paid: the confirming block (inclusion + confirmations - 1) first seen by polling the node
 *   every 20 ms -> the PAID callback received.
 *
 * Run alone: `npx tsx bench/eth-detection.ts` (prints JSON last), or in `npm run bench`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Address, parseEther, parseUnits } from 'viem';
import { buyer, devnetClients, sendEth, sendToken, waitFor } from '#infra/devnet/chain';
import { devnetNetworkOf, readDevnetState } from '#infra/devnet/state';
import { decimalFromNumber, formatDecimal } from '#shared/domain/money';
import { REPO_ROOT } from './child';
import { type LatencyFigures, summarize } from './stats';

export interface EthDetectionReport {
  samples_per_currency: number;
  block_ms: number;
  /** The Arbitrum devnet's block time (ETH_ARB, USDT_ARB). */
  arbitrum_block_ms: number;
  watch_interval_seconds: number;
  confirmations: number;
  /** Broadcast -> PENDING callback, ms, per pay currency. */
  pending_ms: Record<string, LatencyFigures>;
  /** Confirming block first seen -> PAID callback, ms, per pay currency. */
  paid_ms: Record<string, LatencyFigures>;
  /**
   * Orders that went from NEW straight to PAID (the watcher first saw the payment with all its
   * confirmations, e.g. a step slowed down by a loaded machine): no PENDING to time, per currency.
   */
  pending_skipped: Record<string, number>;
  /** Orders whose PAID callback never came within the wait (should be 0), with the statuses they got. */
  missing: number;
  missing_statuses: string[][];
}

export interface EthDetectionOptions {
  samples: number;
  blockMs: number;
  arbitrumBlockMs: number;
  watchIntervalSeconds: number;
  confirmations: number;
}

const CURRENCIES = ['ETH', 'USDT_ERC20', 'ETH_ARB', 'USDT_ARB'] as const;

/** Starts the devnet as `npm run devnet` does; resolves once it printed its API and demo token. */
function startDevnet(dataDir: string, options: EthDetectionOptions) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/devnet/start.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: '0',
      DEVNET_PORT: '0',
      DEVNET_ARBITRUM_PORT: '0',
      DATA_DIR: dataDir,
      DEVNET_BLOCK_MS: String(options.blockMs),
      DEVNET_ARBITRUM_BLOCK_MS: String(options.arbitrumBlockMs),
      WATCH_INTERVAL_SECONDS: String(options.watchIntervalSeconds),
      ...Object.fromEntries(CURRENCIES.map((code) => [`${code}_CONFIRMATIONS`, String(options.confirmations)])),
      CALLBACK_ALLOW_LOOPBACK: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const ready = new Promise<{ url: string; token: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`devnet did not start:\n${output}`)), 180_000);
    const check = () => {
      const url = /API:\s+(http:\/\/\S+)/.exec(output)?.[1];
      const token = /Demo API token: (\S+)/.exec(output)?.[1];
      if (url && token && output.includes("Pay an order's invoice")) {
        clearTimeout(timer);
        resolve({ url, token });
      }
    };
    child.stdout.on('data', (chunk: Buffer) => ((output += chunk.toString()), check()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`devnet exited (${code}):\n${output}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid!, 'SIGINT');
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
  };
  return { ready, stop };
}

export async function measureEthDetection(options: EthDetectionOptions): Promise<EthDetectionReport> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-devnet-'));
  const devnet = startDevnet(dataDir, options);
  // Callback receipts: order id -> status -> time received.
  const received = new Map<string, Map<string, number>>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const at = Date.now();
      try {
        const { order_id, status } = JSON.parse(body) as { order_id: string; status: string };
        if (!received.has(order_id)) received.set(order_id, new Map());
        if (!received.get(order_id)!.has(status)) received.get(order_id)!.set(status, at);
      } catch {
        // Not a callback: ignored.
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":200}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
  let watching = true;
  try {
    const { url, token } = await devnet.ready;
    const state = readDevnetState(dataDir);
    const networks = new Map(
      CURRENCIES.map((currency) => {
        const { network, native } = devnetNetworkOf(state, currency)!;
        return [currency, { network, native, clients: devnetClients(network.rpcUrl, network.chainId) }];
      }),
    );

    // When each block of each network was first seen, polled as tightly as a client reasonably can.
    const firstSeen = new Map<string, Map<number, number>>();
    const blockWatch = Promise.all(
      [...new Map([...networks.values()].map((n) => [n.network.chain, n])).values()].map(async ({ network, clients }) => {
        const seen = new Map<number, number>();
        firstSeen.set(network.chain, seen);
        while (watching) {
          const height = Number(await clients.public.getBlockNumber({ cacheTime: 0 }));
          if (!seen.has(height)) seen.set(height, Date.now());
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }),
    );

    const samples: { currency: string; chain: string; orderId: string; sentAt: number; height: number }[] = [];
    for (let i = 0; i < options.samples; i += 1) {
      for (const currency of CURRENCIES) {
        const created = await fetch(`${url}/v1/orders`, {
          method: 'POST',
          headers: { token, 'content-type': 'application/json' },
          body: JSON.stringify({ price_amount: 9.99, pay_currency: currency, callback_url: callbackUrl }),
        });
        const orderId = ((await created.json()) as { order: { order_id: string } }).order.order_id;
        const order = (await (await fetch(`${url}/v1/orders/${orderId}`, { headers: { token } })).json()) as {
          invoice: { payment_address: Address; pay_amount: number };
        };
        const to = order.invoice.payment_address;
        const amount = formatDecimal(decimalFromNumber(order.invoice.pay_amount));
        const { network, native, clients } = networks.get(currency)!;
        const hash = native
          ? await sendEth(clients, buyer, to, parseEther(amount))
          : await sendToken(clients, buyer, network.tokens[currency]!.address, to, parseUnits(amount, network.tokens[currency]!.decimals));
        const sentAt = Date.now();
        const receipt = await waitFor(clients, hash);
        samples.push({ currency, chain: network.chain, orderId, sentAt, height: Number(receipt.blockNumber) });
      }
    }

    // Wait for every PAID callback (confirmations blocks, plus the pipeline), bounded.
    const deadline = Date.now() + 60_000 + options.confirmations * Math.max(options.blockMs, options.arbitrumBlockMs) * 2;
    while (Date.now() < deadline && samples.some((s) => !received.get(s.orderId)?.has('PAID'))) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    watching = false;
    await blockWatch;

    const pending: Record<string, number[]> = {};
    const paid: Record<string, number[]> = {};
    let missing = 0;
    const missingStatuses: string[][] = [];
    const skipped: Record<string, number> = {};
    for (const sample of samples) {
      const got = received.get(sample.orderId);
      const confirmingSeen = firstSeen.get(sample.chain)?.get(sample.height + options.confirmations - 1);
      if (!got?.has('PAID') || confirmingSeen === undefined) {
        missing += 1;
        missingStatuses.push([sample.currency, ...(got ? [...got.keys()] : [])]);
        continue;
      }
      if (got.has('PENDING')) (pending[sample.currency] ??= []).push(got.get('PENDING')! - sample.sentAt);
      else skipped[sample.currency] = (skipped[sample.currency] ?? 0) + 1;
      (paid[sample.currency] ??= []).push(got.get('PAID')! - confirmingSeen);
    }
    const figures = (by: Record<string, number[]>) => Object.fromEntries(Object.entries(by).map(([currency, values]) => [currency, summarize(values)]));
    return {
      samples_per_currency: options.samples,
      block_ms: options.blockMs,
      arbitrum_block_ms: options.arbitrumBlockMs,
      watch_interval_seconds: options.watchIntervalSeconds,
      confirmations: options.confirmations,
      pending_ms: figures(pending),
      paid_ms: figures(paid),
      pending_skipped: skipped,
      missing,
      missing_statuses: missingStatuses,
    };
  } finally {
    watching = false;
    receiver.closeAllConnections();
    receiver.close();
    await devnet.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = await measureEthDetection({ samples: 10, blockMs: 1000, arbitrumBlockMs: 250, watchIntervalSeconds: 1, confirmations: 3 });
  console.log(JSON.stringify(report));
}
