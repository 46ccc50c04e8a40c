import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newMerchant } from '../support/api';
import { artifact, decodeQr, fitsViewport, launchChromium, startPageServer, startShopSite } from '../support/browser';
import type { MerchantCredentials } from '#shared/services/merchants';

/**
 * The hosted payment page in real headless Chromium, against the API's real handlers and the
 * built page on one port (as `npm start` serves them), with DynamoDB Local behind. Each state
 * leaves a screenshot in tests/artifacts/page-*.png for review.
 */

type Json = Record<string, any>;

/** axe-core's browser build, injected into the page for an accessibility audit. */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let server: Awaited<ReturnType<typeof startPageServer>>;
let shop: Awaited<ReturnType<typeof startShopSite>>;
let browser: Browser;
let english: BrowserContext;
let call: ReturnType<typeof client>;
let merchant: MerchantCredentials;
let live: MerchantCredentials;

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

/** Creates an order as the merchant's site does; returns it with its payment_url. */
async function createOrder(extra: Json = {}, credentials = merchant): Promise<{ order: Json; paymentUrl: string }> {
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

const merchantView = async (orderId: string): Promise<Json> =>
  (await call('GET', `/v1/orders/${orderId}`, { token: merchant.api_token })).body;

async function open(url: string, context = english): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  return page;
}

const status = (page: Page) => page.locator('#status');

/** Retries until it matches: page loads and polls take their time, more so under a busy test run. */
const eventually = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 10_000, interval: 100 });

