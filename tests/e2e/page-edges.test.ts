import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { securityHeaderFields, siteSecurityHeaders } from '#shared/core/site-headers';
import { newMerchant } from '../support/api';
import { addAxe, keepScreenshot, decodeQr, fitsViewport } from '../support/browser';
import { browser, createOrder, english, eventually, live, merchantView, open, server, status, usePaymentPage } from '../support/page-e2e';

/**
 * The hosted payment page's edges in real headless Chromium (set up as in page.test.ts, from
 * tests/support/page-e2e.ts): unknown orders, languages, live merchants, small screens,
 * accessibility, loading. Split from page.test.ts so the two run in parallel workers.
 */

usePaymentPage();

describe('the payment page', () => {
  it('an unknown or malformed order id: "Order not found"', async () => {
    for (const [name, id] of [
      ['unknown', randomUUID()],
      ['malformed', 'not-an-order'],
    ]) {
      const page = await open(`${server.pageUrl}?id=${id}`);
      await eventually(() => page.locator('h1').textContent()).toBe('Order not found');
      expect(await status(page).textContent()).toContain('This payment link is not valid');
      await keepScreenshot(page, `not-found-${name}`);
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
    await keepScreenshot(page, 'zh');

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
    await keepScreenshot(page, 'live-nothing-to-pay-with');

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
    await keepScreenshot(page, 'sandbox-gateway');
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
    await keepScreenshot(page, '375-picker');
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
    await addAxe(page);
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
      // With the headers CloudFront sends in AWS, whose CSP lets the page call the API's origin.
      await route.fulfill({ response, body: html, headers: { ...response.headers(), ...securityHeaderFields(siteSecurityHeaders('page', [elsewhere])) } });
    });
    const asked = page.waitForRequest((request) => request.url().includes('/v1/pay/'));
    await page.goto(paymentUrl);
    // The first request for the order goes there (this local API answers no CORS preflight for
    // another origin, so the answer itself does not matter here).
    expect((await asked).url()).toBe(`${elsewhere}/v1/pay/${order.order_id}`);
    await page.close();
  });

  it('honours Retry-After: after a 429 it says how long to wait and sends nothing before then', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await open(paymentUrl);
    await eventually(() => status(page).textContent()).toBe('Choose how you want to pay.');
    // The API's quota answer to the checkout, as the handlers and the adapter send it.
    await page.route(`**/v1/pay/${order.order_id}/checkout`, (route) =>
      route.fulfill({
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '6' },
        body: JSON.stringify({ status: 429, error: 'Too many requests from this client, retry after 6 s.', error_code: 'API_LIMIT_EXCEEDED' }),
      }),
    );
    const after: number[] = [];
    let refusedAt = 0;
    page.on('response', (response) => {
      if (response.status() === 429) refusedAt = Date.now();
      else if (refusedAt && response.url().includes('/v1/pay/')) after.push(Date.now());
    });
    await page.getByRole('button', { name: /^BTC/ }).click();
    await eventually(() => page.getByRole('alert').textContent()).toBe('Too many requests from this device. Please try again in 6 s.');
    // Picking again inside the wait asks nothing of the API.
    await page.getByRole('button', { name: /^LTC/ }).click();
    await expect.poll(() => after.length, { timeout: 15_000, interval: 100 }).toBeGreaterThan(0);
    expect(after[0]! - refusedAt).toBeGreaterThanOrEqual(5_500);
    await page.close();
  });
});
