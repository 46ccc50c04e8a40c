/**
 * Per-client quotas in the local runtime's HTTP adapter (issue 14, item 3): one merchant
 * using up its quota leaves other merchants and anonymous clients untouched, one address using
 * up the payment page's quota leaves other addresses untouched, and a client cannot pick a new
 * bucket by writing X-Forwarded-For. Limits are tiny and refill slowly (one token per 1000 s),
 * so nothing refills while a test runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newMerchant, startApi } from '../support/api';
import { expectRateLimited, requestFrom } from '../support/quotas';
import { recordAttack } from '../support/security-report';

const limits = { merchant: { rate: 0.001, burst: 3 }, public: { rate: 0.001, burst: 3 }, maxKeys: 100 };

let api: Awaited<ReturnType<typeof startApi>>;
let behindProxy: Awaited<ReturnType<typeof startApi>>;
let orderId: string;

beforeAll(async () => {
  api = await startApi({ quotas: limits });
  behindProxy = await startApi({ quotas: { ...limits, clientIpHeader: 'X-Client-Address' } });
  // The order the public requests read, made through an API without quotas.
  const plain = await startApi();
  const seller = await newMerchant(true, 'Quota Seller');
  orderId = (await client(plain.url)('POST', '/v1/orders', { token: seller.api_token, body: { price_amount: 5 } })).body.order.order_id;
  await plain.close();
});
afterAll(async () => {
  await api.close();
  await behindProxy.close();
});

describe('merchant quotas', () => {
  it('limit each merchant on its own: A is refused with 429 and Retry-After, B and anonymous buyers are not', async () => {
    const call = client(api.url);
    const a = await newMerchant(true, 'Quota A');
    const b = await newMerchant(true, 'Quota B');
    for (let i = 0; i < 3; i += 1) expect((await call('GET', '/v1/orders', { token: a.api_token })).status).toBe(200);
    expectRateLimited(await call('GET', '/v1/orders', { token: a.api_token }), 100);
    // Every route of the merchant shares its quota; a POST is refused before its body is read.
    expectRateLimited(await call('POST', '/v1/orders', { token: a.api_token, rawBody: '{not json' }));

    for (let i = 0; i < 3; i += 1) expect((await call('GET', '/v1/orders', { token: b.api_token })).status).toBe(200);
    expect((await requestFrom('127.0.0.1', `${api.url}/v1/pay/${orderId}`)).status).toBe(200);
    // A wrong token is the handler's 401, never a quota's 429.
    expect((await call('GET', '/v1/orders', { token: `${a.api_token}x` })).status).toBe(401);
  });
});

describe('anonymous quotas on the payment page routes', () => {
  it('limit each source address on its own', async () => {
    const url = `${api.url}/v1/pay/${orderId}`;
    for (let i = 0; i < 3; i += 1) expect((await requestFrom('127.0.0.2', url)).status).toBe(200);
    expectRateLimited(await requestFrom('127.0.0.2', url));
    expectRateLimited(await requestFrom('127.0.0.2', `${api.url}/v1/pay/${orderId}/checkout`, { method: 'POST', body: '{"pay_currency":"BTC"}' }));
    expect((await requestFrom('127.0.0.3', url)).status).toBe(200);
  });

  it('ignore X-Forwarded-For unless configured: a forged header does not buy a fresh bucket', async () => {
    const url = `${api.url}/v1/pay/${orderId}`;
    const forged = (n: number) => ({ 'x-forwarded-for': `198.51.100.${n}`, 'x-real-ip': `198.51.100.${n}` });
    for (let i = 0; i < 3; i += 1) expect((await requestFrom('127.0.0.4', url, { headers: forged(i) })).status).toBe(200);
    expectRateLimited(await requestFrom('127.0.0.4', url, { headers: forged(99) }));
  });

  it('behind a proxy, use the last address of the configured header, so a prepended forged entry does not help', async () => {
    const url = `${behindProxy.url}/v1/pay/${orderId}`;
    for (let i = 0; i < 3; i += 1) expect((await requestFrom('127.0.0.5', url, { headers: { 'x-client-address': '203.0.113.7' } })).status).toBe(200);
    expectRateLimited(await requestFrom('127.0.0.5', url, { headers: { 'x-client-address': '203.0.113.7' } }));
    expectRateLimited(await requestFrom('127.0.0.5', url, { headers: { 'x-client-address': '192.0.2.1, 203.0.113.7' } }));
    // Another client behind the same proxy (same socket address) has its own bucket.
    expect((await requestFrom('127.0.0.5', url, { headers: { 'x-client-address': '203.0.113.8' } })).status).toBe(200);
  });
});

describe('quota exhaustion, as docs/security.md reports it', () => {
  it('a merchant and an address flooding get 429 past their burst; a merchant and an address beside them get every answer', async () => {
    const call = client(api.url);
    const flooder = await newMerchant(true, 'Quota Flooder');
    const bystander = await newMerchant(true, 'Quota Bystander');
    const page = `${api.url}/v1/pay/${orderId}`;
    const tally = new Map<string, number>();
    const count = (who: string, status: number) => tally.set(`${who} ${status}`, (tally.get(`${who} ${status}`) ?? 0) + 1);
    for (let i = 0; i < 50; i += 1) {
      count('flooding merchant', (await call('GET', '/v1/orders', { token: flooder.api_token })).status);
      count('flooding address', (await requestFrom('127.0.0.9', page)).status);
      // Within their own bursts: every one of these must be answered.
      if (i % 20 === 0) {
        count('other merchant', (await call('GET', '/v1/orders', { token: bystander.api_token })).status);
        count('other address', (await requestFrom('127.0.0.10', page)).status);
      }
    }
    const burst = limits.merchant.burst;
    expect(Object.fromEntries(tally)).toEqual({
      'flooding merchant 200': burst,
      'flooding merchant 429': 50 - burst,
      'flooding address 200': limits.public.burst,
      'flooding address 429': 50 - limits.public.burst,
      'other merchant 200': 3,
      'other address 200': 3,
    });
    recordAttack('quota-exhaustion', {
      attack: 'One merchant and one client address each sending far past their quota (burst 3 here) while another merchant and another address go on',
      count: [...tally.values()].reduce((sum, n) => sum + n, 0),
      outcome: `${[...tally].map(([what, n]) => `${what} x${n}`).join(', ')}; every 429 is API_LIMIT_EXCEEDED with Retry-After; a forged X-Forwarded-For buys no new bucket`,
      test: 'tests/integration/quotas-local.test.ts',
    });
  });
});
