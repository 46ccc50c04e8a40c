import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HyperionTransfers } from '#shared/watchers/sources/hyperion';
import { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import type { MerchantCredentials } from '#shared/services/merchants';
import { client, newMerchant } from '../support/api';
import { decodeIndependently } from '../support/bolt11-independent';
import { keepScreenshot, decodeQr, launchChromium, startPageServer } from '../support/browser';
import { HyperionTestServer } from '../support/hyperion-server';
import { lightningAndEosEnv } from '../support/indexed-env';
import { LndTestServer } from '../support/lnd-server';
import { testXpub } from '../support/watchers';
import { reportAllHealthy } from '../support/source-health';

/**
 * The payment page of a live merchant where Lightning (a local LND REST server issuing real
 * BOLT #11 invoices) and EOS (a local Hyperion history server) are configured, in real headless
 * Chromium: the page offers exactly what the merchant can be paid in, shows the Lightning
 * invoice and the EOS account and memo to copy, and turns PAID once the EOS watcher books the
 * irreversible transfer.
 */

type Json = Record<string, any>;
const ACCOUNT = 'pageshoppay1';

let lnd: LndTestServer;
let hyperion: HyperionTestServer;
let server: Awaited<ReturnType<typeof startPageServer>>;
let browser: Browser;
let context: BrowserContext;
let call: ReturnType<typeof client>;
let live: MerchantCredentials;

beforeAll(async () => {
  [lnd, hyperion] = await Promise.all([new LndTestServer().start(), new HyperionTestServer({ start: Date.now() }).start()]);
  // Read by the providers and the page's availability on first use.
  Object.assign(process.env, {
    ...lightningAndEosEnv(lnd, hyperion, ACCOUNT),
    // BTC has a platform key and a source; LTC has a source but no key; ETH neither.
    PLATFORM_XPUB_BTC: testXpub(),
    BTC_ESPLORA_URL: 'http://127.0.0.1:9/api',
    LTC_ESPLORA_URL: 'http://127.0.0.1:9/api',
  });
  server = await startPageServer();
  browser = await launchChromium();
  call = client(server.url);
  live = await newMerchant(false, 'Live Lightning Shop');
  // Live currencies are offered only while their source reports healthy, as the watchers would.
  await reportAllHealthy();
  context = await browser.newContext({ locale: 'en-US', viewport: { width: 414, height: 896 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
  await lnd?.stop();
  await hyperion?.stop();
});

async function createOrder(): Promise<{ order: Json; paymentUrl: string }> {
  const response = await call('POST', '/v1/orders', {
    token: live.api_token,
    body: { price_amount: 9.99, price_currency: 'USD', title: 'Monthly Program x 1', success_url: 'https://shop.example/thanks' },
  });
  expect(response.status, response.text).toBe(200);
  return { order: response.body.order, paymentUrl: response.body.payment_url };
}

const merchantView = async (orderId: string): Promise<Json> => (await call('GET', `/v1/orders/${orderId}`, { token: live.api_token })).body;
const status = (page: Page) => page.locator('#status');
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000, interval: 100 });
const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

describe('the payment page of a live merchant with Lightning and EOS configured', () => {
  it('offers only what the merchant can be paid in; Lightning shows the node’s invoice to copy, as a lightning: link and QR', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await context.newPage();
    await page.goto(paymentUrl);
    await eventually(() => status(page).textContent()).toBe('Choose how you want to pay.');
    expect(await page.locator('.picker button strong').allTextContents()).toEqual(['BTC', 'EOS', 'LBTC']);

    await page.getByRole('button', { name: /^LBTC/ }).click();
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    const { invoice } = await merchantView(order.order_id);
    expect(invoice.pay_currency).toBe('LBTC');
    // The node's own invoice (read with an independent decoder), for the amount shown.
    const decoded = decodeIndependently(invoice.payment_address);
    expect(decoded.payeeNodeKey).toBe(lnd.identityPubkey);
    expect(BigInt(decoded.amountMsat!)).toBe(BigInt(Math.round(invoice.pay_amount * 1e8)) * 1000n);
    const group = page.getByRole('group', { name: 'Lightning invoice' });
    expect(await group.locator('code').textContent()).toBe(invoice.payment_address);
    await group.getByRole('button', { name: 'Copy lightning invoice' }).click();
    expect(await clipboard(page)).toBe(invoice.payment_address);
    expect(await page.getByRole('link', { name: 'Open in wallet' }).getAttribute('href')).toBe(`lightning:${invoice.payment_address}`);
    expect(await decodeQr(page.getByRole('img', { name: /QR code/ }))).toBe(`lightning:${invoice.payment_address}`);
    await keepScreenshot(page, 'live-lightning');
    await page.close();
  });

  it('EOS shows the account and the memo, both to copy; the irreversible transfer booked by the watcher turns the page PAID', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await context.newPage();
    await page.goto(paymentUrl);
    await page.getByRole('button', { name: /^EOS/ }).click();
    await eventually(() => page.locator('[data-field="memo"]').count()).toBe(1);
    const { invoice } = await merchantView(order.order_id);
    expect(invoice).toMatchObject({ pay_currency: 'EOS', payment_address: ACCOUNT });
    const account = page.getByRole('group', { name: 'Account' });
    const memo = page.getByRole('group', { name: 'Memo (required)' });
    expect(await account.locator('code').textContent()).toBe(ACCOUNT);
    expect(await memo.locator('code').textContent()).toBe(invoice.memo);
    await account.getByRole('button', { name: 'Copy account' }).click();
    expect(await clipboard(page)).toBe(ACCOUNT);
    await memo.getByRole('button', { name: 'Copy memo (required)' }).click();
    expect(await clipboard(page)).toBe(invoice.memo);
    await keepScreenshot(page, 'live-eos');

    // The buyer pays; the watcher (as the local runtime runs it) books it once irreversible.
    const watcher = new IndexedWatcher(new HyperionTransfers({ url: hyperion.url, account: ACCOUNT }), { cursorName: `EOS-page-${randomUUID()}` });
    await watcher.step();
    hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: `${invoice.pay_amount.toFixed(4)} EOS`, memo: invoice.memo });
    expect((await watcher.step()).booked).toBe(0);
    hyperion.finalize();
    expect((await watcher.step()).booked).toBe(1);
    await eventually(() => status(page).textContent()).toBe('Payment received. Thank you!');
    await page.close();
  });
});
