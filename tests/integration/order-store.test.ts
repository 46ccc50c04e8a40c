import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConcurrentUpdateError, MerchantOrderIdExistsError } from '#shared/domain/errors';
import { newTimeOrderedId } from '#shared/domain/ids';
import type { Invoice, Order } from '#shared/domain/order';
import { db, tableName } from '#shared/store/client';
import { invoiceKey, LEGACY_INVOICE_SK, orderPartition } from '#shared/store/keys';
import { invoiceToItem } from '#shared/store/invoices';
import { findOrderWithInvoice, insertOrder, orderToItem } from '#shared/store/orders';
import { testOrder } from '../support/orders';

/** The store's order writes against DynamoDB Local, at the edges the API cannot reach on demand. */

const NOW = '2026-11-22T06:00:00.000Z';

function order(overrides: Partial<Order> = {}): Order {
  return testOrder({
    user_id: 424242,
    merchant_order_id: `ref-${randomUUID()}`,
    title: 'Store test',
    created_at: NOW,
    updated_at: NOW,
    due_at: NOW,
    ...overrides,
  });
}

function invoice(of: Order, invoiceId: string, payCurrency = 'BTC'): Invoice {
  return {
    invoice_id: invoiceId,
    order_id: of.order_id,
    user_id: of.user_id,
    merchant_order_id: of.merchant_order_id,
    pay_amount: '0.0001',
    pay_currency: payCurrency,
    receive_amount: '10',
    receive_currency: 'USD',
    status: 'NEW',
    created_at: NOW,
    expired_at: NOW,
    payment_address: `addr-${invoiceId}`,
    payment_uri: `x:${invoiceId}`,
    rate: { numerator: '1', denominator: '1', source: 'test', as_of: NOW },
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the order item', () => {
  it('leaves out its id, its due time and empty defaults, and reads back as the order; an item written with them reads the same', async () => {
    const pending = order({ status: 'PENDING', description: '', success_url: '', cancel_url: '', receive_currency: '', mobile: false, fast: false });
    const item = orderToItem(pending);
    for (const name of ['order_id', 'due_at', 'description', 'success_url', 'cancel_url', 'receive_currency', 'deleted', 'mobile', 'fast']) expect(item, name).not.toHaveProperty(name);
    expect(item.GSI3SK).toBe(`${NOW}#${pending.order_id}`);
    await insertOrder(pending);
    expect((await findOrderWithInvoice(pending.order_id))!.order).toEqual(pending);
    // Out of the expiry index, the due time is gone with its key; what a merchant set stays.
    const paid = { ...order({ description: 'two mugs', mobile: true }), status: 'PAID' as const, due_at: undefined };
    await insertOrder(paid);
    const { due_at: _due, ...rest } = paid;
    expect((await findOrderWithInvoice(paid.order_id))!.order).toEqual(rest);
    // An item of an order stored whole (before this change).
    const old = order();
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...orderToItem(old), ...old } }));
    expect((await findOrderWithInvoice(old.order_id))!.order).toEqual(old);
  });
});

describe('insertOrder', () => {
  it("takes its own earlier write (an SDK retry after a lost answer) as success, another order's as a taken reference", async () => {
    const first = order();
    // What a first attempt left behind when its answer was lost on the way back.
    await db().send(new PutCommand({ TableName: tableName(), Item: orderToItem(first) }));
    await expect(insertOrder(first)).resolves.toBeUndefined();
    const other = { ...first, created_at: '2026-11-22T06:00:01.000Z', updated_at: '2026-11-22T06:00:01.000Z' };
    await expect(insertOrder(other)).rejects.toBeInstanceOf(MerchantOrderIdExistsError);
  });

  it("tries again when it meets another request's transaction in flight on the item, and gives up with a 409 after three", async () => {
    const send = db().send.bind(db());
    const conflict = () => Object.assign(new Error('Transaction is ongoing for the item'), { name: 'TransactionConflictException' });
    let conflicts = 1;
    const spy = vi.spyOn(db(), 'send').mockImplementation(((command: unknown) => {
      if (command instanceof PutCommand && conflicts > 0) {
        conflicts -= 1;
        return Promise.reject(conflict());
      }
      return send(command as never);
    }) as ReturnType<typeof db>['send']);
    const once = order();
    await expect(insertOrder(once)).resolves.toBeUndefined();
    expect(spy.mock.calls.filter(([command]) => command instanceof PutCommand)).toHaveLength(2);
    expect((await findOrderWithInvoice(once.order_id))?.order.order_id).toBe(once.order_id);

    conflicts = 3;
    const always = order();
    await expect(insertOrder(always)).rejects.toBeInstanceOf(ConcurrentUpdateError);
    expect(await findOrderWithInvoice(always.order_id)).toBeUndefined();
  });
});

describe('findOrderWithInvoice', () => {
  it('reads the invoice the order names, under its own key or the old SK = INVOICE, past a newer unused one', async () => {
    const current = newTimeOrderedId(Date.now() - 60_000);
    const stored = order({ invoice_id: current, pay_currency: 'BTC' });
    await db().send(new PutCommand({ TableName: tableName(), Item: orderToItem(stored) }));
    // An order from before invoices had their own keys: its current invoice at SK = INVOICE.
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...invoiceToItem(invoice(stored, current)), PK: orderPartition(stored.order_id), SK: LEGACY_INVOICE_SK },
      }),
    );
    expect((await findOrderWithInvoice(stored.order_id))?.invoice?.invoice_id).toBe(current);
    // A checkout that then lost its race left a newer invoice the order does not name.
    const unused = newTimeOrderedId();
    await db().send(new PutCommand({ TableName: tableName(), Item: invoiceToItem(invoice(stored, unused, 'LTC')) }));
    const found = await findOrderWithInvoice(stored.order_id);
    expect(found?.invoice?.invoice_id).toBe(current);
    expect(found?.invoice?.pay_currency).toBe('BTC');
    expect(invoiceKey(stored.order_id, unused).SK > LEGACY_INVOICE_SK).toBe(true);
  });
});
