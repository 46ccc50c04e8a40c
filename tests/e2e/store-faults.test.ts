import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTable, startDynamoDbLocal, type LocalDynamoDb } from '#infra/local/dynamodb';
import { freePort } from '#infra/local/ports';

/**
 * DynamoDB stopped and restarted under a running API. What may be lost: nothing. Requests
 * made while the store is down fail with a clean, retryable 503 JSON error (never a 500, a
 * hang or a half-written order); everything acknowledged before is there after the restart.
 */
const TABLE = 'faults-orders';
const dataDir = mkdtempSync(join(tmpdir(), 'store-faults-'));
let port: number;
let dynamodb: LocalDynamoDb | undefined;
let api: { url: string; close: () => Promise<void> };
let call: (method: string, path: string, options?: any) => Promise<any>;
let token: string;

const startStore = async () => (dynamodb = await startDynamoDbLocal({ port, dataDir }));

beforeAll(async () => {
  port = await freePort();
  await startStore();
  await ensureTable(dynamodb!.endpoint, TABLE);
  // This file's API talks to its own DynamoDB Local, which the test stops and restarts.
  Object.assign(process.env, { TABLE_NAME: TABLE, DYNAMODB_ENDPOINT: dynamodb!.endpoint, AUTH_CACHE_SECONDS: '0' });
  const support = await import('../support/api');
  api = await support.startApi();
  call = support.client(api.url);
  token = (await support.newMerchant()).api_token;
});

afterAll(async () => {
  await api?.close();
  await dynamodb?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the store goes away and comes back', () => {
  it('answers 503 while DynamoDB is down, then recovers with nothing lost or half-written', async () => {
    const before = await call('POST', '/v1/orders', { token, body: { price_amount: 10, merchant_order_id: 'before-outage', pay_currency: 'BTC' } });
    expect(before.status).toBe(200);
    const orderId = before.body.order.order_id;

    await dynamodb!.stop();
    dynamodb = undefined;

    const requests = [
      call('POST', '/v1/orders', { token, body: { price_amount: 11, merchant_order_id: 'during-outage' } }),
      call('GET', `/v1/orders/${orderId}`, { token }),
      call('POST', `/v1/orders/${orderId}/checkout`, { token, body: { pay_currency: 'ETH' } }),
      call('GET', '/v1/orders/', { token }),
      call('POST', `/v1/sandbox/orders/${orderId}/pay`, { token, body: {} }),
    ];
    for (const response of await Promise.all(requests)) {
      expect(response.status, response.text).toBe(503);
      expect(response.body).toEqual({
        status: 503,
        error: 'The service is temporarily unavailable, please retry.',
        error_code: 'SERVICE_UNAVAILABLE',
      });
    }

    await startStore();
    // Recovered: the order from before is intact and unchanged by the failed requests.
    const after = await call('GET', `/v1/orders/${orderId}`, { token });
    expect(after.status, after.text).toBe(200);
    expect(after.body.order).toMatchObject({ status: 'NEW', pay_currency: 'BTC', updated_at: before.body.order.updated_at });
    expect(after.body.invoice.pay_currency).toBe('BTC');
    // The create that failed during the outage left nothing: retrying it succeeds once.
    const orders = (await call('GET', '/v1/orders/?limit=50', { token })).body.orders;
    expect(orders.map((o: any) => o.merchant_order_id)).toEqual(['before-outage']);
    const retried = await call('POST', '/v1/orders', { token, body: { price_amount: 11, merchant_order_id: 'during-outage' } });
    expect(retried.status).toBe(200);
    const paid = await call('POST', `/v1/sandbox/orders/${orderId}/pay`, { token, body: {} });
    expect(paid.body.order.status).toBe('PAID');
  });
});
