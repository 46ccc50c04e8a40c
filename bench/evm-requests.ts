/**
 * Provider requests a minute of each EVM network's watcher (issue 28): the real BlockWatcher
 * and EthereumBlockSource, stepped as the watch loop steps them (every WATCH_INTERVAL_SECONDS,
 * 10 s, and again at once while behind), against a synthetic network (bench/evm-chain-server.ts)
 * whose clock the bench moves, with the real DynamoDB Local for the cursor and the open-address
 * list. Per network, at 2 and at 1,000 open invoices (each paid once in the hour, so 1,000
 * invoices bring about 17 payments a minute, half of them in the coin where it is a pay
 * currency), for:
 *
 * - before: one block at a time (the source without its range read: `block(n)` then a batch of
 *   the block's logs by hash and the receipts of its value-paying transactions, at most
 *   10 blocks a step), as main reads them;
 * - after: by range (`blocks(from, to)`: the range's blocks and one eth_getLogs in one batch,
 *   receipts only for native payments to open addresses).
 *
 * HTTP requests and JSON-RPC calls are counted apart: providers limit requests a second and
 * bill calls (compute units per call, batched or not). `round_trips_per_step` is the
 * sequential requests of one interval's steps: at a provider's round trip time it is how long
 * a step takes, what the detection latency adds to the interval.
 *
 * Block times are the networks' (shared/domain/networks.ts: ETH 12 s, Arbitrum 0.25 s, Base
 * 2 s, Polygon 2 s, BNB Smart Chain 0.75 s since its 2025 Maxwell upgrade, Celo 1 s as an L2);
 * traffic per block is an assumption stated in the output (`traffic`).
 *
 * Run alone: `npx tsx bench/evm-requests.ts` (prints one JSON line); bench/run.ts can call
 * {@link measureEvmRequests} with the table already set up.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { currency } from '#shared/domain/currencies';
import { EVM_NETWORKS, type EvmNetwork } from '#shared/domain/networks';
import { toChecksumAddress } from '#shared/payments/addresses/eip55';
import { BLOCK_CHAIN_ITEMS, watchAddress } from '#shared/store/watch-list';
import { BlockWatcher } from '#shared/watchers/block-watcher';
import { EthereumBlockSource } from '#shared/watchers/sources/ethereum/source';
import type { BlockSource } from '#shared/watchers/sources/port';
import { type SimPayment, startEvmChainServer, type Traffic } from './evm-chain-server';

/** Traffic assumed per block (transactions, value-paying ones, Transfer logs of the watched contracts), from public explorers' daily counts (2026). */
export const EVM_TRAFFIC: Readonly<Record<string, Omit<Traffic, 'blockMs'>>> = {
  ETH: { transactions: 180, valueTransactions: 60, tokenLogs: 60 },
  ARBITRUM: { transactions: 10, valueTransactions: 1.5, tokenLogs: 2 },
  BASE: { transactions: 200, valueTransactions: 20, tokenLogs: 20 },
  POLYGON: { transactions: 80, valueTransactions: 10, tokenLogs: 15 },
  BSC: { transactions: 100, valueTransactions: 15, tokenLogs: 25 },
  CELO: { transactions: 15, valueTransactions: 2, tokenLogs: 5 },
};

export interface EvmRequestFigures {
  http_per_minute: number;
  calls_per_minute: number;
  /** Answer bytes a minute (MB): ranges read every log of the watched contracts, not only ours. */
  mb_per_minute: number;
  /** Sequential HTTP requests of one interval's steps (a step's time at the provider's round trip). */
  round_trips_per_step: number;
  calls_by_method_per_minute: Record<string, number>;
}

export interface EvmNetworkRequests {
  chain: string;
  block_seconds: number;
  traffic: Omit<Traffic, 'blockMs'>;
  /** Keys: `before_2`, `before_1000`, `after_2`, `after_1000` (path and open invoices); `after_1000_range_5`: ranges capped at 5 blocks (a free plan). */
  runs: Record<string, EvmRequestFigures>;
}

export interface EvmRequestsReport {
  watch_interval_seconds: number;
  minutes: number;
  networks: EvmNetworkRequests[];
}

/** A source without its range read: the block-by-block path main runs. */
function blockByBlock(source: EthereumBlockSource): BlockSource {
  return {
    chain: source.chain,
    tip: () => source.tip(),
    blockHash: (height) => source.blockHash(height),
    block: (height) => source.block(height),
    mempool: (known) => source.mempool(known),
    health: () => source.health(),
  };
}

const round = (value: number) => Math.round(value * 100) / 100;

