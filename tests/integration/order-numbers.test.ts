import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomInt } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { InvalidParameterError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Order } from '#shared/domain/order';
import { db, queryAll, tableName } from '#shared/store/client';
import { orderNumbersPartition } from '#shared/store/keys';
import { numberNewOrders, numberableBefore } from '#shared/services/order-numbering';
import { listOrders } from '#shared/services/order-queries';
import { advanceNumberingRun, numberOrders, readNumbering, readNumberingRun } from '#shared/store/order-numbers';
import { commitOrderChange, orderToItem } from '#shared/store/orders';
import { meterCapacity } from '../../bench/capacity';
import { expectError, newMerchant, type TestApi, useTestApi } from '../support/api';
import { newestFirst, seedOrders } from '../support/orders';

/**
 * Get Orders beyond offset 1000 by order number, against DynamoDB Local: exact pages at every
 * offset (numbered and not yet numbered orders, ties in creation time, status changes, another
 * merchant's orders in the same seconds), O(limit) reads, and the numbering run's safety.
 */

const FAR_FUTURE = '2999-01-01T00:00:00.000Z';
// Merchant ids of this file only (merchants made by the service count up from 1).
const uniqueUserId = () => 3_000_000_000 + randomInt(1_000_000_000);
const as = (userId: number) => ({ user_id: userId }) as MerchantProfile;
const ids = (orders: Order[]) => orders.map((order) => order.order_id);
/** The merchant's order number items, lowest first (without its cursor). */
const numberItems = async (userId: number) =>
  (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': orderNumbersPartition(userId) } })).filter((item) => item.SK !== 'CURSOR');
const page = (userId: number, offset: number, limit = 10, status?: Order['status']) => listOrders(as(userId), { offset, limit, status });

describe('Get Orders at any offset', () => {
  const userId = uniqueUserId();
  const otherId = uniqueUserId();
  let expected: Order[];
  let unnumbered: number;

  beforeAll(async () => {
    // Every 7th order shares its predecessor's creation time: the id orders them, as in GSI1.
    const mine = await seedOrders(userId, 2_600, { start: new Date('2025-01-01T00:00:00Z'), tiesEvery: 7 });
    await seedOrders(otherId, 400, { start: new Date('2025-01-01T00:00:00Z'), stepMs: 5_000 });
    // Numbered up to order 2,400's creation time: the newest are not numbered yet (a run's settle time).
    await numberOrders(userId, mine[2_400]!.created_at);
    await numberOrders(otherId, FAR_FUTURE);
    expected = newestFirst(mine);
    unnumbered = 2_600 - (await readNumbering(userId)).count;
  }, 120_000);

  it('numbers the orders created before the time given, oldest first, with no gap', async () => {
    const numbering = await readNumbering(userId);
    expect(numbering.count).toBe(2_600 - unnumbered);
    expect(unnumbered).toBeGreaterThanOrEqual(200);
    const numbers = await numberItems(userId);
    const oldestFirst = [...expected].reverse();
    expect(numbers.map((item) => item.order_id)).toEqual(ids(oldestFirst.slice(0, numbering.count)));
    expect(numbering.last).toBe(`${oldestFirst[numbering.count - 1]!.created_at}#${oldestFirst[numbering.count - 1]!.order_id}`);
  });

  it.each([
    [0, 10],
    [150, 50],
    [195, 10], // across the newest orders not numbered yet and the numbered ones
    [200, 10],
    [990, 10], // the last page read from the list index alone
    [991, 10], // the first page found by number
    [1_000, 10],
    [1_000, 50],
    [1_001, 1],
    [1_777, 7],
    [2_550, 50],
    [2_595, 10], // the last, short page
    [2_600, 10],
    [100_000, 10],
  ])('offset %i, limit %i: exactly the orders at those places, newest first', async (offset, limit) => {
    expect(ids(await page(userId, offset, limit))).toEqual(ids(expected.slice(offset, offset + limit)));
  });

  it("never lists another merchant's orders (theirs interleave in time)", async () => {
    for (const offset of [1_000, 1_500, 2_400]) {
      const orders = await page(userId, offset, 50);
      expect(orders.every((order) => order.user_id === userId)).toBe(true);
    }
    // Theirs beyond 1000 are theirs only, and the last page ends at their 400th order.
    expect((await page(otherId, 1_000, 10)).length).toBe(0);
    expect(ids(await page(otherId, 390, 50))).toHaveLength(10);
  });

  it('keeps every place after status changes, and shows the new statuses', async () => {
    const changed = expected.slice(1_500, 1_505);
    for (const order of changed) {
      expect(await commitOrderChange({ expected: order, order: { ...order, status: 'CANCELED', version: order.version + 1 } })).toBe(true);
    }
    const orders = await page(userId, 1_495, 20);
    expect(ids(orders)).toEqual(ids(expected.slice(1_495, 1_515)));
    expect(orders.slice(5, 10).map((order) => order.status)).toEqual(Array(5).fill('CANCELED'));
    expect(orders[4]!.status).toBe('NEW');
  });

  it('refuses a status-filtered offset beyond 1000 with a 400 that says which offsets are served', async () => {
    expect(ids(await page(userId, 1_000, 10, 'NEW'))).toHaveLength(10);
    const refused = await page(userId, 1_001, 10, 'NEW').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidParameterError);
    expect((refused as Error).message).toMatch(/^offset: with status, Get Orders serves offsets 0\.\.1000/);
  });

  it('refuses a deep offset while more than 1000 of the newest orders are not numbered (orders stored before numbering)', async () => {
    const legacy = uniqueUserId();
    await seedOrders(legacy, 1_050, { start: new Date('2025-02-01T00:00:00Z') });
    const refused = await page(legacy, 1_001).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidParameterError);
    expect((refused as Error).message).toContain('retry in a few minutes');
    // Within the newest 1000 it answers as before; once numbered, every offset.
    expect(await page(legacy, 990)).toHaveLength(10);
    await numberOrders(legacy, FAR_FUTURE);
    expect(await page(legacy, 1_045)).toHaveLength(5);
  }, 60_000);
});

