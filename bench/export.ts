/**
 * The streamed orders export, locally (group `export` of bench/run.ts; run alone with
 * `node --import tsx bench/export.ts`, which starts its own DynamoDB Local). For each size
 * (BENCH_EXPORT_SIZES, default 20000,100000) a merchant gets that many orders (BatchWriteItem,
 * tests/support/seed-orders.ts), then one signed-in export through the local runtime, read by a
 * client that counts and discards: time to the first byte (the head and the CSV header line),
 * to the first order row, and to the end; rows and bytes; and the growth of this process's
 * RSS and heap over the export, sampled every 20 ms (server and client share the process, so a
 * buffered server would show as growth proportional to the file). Runs in a process of its own
 * (bench/child.ts) so the other groups' memory does not blur the figures.
 */
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { runChild } from './child';

export interface ExportRun {
  orders: number;
  rows: number;
  bytes: number;
  pages: number;
  seed_ms: number;
  first_byte_ms: number;
  first_row_ms: number;
  total_ms: number;
  rows_per_second: number;
  rss_growth_mb: number;
  heap_growth_mb: number;
  complete: boolean;
}

export interface ExportReport {
  runs: ExportRun[];
  page_size: number;
  note: string;
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function measure(sizes: number[]): Promise<ExportReport> {
  const { randomBytes } = await import('node:crypto');
  Object.assign(process.env, {
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    TOKEN_HMAC_KEY: process.env.TOKEN_HMAC_KEY ?? randomBytes(32).toString('hex'),
  });
  const { ROUTES } = await import('#shared/http/routes');
  const { createApiServer } = await import('#infra/local/http-adapter');
  const { apiFunctions } = await import('#infra/local/handlers');
  const { createMerchant } = await import('#shared/services/merchants');
  const { EXPORT_PAGE } = await import('#shared/services/portal/export');
  const { db } = await import('#shared/store/client');
  const { merchantOrdersPartition } = await import('#shared/store/keys');
  const { seedOrders } = await import('../tests/support/seed-orders');
  const { signedInUser } = await import('../tests/support/portal');

  const pages = new Map<string, number>();
  db().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { IndexName?: string; ExpressionAttributeValues?: Record<string, unknown> };
      const key = String(input.ExpressionAttributeValues?.[':pk'] ?? '');
      if (input.IndexName === 'GSI1') pages.set(key, (pages.get(key) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchExportPages' },
  );
  const server = createApiServer(ROUTES.map((route) => ({ ...route, load: apiFunctions[route.fn]! })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  // Before anything reads the portal's configuration (it is read once).
  process.env.PORTAL_ORIGIN = `http://localhost:${port}`;
  const runs: ExportRun[] = [];
  try {
    // Warm up (module load, DynamoDB Local's JIT) with a small export that is not counted.
    const warm = await createMerchant({ name: 'Export bench warm-up', sandbox: true });
    await seedOrders(warm.user_id, 1500, { prefix: 'warm', titleLength: 40 });
    const warmBrowser = (await signedInUser(baseUrl, process.env.PORTAL_ORIGIN, warm.user_id)).browser;
    await (await fetch(`${baseUrl}/v1/portal/orders/export`, { headers: { cookie: warmBrowser.cookie! } })).text();
    for (const orders of sizes) {
      const merchant = await createMerchant({ name: `Export bench ${orders}`, sandbox: true });
      const seedStart = performance.now();
      // A title of 40 characters: rows of about 190 bytes, a typical order's.
      await seedOrders(merchant.user_id, orders, { prefix: 'bench', titleLength: 40 });
      const seed_ms = performance.now() - seedStart;
      const { browser } = await signedInUser(baseUrl, process.env.PORTAL_ORIGIN, merchant.user_id);

      // Settle, then watch memory over the export.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const base = process.memoryUsage();
      let peakRss = base.rss;
      let peakHeap = base.heapUsed;
      const sampler = setInterval(() => {
        const now = process.memoryUsage();
        peakRss = Math.max(peakRss, now.rss);
        peakHeap = Math.max(peakHeap, now.heapUsed);
      }, 20);
      const start = performance.now();
      const response = await fetch(`${baseUrl}/v1/portal/orders/export`, { headers: { cookie: browser.cookie! } });
      const reader = response.body!.getReader();
      let first_byte_ms = 0;
      let first_row_ms = 0;
      let bytes = 0;
      let lines = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (bytes === 0) first_byte_ms = performance.now() - start;
        bytes += value.length;
        for (const byte of value) if (byte === 10) lines += 1;
        if (!first_row_ms && lines >= 2) first_row_ms = performance.now() - start;
      }
      const total_ms = performance.now() - start;
      clearInterval(sampler);
      const rows = lines - 1;
      runs.push({
        orders,
        rows,
        bytes,
        pages: pages.get(merchantOrdersPartition(merchant.user_id)) ?? 0,
        seed_ms: Math.round(seed_ms),
        first_byte_ms: Math.round(first_byte_ms * 10) / 10,
        first_row_ms: Math.round(first_row_ms * 10) / 10,
        total_ms: Math.round(total_ms),
        rows_per_second: Math.round(rows / (total_ms / 1000)),
        rss_growth_mb: mb(peakRss - base.rss),
        heap_growth_mb: mb(peakHeap - base.heapUsed),
        complete: response.status === 200 && rows === orders,
      });
      process.stderr.write(`bench: export ${orders} orders: ${JSON.stringify(runs.at(-1))}\n`);
    }
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return {
    runs,
    page_size: EXPORT_PAGE,
    note: 'Local runtime on DynamoDB Local; server and client in one process (growth is of both). first_byte = head + CSV header line.',
  };
}

/** The export figures, measured in a child process against the given DynamoDB Local table. */
export function measureExport(options: { dynamodbEndpoint: string; tableName: string; sizes: number[] }): Promise<ExportReport> {
  return runChild<ExportReport>('bench/export.ts', {
    DYNAMODB_ENDPOINT: options.dynamodbEndpoint,
    TABLE_NAME: options.tableName,
    BENCH_EXPORT_SIZES: options.sizes.join(','),
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = (process.env.BENCH_EXPORT_SIZES ?? '20000,100000').split(',').map(Number);
  const { ensureTable, LOCAL_AWS_ENV, startDynamoDbLocal } = await import('#infra/local/dynamodb');
  Object.assign(process.env, LOCAL_AWS_ENV);
  let stop: (() => Promise<void>) | undefined;
  if (!process.env.DYNAMODB_ENDPOINT) {
    const dynamodb = await startDynamoDbLocal();
    stop = () => dynamodb.stop();
    await ensureTable(dynamodb.endpoint, 'bench-export');
    Object.assign(process.env, { DYNAMODB_ENDPOINT: dynamodb.endpoint, TABLE_NAME: 'bench-export' });
  }
  try {
    console.log(JSON.stringify(await measure(sizes)));
  } finally {
    await stop?.();
  }
}
