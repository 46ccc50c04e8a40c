/**
 * Per-client quotas as AWS and the local runtime run them (issue 14, item 3; issue #42, item 4):
 * the handlers count each request in the DynamoDB table (QUOTA_STORE=table, as the stack and
 * `npm start` set it), here against DynamoDB Local behind the local runtime's adapter, which
 * counts nothing of its own. The source address is the connection's, as API Gateway reports it
 * (or, behind a proxy the operator names, the last entry of its header); no other header chooses
 * the quota.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { quotaKey } from '#shared/store/keys';
import { takeFromWindow, windowLimit, windowOf } from '#shared/store/quotas';
import { client, newMerchant, startApi } from '../support/api';
import { expectRateLimited, requestFrom } from '../support/quotas';
import { recordAttack } from '../support/security-report';

// Read by the handlers' configuration on first use, which is after this.
const saved = { ...process.env };
Object.assign(process.env, { QUOTA_STORE: 'table', QUOTA_MERCHANT_RATE: '1', QUOTA_MERCHANT_BURST: '5', QUOTA_PUBLIC_RATE: '1', QUOTA_PUBLIC_BURST: '5' });
const WINDOW_MS = 5000;
const BURST = 5;

let api: Awaited<ReturnType<typeof startApi>>;
let behindProxy: Awaited<ReturnType<typeof startApi>>;

beforeAll(async () => {
  api = await startApi();
  behindProxy = await startApi({ clientIpHeader: 'X-Client-Address' });
});
afterAll(async () => {
  await api.close();
  await behindProxy.close();
  process.env = saved;
});

/** Waits for the start of a fresh 5 s window, so a test's requests all fall in one. */
async function freshWindow(): Promise<void> {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < 3500) await new Promise((resolve) => setTimeout(resolve, left + 20));
}

describe('the table quota (fixed windows)', () => {
  it('turns a rate and burst into a window: the burst refills at the rate, the average is the rate', () => {
    expect(windowLimit(10, 20)).toEqual({ limit: 20, windowSeconds: 2 });
    expect(windowLimit(5, 10)).toEqual({ limit: 10, windowSeconds: 2 });
    expect(windowLimit(10, 5)).toEqual({ limit: 10, windowSeconds: 1 });
    expect(windowLimit(1, 5)).toEqual({ limit: 5, windowSeconds: 5 });
  });

  it('admits `limit` requests a window, refuses the next until the window ends, and expires its items', async () => {
    const key = `test-${randomUUID()}`;
    const limit = { limit: 2, windowSeconds: 10 };
    const start = 1_800_000_000_000; // a window boundary (divisible by 10 s)
    expect(await takeFromWindow(key, limit, start)).toEqual({ allowed: true, used: 1 });
    expect(await takeFromWindow(key, limit, start + 1000)).toEqual({ allowed: true, used: 2 });
    expect(await takeFromWindow(key, limit, start + 2500)).toEqual({ allowed: false, retryAfterSeconds: 8 });
    expect(await takeFromWindow(key, limit, start + 9999)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await takeFromWindow(key, limit, start + 10_000)).toEqual({ allowed: true, used: 1 });
    const item = await db().send(new GetCommand({ TableName: tableName(), Key: quotaKey(key, start / 10_000) }));
    // Refused requests change nothing: the count stays at the limit.
    expect(item.Item).toMatchObject({ used: 2, type: 'QUOTA', expires_at_epoch: start / 1000 + 10 + 60 });
    expect(await takeFromWindow(`${key}-other`, limit, start + 2500)).toEqual({ allowed: true, used: 1 });
  });
});