describe('the cost of a deep page', () => {
  const userId = uniqueUserId();

  beforeAll(async () => {
    await seedOrders(userId, 3_000, { start: new Date('2025-03-01T00:00:00Z') });
    await numberOrders(userId, FAR_FUTURE);
    // Five newest orders not numbered yet, as between two runs.
    await seedOrders(userId, 5, { start: new Date('2999-06-01T00:00:00Z') });
  }, 120_000);

  afterAll(() => {
    meterCapacity(db()).reset();
  });

  it('reads O(limit) units at any offset, where reading through the list index grows with the offset', async () => {
    const meter = meterCapacity(db());
    const units = async (offset: number, limit = 10) => {
      meter.reset();
      await page(userId, offset, limit);
      return meter.reset();
    };
    const listIndex = await units(990);
    const shallow = await units(1_100);
    const deep = await units(2_990);
    const deepWide = await units(2_940, 50);
    // The same requests and units 1,100 or 2,990 deep: the numbering cursor, the count of the
    // 5 newest, the numbers, the orders (BatchGetItem).
    expect(deep.requests).toBe(4);
    expect(deep.readUnits).toBe(shallow.readUnits);
    // Ten orders through the list index at offset 990 read a thousand (74 units for these seeded
    // orders since order items leave out empty and derived attributes; 7.5 deep by number).
    expect(listIndex.readUnits).toBeGreaterThan(8 * deep.readUnits);
    // 40 more orders cost 40 half units (each read on its own), and their numbers at most one more.
    expect(deepWide.readUnits - deep.readUnits).toBeGreaterThanOrEqual(40 * 0.5);
    expect(deepWide.readUnits - deep.readUnits).toBeLessThanOrEqual(40 * 0.5 + 1);
  });
});

