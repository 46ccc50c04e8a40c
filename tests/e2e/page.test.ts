import { describe, expect, it } from 'vitest';
import { keepScreenshot, decodeQr, fitsViewport } from '../support/browser';
import { browser, call, createOrder, eventually, merchant, merchantView, open, server, status, usePaymentPage } from '../support/page-e2e';
import { SANDBOX_CURRENCIES } from '../support/pay-currencies';

/**
 * The hosted payment page in real headless Chromium, against the API's real handlers and the
 * built page on one port (as `npm start` serves them), with DynamoDB Local behind. Each state
 * leaves (with SCREENSHOTS=1) a screenshot in tests/artifacts/page-*.png for review.
 */

usePaymentPage();

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
    expect(currencies).toEqual(SANDBOX_CURRENCIES);
    expect(await page.title()).toBe('Monthly Program x 1 · Page Shop');
    await keepScreenshot(page, 'order');
    await page.close();
  });

  it('picking USDT on Ethereum shows the amount in USDT to 6 decimals and a QR code of the token transfer URI', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await open(paymentUrl);
    await page.getByRole('button', { name: /^USDT_ERC20/ }).click();
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    const { invoice } = await merchantView(order.order_id);
    expect(invoice).toMatchObject({ pay_currency: 'USDT_ERC20', pay_amount: 9.99 });
    expect(invoice.payment_uri).toBe(`ethereum:0xdAC17F958D2ee523a2206206994597C13D831ec7@1/transfer?address=${invoice.payment_address}&uint256=9990000`);
    expect(await page.locator('[data-field="amount"]').textContent()).toBe('9.990000');
    expect(await page.locator('#amount-label').textContent()).toContain('(USDT)');
    expect(await page.locator('[data-field="address"]').textContent()).toBe(invoice.payment_address);
    expect(await page.locator('[data-field="network"]').textContent()).toBe('Ethereum');
    expect(await decodeQr(page.getByRole('img', { name: /QR code of the USDT \(Ethereum\) payment request/ }))).toBe(invoice.payment_uri);
    await keepScreenshot(page, 'usdt-erc20');
    await page.close();
  });

  it('USDT on Arbitrum names its network plainly, warns against others, and its QR code is the EIP-681 transfer on chain 42161', async () => {
    const { order, paymentUrl } = await createOrder();
    const page = await open(paymentUrl);
    await page.getByRole('button', { name: /^USDT_ARB/ }).click();
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    const { invoice } = await merchantView(order.order_id);
    expect(invoice.payment_uri).toBe(`ethereum:0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9@42161/transfer?address=${invoice.payment_address}&uint256=9990000`);
    expect(await page.locator('[data-field="network"]').textContent()).toBe('Arbitrum One');
    expect(await page.locator('[data-k="network-hint"]').textContent()).toContain('Send on Arbitrum One only');
    expect(await page.locator('#amount-label').textContent()).toContain('(USDT)');
    expect(await decodeQr(page.getByRole('img', { name: /QR code of the USDT \(Arbitrum One\) payment request/ }))).toBe(invoice.payment_uri);
    await keepScreenshot(page, 'usdt-arb');
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
    expect(invoice.payment_uri).toBe(`solana:${invoice.payment_address}?amount=9.990000&spl-token=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&reference=${invoice.memo}`);
    expect(await page.locator('[data-field="network"]').textContent()).toBe('Solana');
    expect(await page.locator('#memo-label').textContent()).toBe('Reference');
    expect(await page.locator('[data-field="memo"]').textContent()).toBe(invoice.memo);
    expect(await decodeQr(page.getByRole('img', { name: /QR code of the USDC \(Solana\) payment request/ }))).toBe(invoice.payment_uri);
    await keepScreenshot(page, 'usdc-sol');
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
    await keepScreenshot(page, 'btc');

    // Switching: EOS shows the account and the memo; its QR is the new invoice's URI.
    await page.getByRole('button', { name: /^EOS/ }).click();
    await eventually(() => page.locator('[data-field="memo"]').count()).toBe(1);
    const eos = (await merchantView(order.order_id)).invoice;
    expect(await page.locator('[data-field="address"]').textContent()).toBe(eos.payment_address);
    expect(await page.locator('[data-field="memo"]').textContent()).toBe(eos.memo);
    expect(await decodeQr(page.getByRole('img', { name: /QR code/ }))).toBe(eos.payment_uri);
    await keepScreenshot(page, 'eos');
    await page.close();
  });

  it('PENDING: a payment seen with too few confirmations shows "waiting for confirmations" (the page polls)', async () => {
    const { order, paymentUrl } = await createOrder({ pay_currency: 'BTC' });
    const page = await open(paymentUrl);
    await eventually(() => status(page).textContent()).toBe('Waiting for your payment.');
    await call('POST', `/v1/sandbox/orders/${order.order_id}/pay`, { token: merchant.api_token, body: { confirmations: 1 } });
    await eventually(() => status(page).textContent()).toBe('Payment seen, waiting for confirmations.');
    expect(await page.getByRole('button', { name: 'Cancel order' }).count()).toBe(0);
    await keepScreenshot(page, 'pending');
    await page.close();
  });

  it('the sandbox control pays the order and the page goes on to success_url', async () => {
    const { order, paymentUrl } = await createOrder({ pay_currency: 'LTC' });
    const page = await open(paymentUrl);
    const simulate = page.getByRole('button', { name: 'Simulate payment (sandbox)' });
    await simulate.click();
    await eventually(() => status(page).textContent()).toBe('Payment received. Thank you!');
    await keepScreenshot(page, 'paid');
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
    await keepScreenshot(page, 'cancel-confirm');
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
    await keepScreenshot(other, 'canceled');
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
    await changeOrder(
      order.order_id,
      undefined,
      () => new Error('missing'),
      (found) => moveTo(found, 'EXPIRED', new Date()),
    );
    await eventually(() => status(page).textContent()).toBe('This payment window has expired.');
    expect(await page.getByRole('link', { name: 'Back to Page Shop' }).getAttribute('href')).toBe(order.cancel_url);
    expect(await page.locator('.picker').count()).toBe(0);
    expect(await page.locator('.qr').count()).toBe(0);
    await keepScreenshot(page, 'expired');
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
    expect(await page.locator('.body p').first().textContent()).toBe('We received less than the amount due. Page Shop has been notified and will contact you about the rest.');
    await keepScreenshot(page, 'unresolved');
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
    await keepScreenshot(page, '375-lightning');
    await page.getByRole('button', { name: /^ALIPAY/ }).click();
    await eventually(() => page.getByRole('link', { name: 'Open Alipay' }).count()).toBe(1);
    expect(await fitsViewport(page)).toBe(true);
    await phone.close();
  });
});
