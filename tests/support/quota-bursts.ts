/**
 * The default quotas against real traffic (issue 21, item 3), run by
 * tests/integration/quotas-defaults-table.test.ts (the handlers count in the table, as in AWS
 * and the local runtime; here DynamoDB Local): what the
 * published MugglePay clients do in normal use (a shop's back end reading a few orders and then
 * creating 20 at once; a catalogue sync of 50 at once) passes untouched; a client flooding far
 * past that still gets 429 with Retry-After, and the payment page's anonymous routes stay tight.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readQuotaConfig } from '#shared/core/config';
import { client, newMerchant, startApi } from './api';
import { expectRateLimited, requestFrom } from './quotas';

export function describeDefaultQuotas(): void {
  const defaults = readQuotaConfig({});
  const saved = { ...process.env };

  let server: Awaited<ReturnType<typeof startApi>>;

  beforeAll(async () => {
    // No QUOTA_*_RATE or _BURST: the handlers and the adapter use the defaults.
    for (const name of Object.keys(process.env)) if (name.startsWith('QUOTA_')) delete process.env[name];
    // QUOTA_STORE=table as the stack and the local runtime set it; unset, the handlers count nothing.
    process.env.QUOTA_STORE = 'table';
    server = await startApi();
  });
  afterAll(async () => {
    await server?.close();
    process.env = saved;
  });

  /** The table counts in fixed windows: start at the beginning of one so a burst falls in it. */
  async function freshWindow(): Promise<void> {
    const windowMs = Math.max(1, Math.ceil(defaults.merchant.burst / defaults.merchant.rate)) * 1000;
    const into = Date.now() % windowMs;
    if (into > 100) await new Promise((resolve) => setTimeout(resolve, windowMs - into + 20));
  }

  const order = (i: number) => ({ price_amount: '19.90', price_currency: 'USD', merchant_order_id: `burst-${randomUUID()}-${i}`, title: `Order ${i}` });

  describe('the default quotas', () => {
    it('are a burst of 50 and tens of requests a second per merchant; the page routes stay at 5/s, 10 at once', () => {
      expect(defaults.merchant.burst).toBeGreaterThanOrEqual(50);
      expect(defaults.merchant.rate).toBeGreaterThanOrEqual(20);
      expect(defaults.public).toEqual({ rate: 5, burst: 10 });
    });

    describe('counted in the table', () => {
      const api = () => server;

      it('a shop back end reading a few orders, then creating 20 at once: every answer is 200', async () => {
        const call = client(api().url);
        const shop = await newMerchant(true, 'Busy Shop');
        await freshWindow();
        for (let i = 0; i < 3; i += 1) expect((await call('GET', '/v1/orders', { token: shop.api_token })).status).toBe(200);
        const created = await Promise.all(Array.from({ length: 20 }, (_, i) => call('POST', '/v1/orders', { token: shop.api_token, body: order(i) })));
        expect(created.map((response) => response.status)).toEqual(Array(20).fill(200));
      });

      it('a burst of 50 at once passes; a flood far past it gets 429 with Retry-After', async () => {
        const call = client(api().url);
        const shop = await newMerchant(true, 'Syncing Shop');
        await freshWindow();
        const burst = await Promise.all(Array.from({ length: 50 }, () => call('GET', '/v1/orders', { token: shop.api_token })));
        expect(burst.map((response) => response.status)).toEqual(Array(50).fill(200));
        const flood = await Promise.all(Array.from({ length: 150 }, () => call('GET', '/v1/orders', { token: shop.api_token })));
        const refused = flood.filter((response) => response.status === 429);
        expect(refused.length).toBeGreaterThan(0);
        expectRateLimited(refused[0]!);
        expect(flood.every((response) => response.status === 200 || response.status === 429)).toBe(true);
      });

      it('the payment page routes: one address gets 10 at once, then 429', async () => {
        const shop = await newMerchant(true, 'Page Shop');
        const created = await client(api().url)('POST', '/v1/orders', { token: shop.api_token, body: { price_amount: 5 } });
        const url = `${api().url}/v1/pay/${created.body.order.order_id as string}`;
        const address = '127.0.0.21';
        await freshWindow();
        const answers = await Promise.all(Array.from({ length: 20 }, () => requestFrom(address, url)));
        expect(answers.filter((response) => response.status === 200).length).toBeLessThanOrEqual(defaults.public.burst * 2);
        expectRateLimited(answers.find((response) => response.status === 429)!);
      });
    });
  });
}
