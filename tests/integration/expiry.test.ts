import { afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '#infra/local/dynamodb';
import type { Order } from '#shared/domain/order';
import { testOrder } from '../support/orders';

/**
 * The expiry sweep on this file's own table (so "every order due by now" means only these):
 * one order that cannot be expired must not hold back the others.
 */
const TABLE = `expiry-${process.pid}`;
let m: {
  lifecycle: typeof import('#shared/services/payment-reports');
  expiry: typeof import('#shared/services/expiry');
  client: typeof import('#shared/store/client');
  orders: typeof import('#shared/store/orders');
  dueOrders: typeof import('#shared/store/due-orders');
};

beforeAll(async () => {
  await ensureTable(inject('dynamodbEndpoint'), TABLE, { stream: false });
  process.env.TABLE_NAME = TABLE;
  m = {
    lifecycle: await import('#shared/services/payment-reports'),
    expiry: await import('#shared/services/expiry'),
    client: await import('#shared/store/client'),
    orders: await import('#shared/store/orders'),
    dueOrders: await import('#shared/store/due-orders'),
  };
});

afterEach(() => {
  vi.restoreAllMocks();
});

const DUE = '2026-01-01T00:00:00.000Z';

async function dueOrder(due = DUE, overrides: Partial<Order> = {}): Promise<Order> {
  const order = testOrder({ user_id: 77, price_amount: '1', pay_amount: '1', created_at: due, updated_at: due, due_at: due, ...overrides });
  await m.client.db().send(new PutCommand({ TableName: TABLE, Item: m.orders.orderToItem(order) }));
  return order;
}

/** Makes every status-change transaction on `orderId` fail with `error` (a real store will not on demand). */
function failWritesOf(orderId: string, error: () => Error) {
  const send = m.client.db().send.bind(m.client.db());
  vi.spyOn(m.client.db(), 'send').mockImplementation(((command: unknown) => {
    if (command instanceof TransactWriteCommand && JSON.stringify(command.input).includes(orderId)) return Promise.reject(error());
    return send(command as never);
  }) as ReturnType<typeof m.client.db>['send']);
}

const statusOf = async (id: string) => (await m.orders.findOrderWithInvoice(id))!.order.status;

describe('expireDueOrders', () => {
  it('expires the other due orders when one keeps losing races, and does not fail the run', async () => {
    const busy = await dueOrder();
    const others = [await dueOrder(), await dueOrder()];
    failWritesOf(busy.order_id, () => Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'TransactionConflict' }] }));
    expect(await m.expiry.expireDueOrders(new Date('2026-01-01T00:01:00.000Z'))).toBe(2);
    expect(await statusOf(busy.order_id)).toBe('NEW');
    for (const order of others) expect(await statusOf(order.order_id)).toBe('EXPIRED');
  });

  it('expires the others when the store fails for one, then reports the failure', async () => {
    const broken = await dueOrder();
    const other = await dueOrder();
    failWritesOf(broken.order_id, () => Object.assign(new Error('internal'), { name: 'InternalServerError', $fault: 'server' }));
    await expect(m.expiry.expireDueOrders(new Date('2026-01-01T00:01:00.000Z'))).rejects.toThrow('internal');
    expect(await statusOf(other.order_id)).toBe('EXPIRED');
    vi.restoreAllMocks();
    // The next run takes the one that failed.
    expect(await m.expiry.expireDueOrders(new Date('2026-01-01T00:02:00.000Z'))).toBe(1);
    expect(await statusOf(broken.order_id)).toBe('EXPIRED');
  });
});

/** `count` orders due one second apart from `from`, spread over the index's shards in turn (by the id's first hex digit). */
async function dueSeries(from: string, count: number): Promise<Order[]> {
  const orders: Order[] = [];
  for (let i = 0; i < count; i += 1) {
    const due = new Date(Date.parse(from) + i * 1000).toISOString();
    orders.push(await dueOrder(due, { order_id: `${(i % 4).toString(16)}${randomUUID().slice(1)}` }));
  }
  return orders;
}

describe('the walk through due orders', () => {
  it('reads at most `limit` over all shards, the oldest first, and goes on from its cursor to the end', async () => {
    const orders = await dueSeries('2025-06-01T00:00:00.000Z', 9);
    const now = new Date('2025-06-01T01:00:00.000Z');
    const ids = (page: { due: { orderId: string }[] }) => page.due.map(({ orderId }) => orderId);
    const first = await m.dueOrders.findDueOrders(now, 4);
    expect(ids(first)).toEqual(orders.slice(0, 4).map((order) => order.order_id));
    const second = await m.dueOrders.findDueOrders(now, 4, first.next);
    expect(ids(second)).toEqual(orders.slice(4, 8).map((order) => order.order_id));
    const third = await m.dueOrders.findDueOrders(now, 4, second.next);
    expect(ids(third)).toEqual([orders[8]!.order_id]);
    expect(third.next).toBeUndefined();
  });

  it('expires every due order in one run, page after page, at most `maxOrders` per run', async () => {
    const now = new Date('2025-06-01T02:00:00.000Z');
    const orders = await dueSeries('2025-06-01T01:30:00.000Z', 12);
    // The 9 orders of the test above are due by now too.
    expect(await m.expiry.expireDueOrders(now, { pageSize: 2, concurrency: 3, maxOrders: 5 })).toBe(5);
    expect(await m.expiry.expireDueOrders(now, { pageSize: 2, concurrency: 3 })).toBe(16);
    for (const order of orders) expect(await statusOf(order.order_id)).toBe('EXPIRED');
    expect((await m.dueOrders.findDueOrders(now, 100)).due).toEqual([]);
  });
});

