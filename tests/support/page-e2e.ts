import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { client, newMerchant } from './api';
import { launchChromium, startPageServer, startShopSite } from './browser';
import type { MerchantCredentials } from '#shared/services/merchants';

/**
 * What the payment page's browser tests share (page.test.ts, page-edges.test.ts): the API's
 * real handlers and the built page on one port, a shop site, headless Chromium, a sandbox and a
 * live merchant. {@link usePaymentPage} starts them for a test file; the bindings below are
 * set once it has.
 */

export type Json = Record<string, any>;

export let server: Awaited<ReturnType<typeof startPageServer>>;
export let shop: Awaited<ReturnType<typeof startShopSite>>;
export let browser: Browser;
export let english: BrowserContext;
export let call: ReturnType<typeof client>;
export let merchant: MerchantCredentials;
export let live: MerchantCredentials;

/** Starts the page's server, the shop, the browser and the merchants for this test file, and stops them after it. */
export function usePaymentPage(): void {
  beforeAll(async () => {
    // The platform says it has Alipay credentials (as the stack tells every function) while the
    // gateway functions find none: the page offers ALIPAY and its checkout fails closed.
    process.env.LIVE_GATEWAYS = 'ALIPAY';
    // First: PAYMENT_PAGE_URL must name this server before any handler module loads.
    server = await startPageServer();
    [shop, browser] = await Promise.all([startShopSite(), launchChromium()]);
    call = client(server.url);
    [merchant, live] = await Promise.all([newMerchant(true, 'Page Shop'), newMerchant(false, 'Live Shop')]);
    english = await browser.newContext({ locale: 'en-US', viewport: { width: 414, height: 896 } });
    await english.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  });

  afterAll(async () => {
    await english?.close();
    await browser?.close();
    await shop?.close();
    await server?.close();
  });
}

/** Creates an order as the merchant's site does; returns it with its payment_url. */
export async function createOrder(extra: Json = {}, credentials = merchant): Promise<{ order: Json; paymentUrl: string }> {
  const response = await call('POST', '/v1/orders', {
    token: credentials.api_token,
    body: {
      price_amount: 9.99,
      price_currency: 'USD',
      title: 'Monthly Program x 1',
      description: 'Game Pass Friends and Family',
      success_url: `${shop.url}/thanks?ref=${randomUUID()}`,
      cancel_url: `${shop.url}/cart?ref=${randomUUID()}`,
      token: `cb-${randomUUID()}`,
      ...extra,
    },
  });
  expect(response.status, response.text).toBe(200);
  return { order: response.body.order, paymentUrl: response.body.payment_url };
}

export const merchantView = async (orderId: string): Promise<Json> => (await call('GET', `/v1/orders/${orderId}`, { token: merchant.api_token })).body;

export async function open(url: string, context = english): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

export const status = (page: Page) => page.locator('#status');

/** Retries until it matches: page loads and polls take their time, more so under a busy test run. */
export const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000, interval: 100 });
