import { afterAll, beforeAll, expect } from 'vitest';
import type { LocalSqs } from '#infra/local/sqs';
import { MerchantEndpoint } from './merchant-endpoint';
import { startPipeline } from './pipeline';

/**
 * The callback pipeline end to end on the real local parts for one test file: its own table
 * (so its stream carries only its orders), the order-events handler, the SQS emulator, the
 * delivery handler, an API, a merchant, and real HTTP merchant endpoints on loopback. Orders
 * never checked out expire after 2 s, so expiry happens for real.
 */
export function useCallbackPipeline(table: string) {
  const merchant = {} as { user_id: number; api_token: string; callback_secret: string };
  const sqs = {} as Omit<LocalSqs, 'stop'>;
  const endpoints: MerchantEndpoint[] = [];
  let stopPipeline: (() => Promise<void>) | undefined;
  let client: ((method: string, path: string, options?: any) => Promise<any>) | undefined;

  beforeAll(async () => {
    const started = await startPipeline(table, { CALLBACK_TIMEOUT_MS: '2000', ORDER_TTL_SECONDS: '2' });
    stopPipeline = started.stop;
    const { endpoint, callbackQueueUrl, callbackDeadLetterQueueUrl } = started.sqs;
    Object.assign(sqs, { endpoint, callbackQueueUrl, callbackDeadLetterQueueUrl });
    client = started.support.client(started.api.url);
    Object.assign(merchant, await started.support.newMerchant());
  });

  afterAll(async () => {
    await stopPipeline?.();
    for (const started of endpoints) await started.stop();
  });

  const call = (method: string, path: string, options?: any): Promise<any> => client!(method, path, options);

  async function endpoint(responder?: ConstructorParameters<typeof MerchantEndpoint>[0]) {
    const started = await new MerchantEndpoint(responder).start();
    endpoints.push(started);
    return started;
  }

  /** A sandbox order of the merchant paid at once, calling back `callbackUrl`. */
  async function paidOrder(callbackUrl: string, extra: Record<string, unknown> = {}) {
    const created = await call('POST', '/v1/orders', {
      token: merchant.api_token,
      body: { price_amount: 65, price_currency: 'USD', pay_currency: 'BTC', callback_url: callbackUrl, token: 'merchant-check', merchant_order_id: `m-${Math.random()}`, ...extra },
    });
    expect(created.status, created.text).toBe(200);
    const id = created.body.order.order_id as string;
    const paid = await call('POST', `/v1/sandbox/orders/${id}/pay`, { token: merchant.api_token, body: {} });
    expect(paid.body.order.status).toBe('PAID');
    return id;
  }

  return { merchant, sqs, call, endpoint, endpoints, paidOrder };
}