/** One network's watcher over `minutes` of its chain with `invoices` open addresses (written here). */
async function run(network: EvmNetwork, path: 'before' | 'after', invoices: readonly { currency: string; address: string }[], minutes: number, intervalMs: number, blockRange?: number) {
  const traffic: Traffic = { blockMs: network.blockSeconds * 1000, ...EVM_TRAFFIC[network.chain]! };
  const contracts = Object.entries(network.tokens).map(([code, contract]) => ({ code, contract: contract.toLowerCase() }));
  // Each open invoice is paid once in the hour: payment k in the block at k hours / invoices.
  const blocksPerPayment = 3_600_000 / traffic.blockMs / Math.max(1, invoices.length);
  const paymentsAt = (height: number): SimPayment[] => {
    const payments: SimPayment[] = [];
    for (let k = Math.ceil(height / blocksPerPayment); k * blocksPerPayment < height + 1; k += 1) {
      const invoice = invoices[k % invoices.length]!;
      const token = contracts.find((c) => c.code === invoice.currency);
      payments.push({ contract: token?.contract, to: invoice.address });
    }
    return payments;
  };
  const server = await startEvmChainServer({
    chainId: network.chainId,
    traffic,
    decimals: Object.fromEntries(contracts.map((c) => [c.contract, currency(c.code).precision])),
    paymentsAt,
  });
  try {
    const source = new EthereumBlockSource({
      url: server.url,
      chain: network.chain,
      chainId: network.chainId,
      ...(network.native ? { native: network.native } : {}),
      ...(blockRange ? { blockRange } : {}),
      tokens: contracts.map((c) => ({ currency: c.code, contract: c.contract })),
    });
    const watcher = new BlockWatcher(path === 'after' ? source : blockByBlock(source), { cursorName: `${network.chain}-bench-${randomUUID()}` });
    server.now = 3_600_000; // an hour into the chain
    await watcher.step(); // the cursor starts at the tip; the chain check and decimals are read once
    server.reset();
    let roundTrips = 0;
    const intervals = (minutes * 60_000) / intervalMs;
    for (let i = 0; i < intervals; i += 1) {
      server.now += intervalMs;
      const before = server.counts.http;
      for (;;) {
        const report = await watcher.step();
        if (report.behind === 0 || report.yielded) break;
      }
      roundTrips += server.counts.http - before;
    }
    const { http, calls, bytes, byMethod } = server.counts;
    return {
      http_per_minute: round(http / minutes),
      calls_per_minute: round(calls / minutes),
      mb_per_minute: round(bytes / minutes / 1e6),
      round_trips_per_step: round(roundTrips / intervals),
      calls_by_method_per_minute: Object.fromEntries(Object.entries(byMethod).map(([method, count]) => [method, round(count / minutes)])),
    };
  } finally {
    await server.stop();
  }
}

/**
 * Requests a minute per EVM network, before and after, at 2 and at 1,000 open invoices. Needs
 * the table (TABLE_NAME, DYNAMODB_ENDPOINT) and the open lists begun long ago, as bench/run.ts sets them up.
 */
export async function measureEvmRequests(options: { minutes?: number; intervalSeconds?: number; chains?: readonly string[] } = {}): Promise<EvmRequestsReport> {
  const minutes = options.minutes ?? 2;
  const intervalMs = (options.intervalSeconds ?? 10) * 1000;
  const { openListsBeganLongAgo } = await import('../tests/support/watchers');
  await openListsBeganLongAgo();
  const networks: EvmNetworkRequests[] = [];
  for (const network of EVM_NETWORKS.filter((n) => !options.chains || options.chains.includes(n.chain))) {
    const currencies = [...(network.native ? [network.native] : []), ...Object.keys(network.tokens)];
    const invoices: { currency: string; address: string }[] = [];
    const until = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const open = async (count: number) => {
      while (invoices.length < count) {
        const invoice = { currency: currencies[invoices.length % currencies.length]!, address: toChecksumAddress(randomBytes(20)) };
        await watchAddress(BLOCK_CHAIN_ITEMS, { chain: network.chain, ...invoice, until });
        invoices.push(invoice);
      }
    };
    const runs: Record<string, EvmRequestFigures> = {};
    for (const count of [2, 1000]) {
      await open(count);
      for (const path of ['before', 'after'] as const) runs[`${path}_${count}`] = await run(network, path, invoices, minutes, intervalMs);
    }
    // A free plan's cap (QuickNode's: 5 blocks a range), configured (<NETWORK>_BLOCK_RANGE=5).
    runs.after_1000_range_5 = await run(network, 'after', invoices, minutes, intervalMs, 5);
    networks.push({ chain: network.chain, block_seconds: network.blockSeconds, traffic: EVM_TRAFFIC[network.chain]!, runs });
    process.stderr.write(`evm-requests: ${network.chain} done\n`);
  }
  return { watch_interval_seconds: intervalMs / 1000, minutes, networks };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { ensureTable, LOCAL_AWS_ENV, startDynamoDbLocal } = await import('#infra/local/dynamodb');
  Object.assign(process.env, LOCAL_AWS_ENV);
  const dynamodb = process.env.DYNAMODB_ENDPOINT ? undefined : await startDynamoDbLocal();
  try {
    if (dynamodb) {
      await ensureTable(dynamodb.endpoint, 'bench-evm');
      Object.assign(process.env, { TABLE_NAME: 'bench-evm', DYNAMODB_ENDPOINT: dynamodb.endpoint });
    }
    const chains = process.env.BENCH_EVM_CHAINS?.split(',');
    const minutes = process.env.BENCH_EVM_MINUTES ? Number(process.env.BENCH_EVM_MINUTES) : undefined;
    console.log(JSON.stringify(await measureEvmRequests({ ...(chains ? { chains } : {}), ...(minutes ? { minutes } : {}) })));
  } finally {
    await dynamodb?.stop();
  }
}
