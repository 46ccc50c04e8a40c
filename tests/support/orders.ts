import { randomUUID } from 'node:crypto';
import type { Order } from '#shared/domain/order';

/** A NEW order as the store holds it (10 USD, sandbox, no reference or URLs), with `overrides`. */
export function testOrder(overrides: Partial<Order> = {}): Order {
  const now = new Date().toISOString();
  return {
    order_id: randomUUID(),
    user_id: 1,
    merchant_order_id: '',
    title: '',
    description: '',
    callback_url: '',
    cancel_url: '',
    success_url: '',
    token: '',
    price_amount: '10',
    price_currency: 'USD',
    pay_amount: '10',
    pay_currency: 'USD',
    receive_currency: '',
    status: 'NEW',
    created_at: now,
    updated_at: now,
    deleted: 0,
    version: 1,
    mobile: false,
    fast: false,
    sandbox: true,
    ...overrides,
  };
}

/**
 * `count` NEW orders of merchant `userId`, one `stepMs` apart from `start` (every `tiesEvery`-th
 * one sharing its predecessor's time, so the id breaks ties), newest last: as Create Order
 * would have stored them, but written with BatchWriteItem (seeding thousands at once).
 */
export async function seedOrders(userId: number, count: number, options: { start: Date; stepMs?: number; tiesEvery?: number; concurrency?: number }): Promise<Order[]> {
  const { BatchWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { db, tableName } = await import('#shared/store/client');
  const { orderToItem } = await import('#shared/store/orders');
  const step = options.stepMs ?? 1000;
  let at = options.start.getTime();
  const orders = Array.from({ length: count }, (_, index) => {
    if (index > 0 && !(options.tiesEvery && index % options.tiesEvery === 0)) at += step;
    const created = new Date(at).toISOString();
    return testOrder({ user_id: userId, merchant_order_id: `seed-${index}`, created_at: created, updated_at: created, due_at: created });
  });
  const chunks = Array.from({ length: Math.ceil(count / 25) }, (_, index) => orders.slice(index * 25, index * 25 + 25));
  const write = async (chunk: Order[]) => {
    let requests = chunk.map((order) => ({ PutRequest: { Item: orderToItem(order) } }));
    for (let attempt = 0; requests.length > 0; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 10 * 2 ** attempt)));
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
      requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: options.concurrency ?? 8 }, async () => {
      while (next < chunks.length) await write(chunks[next++]!);
    }),
  );
  return orders;
}

/** The store's newest-first order (GSI1: creation time, then id), as Get Orders lists. */
export const newestFirst = (orders: Order[]): Order[] => [...orders].sort((a, b) => (`${a.created_at}#${a.order_id}` < `${b.created_at}#${b.order_id}` ? 1 : -1));
