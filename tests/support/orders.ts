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