describe('the numbering run', () => {
  it('numbers every order once, in creation order, when two runs race and when run again', async () => {
    const userId = uniqueUserId();
    const orders = await seedOrders(userId, 450, { start: new Date('2025-04-01T00:00:00Z'), tiesEvery: 3 });
    const [first, second] = await Promise.all([numberOrders(userId, FAR_FUTURE), numberOrders(userId, FAR_FUTURE)]);
    expect(first.numbered + second.numbered).toBe(450);
    expect([first.done, second.done]).toEqual([true, true]);
    const numbers = await numberItems(userId);
    expect(numbers.map((item) => item.SK)).toEqual(Array.from({ length: 450 }, (_, index) => String(index + 1).padStart(12, '0')));
    expect(numbers.map((item) => item.order_id)).toEqual(ids(newestFirst(orders).reverse()));
    expect(await numberOrders(userId, FAR_FUTURE)).toEqual({ numbered: 0, done: true });
  }, 60_000);

  it("finds new orders in the order log, numbers a merchant's older orders (stored before numbering) first, and moves its mark once", async () => {
    const userId = uniqueUserId();
    const now = Date.now();
    // Stored before numbering existed: no order log entry.
    const older = await seedOrders(userId, 30, { start: new Date('2024-01-01T00:00:00Z') });
    for (const order of older) {
      const { GSI4PK: _pk, GSI4SK: _sk, ...item } = orderToItem(order);
      await db().send(new PutCommand({ TableName: tableName(), Item: item }));
    }
    const recent = await seedOrders(userId, 40, { start: new Date(now - 5_000), stepMs: 10 });
    // The run reads the log from its mark: start it a minute back (other files' orders are numbered too, harmlessly).
    const mark = await readNumberingRun();
    const start = new Date(now - 60_000).toISOString();
    if (mark < start) await advanceNumberingRun(mark, start);

    // Not settled yet: nothing of this merchant is numbered.
    await numberNewOrders(new Date(now));
    expect((await readNumbering(userId)).count).toBe(0);

    const later = new Date(now + 3 * 60_000);
    const runs = await Promise.all([numberNewOrders(later), numberNewOrders(later)]);
    expect(runs.every((run) => run.complete)).toBe(true);
    expect(await readNumberingRun()).toBe(numberableBefore(later));
    const numbering = await readNumbering(userId);
    expect(numbering.count).toBe(70);
    expect(ids(await page(userId, 0, 50))).toEqual(ids(newestFirst([...older, ...recent]).slice(0, 50)));
    const numbers = await numberItems(userId);
    expect(numbers.map((item) => item.order_id)).toEqual(ids([...older, ...recent]));
    // Run again: nothing new.
    expect(await numberNewOrders(later)).toEqual({ merchants: 0, numbered: 0, complete: true });
  }, 60_000);
});

describe('Get Orders over HTTP beyond offset 1000', () => {
  let call: TestApi['call'];
  useTestApi((api) => ({ call } = api));

  it('pages exactly through numbered orders and the newest ones made since, with duplicates refused in between', async () => {
    const merchant = await newMerchant();
    const seeded = await seedOrders(merchant.user_id, 1_100, { start: new Date('2025-05-01T00:00:00Z') });
    const create = async (reference: string) => call('POST', '/v1/orders', { token: merchant.api_token, body: { price_amount: 10, price_currency: 'USD', merchant_order_id: reference } });
    const made: Order[] = [];
    for (const reference of ['a', 'b', 'b', 'c']) {
      const response = await create(reference);
      if (reference === 'b' && made.some((order) => order.merchant_order_id === 'b')) expect(response.status).toBe(400);
      else made.push(response.body.order);
    }
    await numberOrders(merchant.user_id, FAR_FUTURE);
    for (const reference of ['d', 'e']) made.push((await create(reference)).body.order);
    const expected = newestFirst([...seeded, ...made]);
    for (const [offset, limit] of [
      [0, 10],
      [1_000, 50],
      [1_095, 10],
    ] as const) {
      const response = await call('GET', `/v1/orders?offset=${offset}&limit=${limit}`, { token: merchant.api_token });
      expect(response.status, response.text).toBe(200);
      expect(response.body.orders.map((order: Order) => order.order_id)).toEqual(ids(expected.slice(offset, offset + limit)));
    }
    const filtered = await call('GET', '/v1/orders?offset=1001&status=NEW', { token: merchant.api_token });
    expectError(filtered, 400, 'PARAMETERS_INVALID', 'offset');
  }, 60_000);
});
