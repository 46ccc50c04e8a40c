/**
 * Get Orders at deep offsets (BENCH_ONLY=paging): one merchant with BENCH_PAGING_ORDERS orders
 * (100,000) seeded into DynamoDB Local with BatchWriteItem, numbered by the real numbering run
 * (all but the newest 5, as between two runs), then pages of 10 at offsets 0 .. 99,990 through
 * the Get Orders service: DynamoDB requests, items read, read units and latency per page, each
 * page checked against the expected orders. For contrast, the same deep pages read the old way
 * (offset + limit items through the list index), once each.
 */
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Order } from '#shared/domain/order';
import { newestFirst, seedOrders } from '../tests/support/orders';
import { meterCapacity } from './capacity';
import { summarize, timeSequential, type LatencyFigures } from './stats';

export interface PagingPage {
  offset: number;
  limit: number;
  /** Per page: DynamoDB requests, items read, read units. */
  requests: number;
  items_read: number;
  read_units: number;
  latency_ms: LatencyFigures;
}

export interface PagingReport {
  orders: number;
  /** Orders created after the numbering run (the head a deep page counts). */
  not_numbered: number;
  seed_ms: number;
  numbering: { orders: number; ms: number; orders_per_s: number; requests: number; read_units: number; write_units: number; write_units_per_order: number; read_units_per_order: number };
  /** One order's PutItem as Create Order writes it, and without its order log keys (table units only: DynamoDB Local reports no index units). */
  create_put_write_units: { with_log_entry: number; without: number };
  pages: PagingPage[];
  /** The same pages read through the list index (offset + limit items), once each. */
  list_index_pages: { offset: number; requests: number; items_read: number; read_units: number; ms: number }[];
}

const OFFSETS = [0, 990, 1_000, 10_000, 50_000, 99_990];
const LIMIT = 10;
const HEAD = 5;

export async function measurePaging(options: { orders: number; iterations: number }): Promise<PagingReport> {
  const { db, tableName } = await import('#shared/store/client');
  const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
  const { listOrders } = await import('#shared/services/order-queries');
  const { listOrders: listThroughIndex, orderToItem } = await import('#shared/store/orders');
  const { numberNewOrders } = await import('#shared/services/order-numbering');
  const meter = meterCapacity(db());
  const userId = 4_000_000_000 + Math.floor(Math.random() * 1_000_000);
  const merchant = { user_id: userId } as MerchantProfile;
  const numberedCount = options.orders - HEAD;

  let start = performance.now();
  // One order a second, ending well before the numbering run's settle time.
  const first = new Date(Date.now() - (numberedCount + 3_600) * 1000);
  const seeded = await seedOrders(userId, numberedCount, { start: first, concurrency: 4 });
  const seedMs = performance.now() - start;

  meter.reset();
  start = performance.now();
  const run = await numberNewOrders(new Date());
  const numberingMs = performance.now() - start;
  const numberingUse = meter.reset();
  if (!run.complete || run.numbered < numberedCount) throw new Error(`the numbering run numbered ${run.numbered} of ${numberedCount}`);

  const newest = await seedOrders(userId, HEAD, { start: new Date(), stepMs: 1 });
  const expected = newestFirst([...seeded, ...newest]);

  const sample = newest[0]!;
  const putUnits = async (item: Record<string, unknown>) => {
    meter.reset();
    await db().send(new PutCommand({ TableName: tableName(), Item: item }));
    return meter.reset().writeUnits;
  };
  const { GSI4PK: _pk, GSI4SK: _sk, ...withoutLog } = orderToItem({ ...sample, order_id: crypto.randomUUID(), user_id: userId + 1 });
  const createUnits = { with_log_entry: await putUnits(orderToItem({ ...sample, order_id: crypto.randomUUID(), user_id: userId + 1 })), without: await putUnits(withoutLog) };

  const ids = (orders: Order[]) => orders.map((order) => order.order_id).join();
  const pages: PagingPage[] = [];
  for (const offset of OFFSETS) {
    const want = ids(expected.slice(offset, offset + LIMIT));
    const read = async () => {
      const got = await listOrders(merchant, { offset, limit: LIMIT });
      if (ids(got) !== want) throw new Error(`Get Orders at offset ${offset} is not the expected page`);
    };
    await timeSequential(3, read);
    meter.reset();
    await read();
    const use = meter.reset();
    const samples = await timeSequential(options.iterations, read);
    pages.push({ offset, limit: LIMIT, requests: use.requests, items_read: use.itemsRead, read_units: use.readUnits, latency_ms: summarize(samples) });
  }

  const listIndexPages: PagingReport['list_index_pages'] = [];
  for (const offset of OFFSETS.filter((offset) => offset >= 10_000)) {
    meter.reset();
    const began = performance.now();
    await listThroughIndex({ userId, offset, limit: LIMIT });
    const ms = performance.now() - began;
    const use = meter.reset();
    listIndexPages.push({ offset, requests: use.requests, items_read: use.itemsRead, read_units: use.readUnits, ms: Math.round(ms) });
  }

  const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
  return {
    orders: options.orders,
    not_numbered: HEAD,
    seed_ms: Math.round(seedMs),
    numbering: {
      orders: run.numbered,
      ms: Math.round(numberingMs),
      orders_per_s: Math.round(run.numbered / (numberingMs / 1000)),
      requests: numberingUse.requests,
      read_units: round(numberingUse.readUnits),
      write_units: round(numberingUse.writeUnits),
      write_units_per_order: round(numberingUse.writeUnits / run.numbered, 3),
      read_units_per_order: round(numberingUse.readUnits / run.numbered, 3),
    },
    create_put_write_units: createUnits,
    pages,
    list_index_pages: listIndexPages,
  };
}
