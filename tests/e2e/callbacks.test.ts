import { describe, expect, it } from 'vitest';
import { useCallbackPipeline } from '../support/callback-e2e';
import { sleep } from '../support/merchant-endpoint';
import { verifyCallback } from '../support/webhook-verify';

/**
 * The callback pipeline end to end on the real local parts: the table's stream, the
 * order-events handler, the SQS emulator, the delivery handler, and real HTTP merchant
 * endpoints on loopback. This file has its own table, so its stream carries only its orders.
 * Retries, timeouts and the dead-letter queue: callback-retries.test.ts.
 */
const TABLE = `callbacks-e2e-${process.pid}`;
const { merchant, call, endpoint, paidOrder } = useCallbackPipeline(TABLE);

describe('callbacks', () => {
  it('after the callback secret is rolled, carry both signatures: a server checking either secret accepts them', async () => {
    const { newMerchant } = await import('../support/api');
    const { rollCallbackSecret } = await import('#shared/services/merchants');
    const shop = await newMerchant(true, 'Rolled Secret Shop');
    const rolled = await rollCallbackSecret(shop.user_id, 24, { who: 'operator:test', from: 'test' });
    const merchantSite = await endpoint();
    const created = await call('POST', '/v1/orders', {
      token: shop.api_token,
      body: { price_amount: 10, price_currency: 'USD', pay_currency: 'BTC', callback_url: merchantSite.url },
    });
    const id = created.body.order.order_id as string;
    expect((await call('POST', `/v1/sandbox/orders/${id}/pay`, { token: shop.api_token, body: {} })).body.order.status).toBe('PAID');
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 1);
    const [callback] = merchantSite.for(id);
    expect(callback!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyCallback(rolled.callback_secret, callback!.headers, callback!.body)).toBe(true);
    expect(verifyCallback(shop.callback_secret, callback!.headers, callback!.body)).toBe(true);
    expect(verifyCallback(merchant.callback_secret, callback!.headers, callback!.body)).toBe(false);
  });

  it('a PAID callback arrives once, signed, with the documented body', async () => {
    const merchantSite = await endpoint();
    const id = await paidOrder(merchantSite.url);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 1);
    await sleep(1500);
    const [callback, ...more] = merchantSite.for(id);
    expect(more).toEqual([]);
    expect(callback!.headers['content-type']).toBe('application/json');
    expect(verifyCallback(merchant.callback_secret, callback!.headers, callback!.body)).toBe(true);
    expect(verifyCallback(merchant.callback_secret, callback!.headers, callback!.body.replace('PAID', 'PAIX'))).toBe(false);
    expect(Object.keys(callback!.json)).toEqual([
      'order_id',
      'merchant_order_id',
      'status',
      'price_amount',
      'price_currency',
      'pay_amount',
      'pay_currency',
      'created_at',
      'created_at_t',
      'token',
      'merchant_token',
      'meta',
      'event_id',
      'updated_at',
      'version',
      'receive_amount',
      'receive_currency',
    ]);
    expect(callback!.json).toMatchObject({
      order_id: id,
      status: 'PAID',
      price_amount: 65,
      price_currency: 'USD',
      pay_amount: 0.001,
      pay_currency: 'BTC',
      token: 'merchant-check',
      merchant_token: 'merchant-check',
      receive_amount: 65,
      receive_currency: 'USD',
    });
    expect(callback!.headers['webhook-id']).toBe(callback!.json.event_id);
    const log = await call('GET', `/v1/orders/${id}/callbacks`, { token: merchant.api_token });
    expect(log.status).toBe(200);
    expect(log.body.callbacks).toHaveLength(1);
    expect(log.body.callbacks[0]).toMatchObject({ status: 'PAID', state: 'DELIVERED', attempt_count: 1 });
    expect(log.body.callbacks[0].attempts[0]).toMatchObject({ http_status: 200 });
  });

  it.each([
    [
      'all',
      'every transition sends one callback (delivery order may differ; version orders them)',
      { refunded: ['PENDING', 'PAID', 'REFUND_PENDING', 'REFUNDED'], canceled: ['CANCELED'], unresolved: ['UNRESOLVED', 'RESOLVED'], expired: ['EXPIRED'] },
    ],
    ['paid', 'by default only the change to PAID is called back (what MugglePay plugins are built for)', { refunded: ['PAID'], canceled: [], unresolved: [], expired: [] }],
  ] as const)('callback statuses %s: %s', async (setting, _, expected) => {
    const { newMerchant } = await import('../support/api');
    const shop = await newMerchant(true, `Shop ${setting}`, { callbackStatuses: setting });
    const merchantSite = await endpoint();
    const create = async (body: Record<string, unknown> = {}) =>
      (await call('POST', '/v1/orders', { token: shop.api_token, body: { price_amount: 65, pay_currency: 'BTC', callback_url: merchantSite.url, ...body } })).body.order.order_id as string;
    const pay = (id: string, body: Record<string, unknown>) => call('POST', `/v1/sandbox/orders/${id}/pay`, { token: shop.api_token, body });

    const refunded = await create();
    await pay(refunded, { confirmations: 0, txid: 'tx-r' });
    await pay(refunded, { txid: 'tx-r' });
    await call('POST', `/v1/orders/${refunded}/refund`, { token: shop.api_token, body: {} });
    await call('POST', `/v1/sandbox/orders/${refunded}/complete-refund`, { token: shop.api_token, body: {} });

    const canceled = await create();
    await call('POST', `/v1/orders/${canceled}/cancel`, { token: shop.api_token, body: {} });

    const unresolved = await create();
    await pay(unresolved, { amount: 0.0001 });
    await call('POST', `/v1/orders/${unresolved}/resolve`, { token: shop.api_token, body: {} });

    const expired = (await call('POST', '/v1/orders', { token: shop.api_token, body: { price_amount: 5, callback_url: merchantSite.url } })).body.order.order_id as string;
    await sleep(2100);
    const { expireDueOrders } = await import('#shared/services/expiry');
    expect(await expireDueOrders(new Date())).toBeGreaterThanOrEqual(1);

    const statuses = (id: string) => merchantSite.for(id).map((c) => c.json.status);
    await merchantSite.waitFor(
      () =>
        statuses(refunded).length >= expected.refunded.length &&
        statuses(canceled).length >= expected.canceled.length &&
        statuses(unresolved).length >= expected.unresolved.length &&
        statuses(expired).length >= expected.expired.length,
    );
    await sleep(1500);
    const byVersion = (id: string) => [...merchantSite.for(id)].sort((a, b) => a.json.version - b.json.version).map((c) => c.json.status);
    expect({ refunded: byVersion(refunded), canceled: byVersion(canceled), unresolved: byVersion(unresolved), expired: byVersion(expired) }).toEqual(expected);
    if (setting === 'all') {
      expect(merchantSite.for(unresolved).find((c) => c.json.status === 'UNRESOLVED')!.json.meta.unresolved_reason).toBe('UNDERPAID');
    }
    // The log lists only what was owed: nothing for a change the merchant is not called for.
    const log = await call('GET', `/v1/orders/${canceled}/callbacks`, { token: shop.api_token });
    expect(log.body.callbacks.map((c: { status: string }) => c.status)).toEqual(expected.canceled);
  });

  it('a stream record delivered twice sends one callback', async () => {
    const merchantSite = await endpoint();
    const id = await paidOrder(merchantSite.url);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 1);
    // Replay the delivery's INSERT record into the handler (the only records it gets), twice, as
    // a retried batch would: jobs for a delivery already made are dropped by the worker.
    const { listDeliveries, deliveryToItem } = await import('#shared/store/deliveries');
    const { marshall } = await import('@aws-sdk/util-dynamodb');
    const { handler } = await import('#functions/order-events/handler');
    const [delivered] = await listDeliveries(id);
    const asInserted = { ...delivered!, state: 'PENDING' as const, attempt_count: 0, attempts: [], delivered_at: undefined };
    const image = marshall(deliveryToItem(asInserted), { removeUndefinedValues: true }) as any;
    const record = {
      eventID: 'replay',
      eventName: 'INSERT' as const,
      dynamodb: { SequenceNumber: '1', Keys: { PK: image.PK, SK: image.SK }, NewImage: image },
    };
    expect(await handler({ Records: [record, record] } as any)).toEqual({ batchItemFailures: [] });
    await sleep(2500);
    expect(merchantSite.for(id)).toHaveLength(1);
  });

  it('redeliver queues the latest event again with the same webhook-id', async () => {
    const merchantSite = await endpoint();
    const id = await paidOrder(merchantSite.url);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 1);
    const again = await call('POST', `/v1/orders/${id}/callbacks/redeliver`, { token: merchant.api_token, body: {} });
    expect(again.status, again.text).toBe(200);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 2);
    const [first, second] = merchantSite.for(id);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.body).toBe(first!.body);
  });

  it('callback endpoints are owner-only', async () => {
    const merchantSite = await endpoint();
    const id = await paidOrder(merchantSite.url);
    const { newMerchant } = await import('../support/api');
    const other = await newMerchant();
    for (const [method, path] of [
      ['GET', `/v1/orders/${id}/callbacks`],
      ['POST', `/v1/orders/${id}/callbacks/redeliver`],
    ] as const) {
      const response = await call(method, path, { token: other.api_token, body: method === 'POST' ? {} : undefined });
      expect(response.status).toBe(404);
      expect(response.body.error_code).toBe('ORDER_NOT_FOUND');
    }
    const fresh = (await call('POST', '/v1/orders', { token: merchant.api_token, body: { price_amount: 1 } })).body.order.order_id;
    const none = await call('POST', `/v1/orders/${fresh}/callbacks/redeliver`, { token: merchant.api_token, body: {} });
    expect(none.status).toBe(400);
    expect(none.body.error_code).toBe('NO_CALLBACK');
  });
});
