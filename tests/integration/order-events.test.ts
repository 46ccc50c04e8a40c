import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import { handler } from '#functions/order-events/handler';
import { orderToItem } from '#shared/store/orders';
import { findDelivery } from '#shared/store/deliveries';
import type { Order } from '#shared/domain/order';

const order = (overrides: Partial<Order> = {}): Order => ({
  order_id: randomUUID(),
  user_id: 1,
  merchant_order_id: '',
  title: '',
  description: '',
  callback_url: 'https://shop.example/cb',
  cancel_url: '',
  success_url: '',
  token: '',
  price_amount: '10',
  price_currency: 'USD',
  pay_amount: '10',
  pay_currency: 'USD',
  receive_currency: '',
  status: 'NEW',
  created_at: new Date().toISOString(),
  updated_at: new Date().toISOString(),
  deleted: 0,
  version: 1,
  mobile: false,
  fast: false,
  sandbox: true,
  ...overrides,
});

const image = (o: Order) => marshall(orderToItem(o), { removeUndefinedValues: true }) as any;

let sequence = 0;
const change = (before: Order, after: Order) => ({
  eventID: randomUUID(),
  eventName: 'MODIFY' as const,
  dynamodb: { Keys: image(after).PK && { PK: image(after).PK, SK: image(after).SK }, SequenceNumber: String((sequence += 1)), OldImage: image(before), NewImage: image(after) },
});

describe('order-events handler', () => {
  it('queues one delivery per status change and ignores writes that keep the status', async () => {
    const before = order();
    const paid = { ...before, status: 'PAID' as const, version: 2 };
    const other = order();
    const touched = { ...other, version: 2 };
    expect(await handler({ Records: [change(before, paid), change(other, touched)] } as any)).toEqual({ batchItemFailures: [] });
    expect(await findDelivery(paid.order_id, 2)).toMatchObject({ status: 'PAID', state: 'PENDING' });
    expect(await findDelivery(other.order_id, 2)).toBeUndefined();
  });

  it('reports the first failed record and every record after it, across orders handled concurrently', async () => {
    const a = order();
    const broken = order({ price_amount: 'not-a-number' });
    const c = order();
    const records = [
      change(a, { ...a, status: 'CANCELED', version: 2 }),
      change(broken, { ...broken, status: 'CANCELED', version: 2 }),
      change(c, { ...c, status: 'CANCELED', version: 2 }),
    ];
    const result = await handler({ Records: records } as any);
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual([records[1]!.dynamodb.SequenceNumber, records[2]!.dynamodb.SequenceNumber]);
    expect(await findDelivery(a.order_id, 2)).toMatchObject({ status: 'CANCELED' });
  });
});