describe('the payment page', () => {
  it('works from payment_url: merchant, title, description, price and the currencies to pick', async () => {
    const { order, paymentUrl } = await createOrder();
    expect(paymentUrl).toBe(`${server.pageUrl}?id=${order.order_id}`);
    const page = await open(paymentUrl);
    await eventually(() => status(page).textContent()).toBe('Choose how you want to pay.');
    expect(await page.locator('h1').textContent()).toBe('Monthly Program x 1');
    expect(await page.locator('.merchant').textContent()).toBe('Payment to Page Shop');
    expect(await page.locator('.description').textContent()).toBe('Game Pass Friends and Family');
    expect(await page.locator('.price strong').textContent()).toBe('9.99 USD');
    expect(await page.locator('.badge').textContent()).toContain('Sandbox');
    const currencies = await page.locator('.picker button strong').allTextContents();
    expect(currencies).toEqual(['BTC', 'LTC', 'ETH', 'USDT_ERC20', 'USDC_ERC20', 'USDT_TRC20', 'USDT_ARB', 'USDC_ARB', 'ETH_ARB', 'USDC_BASE', 'ETH_BASE', 'USDC_POL', 'USDT_BNB', 'USDT_CELO', 'CUSD', 'USDC_SOL', 'EOS', 'BCH', 'LBTC', 'ALIPAY', 'ALIGLOBAL', 'WECHAT']);
    expect(await page.title()).toBe('Monthly Program x 1 · Page Shop');
    await page.screenshot({ path: artifact('order'), fullPage: true });
    await page.close();
  });

  it('picking USDT on Ethereum shows the amount in USDT to 6 decimals and a QR code of the token transfer URI', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await open(paymentUrl);
    await page.getByRole('button', { name: /^USDT_ERC20/ }).click();
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    const { invoice } = await merchantView(order.order_id);
    expect(invoice).toMatchObject({ pay_currency: 'USDT_ERC20', pay_amount: 9.99 });
    expect(invoice.payment_uri).toBe(
      `ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${invoice.payment_address}&uint256=9990000`,
    );
    expect(await page.locator('[data-field="amount"]').textContent()).toBe('9.990000');
    expect(await page.locator('#amount-label').textContent()).toContain('(USDT)');
    expect(await page.locator('[data-field="address"]').textContent()).toBe(invoice.payment_address);
    expect(await page.locator('[data-field="network"]').textContent()).toBe('Ethereum');
    expect(await decodeQr(page.getByRole('img', { name: /QR code of the USDT \(Ethereum\) payment request/ }))).toBe(invoice.payment_uri);
    await page.screenshot({ path: artifact('usdt-erc20'), fullPage: true });
    await page.close();
  });

  it('USDT on Arbitrum names its network plainly, warns against others, and its QR code is the EIP-681 transfer on chain 42161', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await open(paymentUrl);
    await page.getByRole('button', { name: /^USDT_ARB/ }).click();
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    const { invoice } = await merchantView(order.order_id);
    expect(invoice.payment_uri).toBe(
      `ethereum:0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9@42161/transfer?address=${invoice.payment_address}&uint256=9990000`,
    );
    expect(await page.locator('[data-field="network"]').textContent()).toBe('Arbitrum One');
    expect(await page.locator('[data-k="network-hint"]').textContent()).toContain('Send on Arbitrum One only');
    expect(await page.locator('#amount-label').textContent()).toContain('(USDT)');
    expect(await decodeQr(page.getByRole('img', { name: /QR code of the USDT \(Arbitrum One\) payment request/ }))).toBe(invoice.payment_uri);
    await page.screenshot({ path: artifact('usdt-arb'), fullPage: true });
    await page.close();
  });

  it('USDT on TRON names TRON as its network and its QR code is the TRON URI with the token contract', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await open(paymentUrl);
    await page.getByRole('button', { name: /^USDT_TRC20/ }).click();
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    const { invoice } = await merchantView(order.order_id);
    expect(invoice.payment_address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(invoice.payment_uri).toBe(`tron:${invoice.payment_address}?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&amount=9.990000`);
    expect(await page.locator('[data-field="network"]').textContent()).toBe('TRON');
    expect(await decodeQr(page.getByRole('img', { name: /QR code of the USDT \(TRON\) payment request/ }))).toBe(invoice.payment_uri);
    await page.close();
  });

  it('USDC on Solana shows the Solana Pay request: the wallet, the reference it carries, the network, and its QR code', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await open(paymentUrl);
    await page.getByRole('button', { name: /^USDC_SOL/ }).click();
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    const { invoice } = await merchantView(order.order_id);
    expect(invoice.payment_uri).toBe(
      `solana:${invoice.payment_address}?amount=9.990000&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&reference=${invoice.memo}`,
    );
    expect(await page.locator('[data-field="network"]').textContent()).toBe('Solana');
    expect(await page.locator('#memo-label').textContent()).toBe('Reference');
    expect(await page.locator('[data-field="memo"]').textContent()).toBe(invoice.memo);
    expect(await decodeQr(page.getByRole('img', { name: /QR code of the USDC \(Solana\) payment request/ }))).toBe(invoice.payment_uri);
    await page.screenshot({ path: artifact('usdc-sol'), fullPage: true });
    await page.close();
  });

  it('picking BTC (by keyboard) shows the amount, address, wallet link, countdown and a QR code of exactly payment_uri', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await open(paymentUrl);
    const btc = page.getByRole('button', { name: /^BTC/ });
    await btc.focus();
    await page.keyboard.press('Enter');
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    const { invoice } = await merchantView(order.order_id);
    expect(invoice.pay_currency).toBe('BTC');
    expect(await btc.getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('[data-field="address"]').textContent()).toBe(invoice.payment_address);
    expect(await page.locator('[data-field="amount"]').textContent()).toBe(invoice.pay_amount.toFixed(8));
    expect(await page.getByRole('link', { name: 'Open in wallet' }).getAttribute('href')).toBe(invoice.payment_uri);
    expect(await page.locator('#countdown').textContent()).toMatch(/^(1:00:00|59:\d\d)$/);
    // Focus stayed on the button that was pressed.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-k'))).toBe('cur-BTC');

    const qr = page.getByRole('img', { name: 'QR code of the Bitcoin payment request' });
    expect(await decodeQr(qr)).toBe(invoice.payment_uri);

    await page.getByRole('button', { name: 'Copy address' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(invoice.payment_address);
    await eventually(() => page.locator('[aria-live="polite"].sr-only').textContent()).toBe('Address copied');
    await page.screenshot({ path: artifact('btc'), fullPage: true });

    // Switching: EOS shows the account and the memo; its QR is the new invoice's URI.
    await page.getByRole('button', { name: /^EOS/ }).click();
    await eventually(() => page.locator('[data-field="memo"]').count()).toBe(1);
    const eos = (await merchantView(order.order_id)).invoice;
    expect(await page.locator('[data-field="address"]').textContent()).toBe(eos.payment_address);
    expect(await page.locator('[data-field="memo"]').textContent()).toBe(eos.memo);
    expect(await decodeQr(page.getByRole('img', { name: /QR code/ }))).toBe(eos.payment_uri);
    await page.screenshot({ path: artifact('eos'), fullPage: true });
    await page.close();
  });

  it('PENDING: a payment seen with too few confirmations shows "waiting for confirmations" (the page polls)', async () => {
    const { order, paymentUrl } = await createOrder({ pay_currency: 'BTC' });
    const page = await open(paymentUrl);
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    await call('POST', `/v1/sandbox/orders/${order.order_id}/pay`, { token: merchant.api_token, body: { confirmations: 1 } });
    await eventually(() => status(page).textContent()).toBe('Payment seen, waiting for confirmations.');
    expect(await page.getByRole('button', { name: 'Cancel order' }).count()).toBe(0);
    await page.screenshot({ path: artifact('pending'), fullPage: true });
    await page.close();
  });

  it('the sandbox control pays the order and the page goes on to success_url', async () => {
    const { order, paymentUrl } = await createOrder({ pay_currency: 'LTC' });
    const page = await open(paymentUrl);
    const simulate = page.getByRole('button', { name: 'Simulate payment (sandbox)' });
    await simulate.click();
    await eventually(() => status(page).textContent()).toBe('Payment received. Thank you!');
    await page.screenshot({ path: artifact('paid'), fullPage: true });
    await page.waitForURL(order.success_url, { timeout: 10_000 });
    expect(await page.locator('h1').textContent()).toContain('/thanks');
    expect((await merchantView(order.order_id)).order.status).toBe('PAID');
    await page.close();
  });

  it('PAID without success_url: a short confirmation, no redirect', async () => {
    const { order, paymentUrl } = await createOrder({ success_url: '', pay_currency: 'BTC' });
    await call('POST', `/v1/sandbox/orders/${order.order_id}/pay`, { token: merchant.api_token, body: {} });
    const page = await open(paymentUrl);
    await eventually(() => status(page).textContent()).toBe('Payment received. Thank you!');
    expect(await page.locator('.body').textContent()).toBe('You can close this page.');
    expect(page.url()).toBe(paymentUrl);
    await page.close();
  });

  it('Cancel asks once, cancels the order and goes to cancel_url; without cancel_url it says so', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await open(paymentUrl);
    await page.getByRole('button', { name: 'Cancel order' }).click();
    // Focus moves into the question, on the safe answer.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Keep paying');
    await page.screenshot({ path: artifact('cancel-confirm'), fullPage: true });
    await page.getByRole('button', { name: 'Yes, cancel' }).click();
    await page.waitForURL(order.cancel_url, { timeout: 10_000 });
    expect((await merchantView(order.order_id)).order.status).toBe('CANCELED');
    await page.close();

    const bare = await createOrder({ cancel_url: '' });
    const other = await open(bare.paymentUrl);
    await other.getByRole('button', { name: 'Cancel order' }).click();
    await other.getByRole('button', { name: 'Yes, cancel' }).click();
    await eventually(() => status(other).textContent()).toBe('This order was canceled.');
    expect(await other.locator('.body').textContent()).toBe('You can close this page.');
    await other.screenshot({ path: artifact('canceled'), fullPage: true });
    expect((await merchantView(bare.order.order_id)).order.status).toBe('CANCELED');
    await other.close();
  });

  it('EXPIRED: explains, and offers the way back to the shop (cancel_url)', async () => {
    const { order, paymentUrl } = await createOrder({ pay_currency: 'BTC' });
    const page = await open(paymentUrl);
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    // What the expiry job does when the invoice runs out, for this order only.
    const { changeOrder } = await import('#shared/services/order-changes');
    const { moveTo } = await import('#shared/domain/order');
    await changeOrder(order.order_id, undefined, () => new Error('missing'), (found) => moveTo(found, 'EXPIRED', new Date()));
    await eventually(() => status(page).textContent()).toBe('This payment window has expired.');
    expect(await page.getByRole('link', { name: 'Back to Page Shop' }).getAttribute('href')).toBe(order.cancel_url);
    expect(await page.locator('.picker').count()).toBe(0);
    expect(await page.locator('.qr').count()).toBe(0);
    await page.screenshot({ path: artifact('expired'), fullPage: true });
    await page.close();
  });

  it('UNRESOLVED: explains what happened (underpaid)', async () => {
    const { order, paymentUrl } = await createOrder({ pay_currency: 'BTC' });
    const { invoice } = await merchantView(order.order_id);
    await call('POST', `/v1/sandbox/orders/${order.order_id}/pay`, {
      token: merchant.api_token,
      body: { amount: Number((invoice.pay_amount / 2).toFixed(8)) },
    });
    const page = await open(paymentUrl);
    await eventually(() => status(page).textContent()).toBe('There is a problem with your payment.');
    expect(await page.locator('.body p').first().textContent()).toBe(
      'We received less than the amount due. Page Shop has been notified and will contact you about the rest.',
    );
    await page.screenshot({ path: artifact('unresolved'), fullPage: true });
    await page.close();
  });

  it('no sideways scroll on a 375 px phone, with the longest values (a Lightning invoice)', async () => {
    const phone = await browser.newContext({ locale: 'en-US', viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
    const { order, paymentUrl } = await createOrder({ pay_currency: 'LBTC', title: 'A rather long order title that has to wrap on a small phone screen' });
    const page = await open(paymentUrl, phone);
    await eventually(() => page.locator('[data-field="address"]').count()).toBe(1);
    expect(await fitsViewport(page)).toBe(true);
    const { invoice } = await merchantView(order.order_id);
    expect(await page.locator('[data-field="address"]').textContent()).toBe(invoice.payment_address);
    expect(await decodeQr(page.getByRole('img', { name: /QR code/ }))).toBe(invoice.payment_uri);
    await page.screenshot({ path: artifact('375-lightning'), fullPage: true });
    await page.getByRole('button', { name: /^ALIPAY/ }).click();
    await eventually(() => page.getByRole('link', { name: 'Open Alipay' }).count()).toBe(1);
    expect(await fitsViewport(page)).toBe(true);
    await phone.close();
  });

  it('an unknown or malformed order id: "Order not found"', async () => {
    for (const [name, id] of [['unknown', randomUUID()], ['malformed', 'not-an-order']]) {
      const page = await open(`${server.pageUrl}?id=${id}`);
      await eventually(() => page.locator('h1').textContent()).toBe('Order not found');
      expect(await status(page).textContent()).toContain('This payment link is not valid');
      await page.screenshot({ path: artifact(`not-found-${name}`), fullPage: true });
      await page.close();
    }
    const bare = await open(server.pageUrl);
    await eventually(() => bare.locator('h1').textContent()).toBe('Order not found');
    await bare.close();
  });

  it('speaks Chinese when the browser asks for zh, and switches to English on request', async () => {
    const chinese = await browser.newContext({ locale: 'zh-CN', viewport: { width: 375, height: 667 } });
    const { paymentUrl } = await createOrder({ pay_currency: 'EOS' });
    const page = await open(paymentUrl, chinese);
    await eventually(() => status(page).textContent()).toBe('等待付款。');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    expect(await page.locator('.merchant').textContent()).toBe('向 Page Shop 付款');
    expect(await page.getByRole('button', { name: '取消订单' }).count()).toBe(1);
    expect(await page.locator('.hint.warn').textContent()).toContain('备注');
    expect(await fitsViewport(page)).toBe(true);
    await page.screenshot({ path: artifact('zh'), fullPage: true });

    await page.getByRole('button', { name: 'Switch to English' }).click();
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');
    // The choice is remembered on this device.
    await page.reload();
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    await chinese.close();
  });

  it('a live merchant gets no sandbox control, and is offered only what it can be paid in', async () => {
    // This environment has no receiving keys, chain sources, LND node or EOS watcher: nothing on chain is offered.
    const { paymentUrl } = await createOrder({}, live);
    const page = await open(paymentUrl);
    await eventually(() => status(page).textContent()).toBe('Live Shop cannot take payments here right now. Please contact Live Shop.');
    expect(await page.locator('.badge').count()).toBe(0);
    expect(await page.locator('.picker').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Cancel order' }).count()).toBe(1);
    await page.screenshot({ path: artifact('live-nothing-to-pay-with'), fullPage: true });

    // A gateway the merchant enabled and the platform lists is offered; when its credentials
    // cannot be had, its checkout answers PAYMENT_NOT_AVAILABLE: the page says so and stays usable.
    const withAlipay = await newMerchant(false, 'Live Alipay Shop', { gateways: ['ALIPAY'] });
    const second = await open((await createOrder({}, withAlipay)).paymentUrl);
    await eventually(() => status(second).textContent()).toBe('Choose how you want to pay.');
    expect(await second.locator('.picker button strong').allTextContents()).toEqual(['ALIPAY']);
    await second.getByRole('button', { name: /^ALIPAY/ }).click();
    await eventually(() => second.locator('.problem').textContent()).toBe('This payment method is not available right now. Please choose another.');
    expect(await second.getByRole('button', { name: 'Simulate payment (sandbox)' }).count()).toBe(0);
    await page.close();
    await second.close();
  });

  it('the sandbox gateway link opens a small test page with the amount', async () => {
    const { order, paymentUrl } = await createOrder({ pay_currency: 'ALIPAY' });
    const page = await open(paymentUrl);
    const link = page.getByRole('link', { name: 'Open Alipay' });
    await eventually(() => link.count()).toBe(1);
    const { invoice } = await merchantView(order.order_id);
    expect(await link.getAttribute('href')).toBe(invoice.payment_uri);
    expect(await decodeQr(page.getByRole('img', { name: /QR code/ }))).toBe(invoice.payment_uri);
    await page.goto(invoice.payment_uri);
    await eventually(() => page.locator('h1').textContent()).toBe('Sandbox ALIPAY');
    expect(await page.locator('.price strong').textContent()).toBe(`${new URL(invoice.payment_uri).searchParams.get('amount')} CNY`);
    expect(await page.locator('.hint').textContent()).toContain('Simulate payment (sandbox)');
    await page.screenshot({ path: artifact('sandbox-gateway'), fullPage: true });
    await page.close();
  });

  it('at 375 px every currency code fits inside its button, ALIGLOBAL and USDT_ERC20 included', async () => {
    const phone = await browser.newContext({ locale: 'en-US', viewport: { width: 375, height: 667 }, isMobile: true, hasTouch: true });
    const { paymentUrl } = await createOrder();
    const page = await open(paymentUrl, phone);
    await eventually(() => status(page).textContent()).toBe('Choose how you want to pay.');
    // Each code's right edge against its button's content edge (inside border and padding).
    const overflow = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLElement>('.picker button')).map((button) => {
        const code = button.querySelector('strong')!;
        const style = getComputedStyle(button);
        const contentRight = button.getBoundingClientRect().right - parseFloat(style.borderRightWidth) - parseFloat(style.paddingRight);
        return { code: code.textContent, past: Math.max(0, Math.ceil(code.getBoundingClientRect().right - contentRight)) };
      }),
    );
    expect(overflow.map(({ code }) => code)).toEqual(expect.arrayContaining(['ALIGLOBAL', 'USDT_ERC20', 'USDC_ERC20']));
    expect(overflow.filter(({ past }) => past > 0)).toEqual([]);
    await page.screenshot({ path: artifact('375-picker'), fullPage: true });
    await phone.close();
  });

  it('labels each value by its field group (no aria-labelledby on code), and axe finds no violation', async () => {
    const { order, paymentUrl } = await createOrder({ pay_currency: 'EOS' });
    const page = await open(paymentUrl);
    await eventually(() => page.locator('[data-field="memo"]').count()).toBe(1);
    const { invoice } = await merchantView(order.order_id);
    expect(await page.locator('code[aria-labelledby]').count()).toBe(0);
    expect(await page.getByRole('group', { name: 'Account' }).locator('code').textContent()).toBe(invoice.payment_address);
    expect(await page.getByRole('group', { name: 'Memo (required)' }).locator('code').textContent()).toBe(invoice.memo);
    expect(await page.getByRole('group', { name: 'Amount (EOS)' }).locator('code').textContent()).toBe(invoice.pay_amount.toFixed(4));
    await page.addScriptTag({ path: AXE });
    const violations = await page.evaluate(async () => {
      const result = await (window as unknown as { axe: { run: () => Promise<{ violations: { id: string }[] }> } }).axe.run();
      return result.violations.map((violation) => violation.id);
    });
    expect(violations).toEqual([]);
    await page.close();
  });

  it('the copy button is named "Address copied" while it shows Copied, then "Copy address" again', async () => {
    const { order, paymentUrl } = await createOrder({ pay_currency: 'BTC' });
    const page = await open(paymentUrl);
    const copyAddress = page.getByRole('button', { name: 'Copy address' });
    await copyAddress.click();
    const copied = page.getByRole('button', { name: 'Address copied' });
    await eventually(() => copied.count()).toBe(1);
    expect(await copied.textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe((await merchantView(order.order_id)).invoice.payment_address);
    await eventually(() => copyAddress.textContent()).toBe('Copy');
    expect(await copied.count()).toBe(0);
    await page.close();
  });

  it('Escape closes the cancel confirmation and the order stays payable', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await open(paymentUrl);
    await page.getByRole('button', { name: 'Cancel order' }).click();
    await eventually(() => page.getByRole('button', { name: 'Yes, cancel' }).count()).toBe(1);
    await page.keyboard.press('Escape');
    await eventually(() => page.getByRole('button', { name: 'Yes, cancel' }).count()).toBe(0);
    // The keyboard is back on the control that opened it.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel order');
    expect((await merchantView(order.order_id)).order.status).toBe('NEW');
    await page.close();
  });

  it('asks for the order at once (no config.json first), with no failed request and a favicon', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await english.newPage();
    const requested: string[] = [];
    const failed: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(paymentUrl);
    await eventually(() => status(page).textContent()).toBe('Choose how you want to pay.');
    expect(requested).not.toContain('/pay/config.json');
    const first = requested.findIndex((path) => path.startsWith('/v1/'));
    expect(requested[first]).toBe(`/v1/pay/${order.order_id}`);

    // The browser's own /favicon.ico, at the origin's root as it asks for it: an icon, not a 404.
    const icon = await page.request.get(`${server.url}/favicon.ico`);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toBe('image/x-icon');
    const size = await page.evaluate(async () => {
      const image = new Image();
      image.src = '/favicon.ico';
      await image.decode();
      return [image.naturalWidth, image.naturalHeight];
    });
    expect(size).toEqual([32, 32]);
    expect(failed).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('calls the API named in the page (the meta tag the stack fills in AWS)', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await english.newPage();
    // The same API under another name, as the deployed page names API Gateway's URL.
    const elsewhere = server.url.replace('127.0.0.1', 'localhost');
    await page.route(paymentUrl, async (route) => {
      const response = await route.fetch();
      const html = (await response.text()).replace('<meta name="api-base-url" content="">', `<meta name="api-base-url" content="${elsewhere}/">`);
      await route.fulfill({ response, body: html });
    });
    const asked = page.waitForRequest((request) => request.url().includes('/v1/pay/'));
    await page.goto(paymentUrl);
    // The first request for the order goes there (this local API answers no CORS preflight for
    // another origin, so the answer itself does not matter here).
    expect((await asked).url()).toBe(`${elsewhere}/v1/pay/${order.order_id}`);
    await page.close();
  });
});