describe('a PENDING order whose payment never reaches a block', () => {
  const HOUR = 3_600_000;
  const DAY = 24 * HOUR;

  /** A sandbox BTC order checked out at `at`, with a payment of its full amount seen in the mempool (no block). */
  async function pendingOrder(at: Date) {
    const merchants = await import('#shared/services/merchants');
    const { findMerchant } = await import('#shared/store/merchants');
    const { createOrder } = await import('#shared/services/orders');
    const { parseDecimal } = await import('#shared/domain/money');
    const credentials = await merchants.createMerchant({ name: 'Unconfirmed', sandbox: true });
    const merchant = (await findMerchant(credentials.user_id))!;
    const { order, invoice } = await createOrder(merchant, { price_amount: '10', pay_currency: 'BTC' }, at);
    const txid = randomUUID().replace(/-/g, '');
    const seen = await m.lifecycle.recordPayment({
      orderId: order.order_id,
      invoiceId: invoice!.invoice_id,
      amount: parseDecimal(invoice!.pay_amount),
      confirmations: 0,
      txid,
      key: `${txid}:0`,
      now: new Date(at.getTime() + 60_000),
    });
    expect(seen.order.status).toBe('PENDING');
    return { orderId: order.order_id, invoice: invoice!, txid };
  }

  it('is EXPIRED 24 h after its invoice expired; if it confirms after all, UNRESOLVED (PAID_LATE)', async () => {
    const at = new Date('2030-03-01T00:00:00.000Z');
    const { orderId, invoice, txid } = await pendingOrder(at);
    const expiredAt = Date.parse(invoice.expired_at);
    // The payment left the due time where it was (no index write in the PENDING transaction)...
    expect((await m.orders.findOrderWithInvoice(orderId))!.order.due_at).toBe(invoice.expired_at);
    // ...and the sweep at that time does not expire it: due again a day after the invoice.
    await m.expiry.expireDueOrders(new Date(expiredAt + HOUR));
    expect(await statusOf(orderId)).toBe('PENDING');
    expect((await m.orders.findOrderWithInvoice(orderId))!.order.due_at).toBe(new Date(expiredAt + DAY).toISOString());
    await m.expiry.expireDueOrders(new Date(expiredAt + DAY - 1000));
    expect(await statusOf(orderId)).toBe('PENDING');
    expect(await m.expiry.expireDueOrders(new Date(expiredAt + DAY + 1000))).toBeGreaterThanOrEqual(1);
    expect(await statusOf(orderId)).toBe('EXPIRED');
    expect((await m.dueOrders.findDueOrders(new Date(expiredAt + 2 * DAY), 100)).due.map((d) => d.orderId)).not.toContain(orderId);
    // The transaction confirms after all (it was only slow): the merchant is told, the payment kept.
    const late = await m.lifecycle.recordPayment({
      orderId,
      invoiceId: invoice.invoice_id,
      amount: (await import('#shared/domain/money')).parseDecimal(invoice.pay_amount),
      confirmations: 2,
      txid,
      key: `${txid}:0`,
      block: { height: 900_000, hash: 'ab'.repeat(32) },
      now: new Date(expiredAt + DAY + HOUR),
    });
    expect([late.order.status, late.order.unresolved_reason]).toEqual(['UNRESOLVED', 'PAID_LATE']);
  });

  it('stays PENDING while its payment is in a block short of confirmations, and is looked at again a day later', async () => {
    const at = new Date('2030-04-01T00:00:00.000Z');
    const { orderId, invoice, txid } = await pendingOrder(at);
    const { parseDecimal } = await import('#shared/domain/money');
    const mined = await m.lifecycle.recordPayment({
      orderId,
      invoiceId: invoice.invoice_id,
      amount: parseDecimal(invoice.pay_amount),
      confirmations: 1,
      txid,
      key: `${txid}:0`,
      block: { height: 900_001, hash: 'cd'.repeat(32) },
      now: new Date(at.getTime() + 10 * 60_000),
    });
    expect(mined.order.status).toBe('PENDING');
    const sweep = new Date(Date.parse(invoice.expired_at) + DAY + 1000);
    await m.expiry.expireDueOrders(sweep);
    const after = (await m.orders.findOrderWithInvoice(orderId))!.order;
    expect(after.status).toBe('PENDING');
    expect(after.due_at).toBe(new Date(sweep.getTime() + DAY).toISOString());
  });

  it('a reorganisation taking its only payment back makes it NEW, due when its invoice expires', async () => {
    const at = new Date('2030-05-01T00:00:00.000Z');
    const { orderId, invoice, txid } = await pendingOrder(at);
    expect(await m.lifecycle.retractPayment({ orderId, invoiceId: invoice.invoice_id, key: `${txid}:0`, now: new Date(at.getTime() + 120_000) })).toBe('taken-back');
    const back = (await m.orders.findOrderWithInvoice(orderId))!.order;
    expect([back.status, back.due_at]).toEqual(['NEW', invoice.expired_at]);
  });
});