describe('handlers with QUOTA_STORE=table', () => {
  it('limit each merchant on its own; other merchants and anonymous buyers are untouched', async () => {
    const call = client(api.url);
    const a = await newMerchant(true, 'Table Quota A');
    const b = await newMerchant(true, 'Table Quota B');
    const order = (await call('POST', '/v1/orders', { token: b.api_token, body: { price_amount: 5 } })).body.order.order_id as string;
    await freshWindow();
    for (let i = 0; i < 5; i += 1) expect((await call('GET', '/v1/orders', { token: a.api_token })).status).toBe(200);
    expectRateLimited(await call('GET', '/v1/orders', { token: a.api_token }));
    // Refused after authentication, before the body is even parsed.
    expectRateLimited(await call('POST', '/v1/orders', { token: a.api_token, rawBody: '{not json' }));
    expect((await call('GET', '/v1/orders', { token: b.api_token })).status).toBe(200);
    expect((await requestFrom('127.0.0.6', `${api.url}/v1/pay/${order}`)).status).toBe(200);
  });

  it('counts a GET beside its reads: over the quota it answers 429 whatever the endpoint answered (a missing order too)', async () => {
    const call = client(api.url);
    const c = await newMerchant(true, 'Table Quota C');
    const missing = randomUUID();
    await freshWindow();
    for (let i = 0; i < 5; i += 1) expect((await call('GET', `/v1/orders/${missing}`, { token: c.api_token })).status).toBe(404);
    expectRateLimited(await call('GET', `/v1/orders/${missing}`, { token: c.api_token }));
    expectRateLimited(await call('GET', '/v1/orders', { token: c.api_token }));
  });

  it('answers requests well inside the quota before their counts come back, and every count still lands', async () => {
    const call = client(api.url);
    const d = await newMerchant(true, 'Table Quota D');
    await freshWindow();
    const window = windowOf(windowLimit(1, 5), Date.now());
    // Half of 5 is 2.5: two requests may go ahead of their counts, the rest wait for theirs.
    for (let i = 0; i < 5; i += 1) expect((await call('GET', '/v1/orders', { token: d.api_token })).status).toBe(200);
    const used = async () => (await db().send(new GetCommand({ TableName: tableName(), Key: quotaKey(`M${d.user_id}`, window), ConsistentRead: true }))).Item?.used;
    await vi.waitFor(async () => expect(await used()).toBe(5), { timeout: 5000 });
    expectRateLimited(await call('GET', '/v1/orders', { token: d.api_token }));
    expect(await used()).toBe(5);
  });

  it('limit each source address on the payment page routes; forged X-Forwarded-For changes nothing', async () => {
    const b = await newMerchant(true, 'Table Quota Seller');
    const order = (await client(api.url)('POST', '/v1/orders', { token: b.api_token, body: { price_amount: 5 } })).body.order.order_id as string;
    const url = `${api.url}/v1/pay/${order}`;
    await freshWindow();
    for (let i = 0; i < 5; i += 1) expect((await requestFrom('127.0.0.7', url, { headers: { 'x-forwarded-for': `198.51.100.${i}` } })).status).toBe(200);
    expectRateLimited(await requestFrom('127.0.0.7', url, { headers: { 'x-forwarded-for': '198.51.100.200' } }));
    expect((await requestFrom('127.0.0.8', url)).status).toBe(200);
  });
});

describe('the local runtime behind a proxy (QUOTA_CLIENT_IP_HEADER)', () => {
  it('keys on the last address of the configured header, so a prepended forged entry does not help', async () => {
    const seller = await newMerchant(true, 'Table Quota Proxy Seller');
    const order = (await client(api.url)('POST', '/v1/orders', { token: seller.api_token, body: { price_amount: 5 } })).body.order.order_id as string;
    const url = `${behindProxy.url}/v1/pay/${order}`;
    await freshWindow();
    for (let i = 0; i < BURST; i += 1) expect((await requestFrom('127.0.0.5', url, { headers: { 'x-client-address': '203.0.113.7' } })).status).toBe(200);
    expectRateLimited(await requestFrom('127.0.0.5', url, { headers: { 'x-client-address': '203.0.113.7' } }));
    expectRateLimited(await requestFrom('127.0.0.5', url, { headers: { 'x-client-address': '192.0.2.1, 203.0.113.7' } }));
    // Another client behind the same proxy (same socket address) has its own quota.
    expect((await requestFrom('127.0.0.5', url, { headers: { 'x-client-address': '203.0.113.8' } })).status).toBe(200);
  });
});

describe('quota exhaustion, as docs/security.md reports it', () => {
  it('a merchant and an address flooding get 429 past their quota; a merchant and an address beside them get every answer', async () => {
    const call = client(api.url);
    const flooder = await newMerchant(true, 'Table Quota Flooder');
    const bystander = await newMerchant(true, 'Table Quota Bystander');
    const order = (await call('POST', '/v1/orders', { token: bystander.api_token, body: { price_amount: 5 } })).body.order.order_id as string;
    const page = `${api.url}/v1/pay/${order}`;
    const tally = new Map<string, number>();
    const count = (who: string, status: number) => tally.set(`${who} ${status}`, (tally.get(`${who} ${status}`) ?? 0) + 1);
    await freshWindow();
    for (let i = 0; i < 30; i += 1) {
      count('flooding merchant', (await call('GET', '/v1/orders', { token: flooder.api_token })).status);
      count('flooding address', (await requestFrom('127.0.0.9', page)).status);
      // Within their own quotas: every one of these must be answered.
      if (i % 10 === 0) {
        count('other merchant', (await call('GET', '/v1/orders', { token: bystander.api_token })).status);
        count('other address', (await requestFrom('127.0.0.10', page)).status);
      }
    }
    expect(Object.fromEntries(tally)).toEqual({
      'flooding merchant 200': BURST,
      'flooding merchant 429': 30 - BURST,
      'flooding address 200': BURST,
      'flooding address 429': 30 - BURST,
      'other merchant 200': 3,
      'other address 200': 3,
    });
    recordAttack('quota-exhaustion', {
      attack: `One merchant and one client address each sending far past their quota (${BURST} a ${WINDOW_MS / 1000} s window here) while another merchant and another address go on`,
      count: [...tally.values()].reduce((sum, n) => sum + n, 0),
      outcome: `${[...tally].map(([what, n]) => `${what} x${n}`).join(', ')}; every 429 is API_LIMIT_EXCEEDED with Retry-After; counted in the table, as in AWS and npm start; a forged X-Forwarded-For buys no new quota`,
      test: 'tests/integration/quotas-table.test.ts',
    });
  });
});
