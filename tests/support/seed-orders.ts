import { randomUUID } from 'node:crypto';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Order } from '#shared/domain/order';
import { db, tableName } from '#shared/store/client';
import { orderToItem } from '#shared/store/orders';

/**
 * Writes `count` finished (PAID) orders of a merchant straight into the table with
 * BatchWriteItem, one a second apart going back from `newest`, with the item shape the store
 * writes (orderToItem). For tests and benches that need many orders (an export of 10,000 with long titles):
 * making them through the API would take minutes. Returns the orders' ids, newest first.
 */
export async function seedOrders(userId: number, count: number, options: { prefix?: string; titleLength?: number; newest?: number } = {}): Promise<string[]> {
  const prefix = options.prefix ?? 'seed';
  const newest = options.newest ?? Date.now() - 60_000;
  const title = 'Seeded order '.padEnd(options.titleLength ?? 20, 'x');
  const ids: string[] = [];
  const items = Array.from({ length: count }, (_, i) => {
    const at = new Date(newest - i * 1000).toISOString();
    const order: Order = {
      order_id: randomUUID(),
      user_id: userId,
      merchant_order_id: `${prefix}-${i}`,
      title,
      description: '',
      callback_url: '',
      cancel_url: '',
      success_url: '',
      token: 'seeded',
      price_amount: '12.50',
      price_currency: 'USD',
      pay_amount: '12.50',
      pay_currency: 'USD',
      receive_currency: '',
      status: 'PAID',
      created_at: at,
      updated_at: at,
      deleted: 0,
      version: 1,
      mobile: false,
      fast: false,
      sandbox: true,
    };
    ids.push(order.order_id);
    return orderToItem(order);
  });
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  // A few batches in flight at once; whatever DynamoDB leaves unprocessed is sent again.
  const write = async (batch: Record<string, unknown>[]) => {
    let requests = batch.map((Item) => ({ PutRequest: { Item } }));
    while (requests.length > 0) {
      const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
      requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
    }
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < batches.length) await write(batches[next++]!);
    }),
  );
  return ids;
}
