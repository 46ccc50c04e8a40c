/**
 * Refunds from the merchant portal in real headless Chromium against `npm start` (its own
 * DynamoDB Local, SQS emulator and handlers), signed in with Chromium's virtual authenticator:
 * the owner refunds a paid sandbox order (a custom amount), the buyer opens the refund link on
 * the refund page and sets an address, the portal shows the address, the exact amount and a
 * wallet QR code of the refund's payment URI, the owner reports the transaction (the sandbox
 * check accepts it) and the order is REFUNDED. axe-core audits the order page's refund parts and
 * the "Refunds waiting" screen, at 375 px too. With SCREENSHOTS=1, screenshots go to tests/artifacts/page-portal-refund*.png.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsViewport, launchChromium } from '../support/browser';
import { acceptInvite, expectAccessible, portalPage, startLocalRuntime, stopLocalRuntime } from '../support/portal-page';
import type { Started } from '../support/processes';

const dataDir = mkdtempSync(join(tmpdir(), 'portal-refunds-e2e-'));
let runtime: Started;
let api = '';
let token = '';
let browser: Browser;
let page: Page;
let orderId = '';

const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
  const response = await fetch(api + path, { method, headers: { token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  expect(response.status, path).toBe(200);
  return (await response.json()) as any;
};

beforeAll(async () => {
  let inviteUrl: string;
  ({ runtime, api, inviteUrl, token } = await startLocalRuntime(dataDir));
  const created = await call('POST', '/v1/orders', { merchant_order_id: 'refund-e2e-1', price_amount: 30, price_currency: 'USD', title: 'Refund journey' });
  orderId = created.order.order_id;
  await call('POST', `/v1/orders/${orderId}/checkout`, { pay_currency: 'USDT_ERC20' });
  await call('POST', `/v1/sandbox/orders/${orderId}/pay`, {});
  expect((await call('GET', `/v1/orders/${orderId}`)).order.status).toBe('PAID');
  browser = await launchChromium();
  page = await portalPage(browser);
  page.on('dialog', (dialog) => void dialog.accept());
  await acceptInvite(page, inviteUrl);
}, 180_000);

afterAll(() => stopLocalRuntime(runtime, dataDir, browser));

describe('refunds in the merchant portal', () => {
  it('refunds a custom amount; the buyer sets an address; the portal shows it with a QR code; a reported txid makes the order REFUNDED', async () => {
    await page.goto(`${page.url().split('#')[0]}#/orders/${orderId}`);
    await page.getByRole('heading', { level: 2, name: 'Refunds' }).waitFor();
    // Today's quote: all that is left, and the price at today's rate with its rate shown.
    await page.getByLabel(/^All that is left: \d/).waitFor();
    await expect.poll(() => page.locator('#refund-rate').textContent()).toMatch(/^Rate locked when you ask: 1 USD = \d+(\.\d+)? USDT_ERC20 \(/);
    await expectAccessible(page, 'portal-refund-ask');
    await page.getByLabel('A custom amount').check();
    await page.getByLabel('Custom amount in USDT_ERC20').fill('1.5');
    await page.getByLabel('Note for the buyer (optional)').fill('Out of stock');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    const card = page.locator('article.refund');
    await expect.poll(() => card.locator('[data-field="refund-amount"]').textContent()).toBe('1.500000 USDT_ERC20');
    expect(await card.locator('[data-field="refund-status"]').textContent()).toBe("Waiting for the buyer's address");
    const refundUrl = (await card.locator('[data-field="refund-url"]').textContent()) ?? '';
    expect(refundUrl).toMatch(/^http:\/\/.+#refund=[A-Za-z0-9_-]{43}$/);
    await card.getByRole('button', { name: 'Copy refund link' }).waitFor();
    await expectAccessible(page, 'portal-refund-link');

    // The waiting list, oldest first, links to the order.
    await page.getByRole('navigation').getByRole('link', { name: 'Refunds waiting' }).click();
    await page.getByRole('heading', { level: 1, name: 'Refunds waiting' }).waitFor();
    await page.getByRole('link', { name: orderId }).waitFor();
    await expectAccessible(page, 'portal-refunds-waiting');

    // The buyer, in another browser context, sets the address on the refund page.
    const buyer = await (await browser.newContext({ locale: 'en-US' })).newPage();
    await buyer.goto(refundUrl);
    const address = '0x52908400098527886E0F7030069857D2E4169EE7';
    await buyer.locator('#address').fill(address);
    await buyer.locator('button[type="submit"]').click();
    await expect.poll(() => buyer.locator('[data-field="address"]').textContent()).toBe(address);
    await buyer.context().close();

    // Back on the order page (live): the address, the exact amount and the wallet QR code.
    await page.getByRole('link', { name: orderId }).click();
    await expect.poll(() => card.locator('[data-field="refund-address"]').textContent(), { timeout: 15_000 }).toBe(address);
    const uri = (await card.locator('[data-field="payment-uri"]').textContent()) ?? '';
    expect(uri).toMatch(/^ethereum:0x[0-9a-fA-F]{40}@1\/transfer\?address=0x52908400098527886E0F7030069857D2E4169EE7&uint256=\d+$/);
    const listed = await call('GET', `/v1/orders/${orderId}/refunds`);
    expect(listed.refunds[0].payment_uri).toBe(uri);
    // The QR code drawn is the code of that URI (the same modules as web/common/qr.ts makes for it).
    const { QUIET, qrModules } = await import('../../web/common/qr');
    const { count } = qrModules(uri);
    expect(await card.locator('figure.refund-qr svg').getAttribute('viewBox')).toBe(`${-QUIET} ${-QUIET} ${count + 2 * QUIET} ${count + 2 * QUIET}`);
    expect(await card.locator('figure.refund-qr svg').getAttribute('aria-label')).toBe('QR code to pay the refund of 1.500000 USDT_ERC20 from your wallet');
    await expectAccessible(page, 'portal-refund-address');
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await fitsViewport(page)).toBe(true);
    await expectAccessible(page, 'portal-refund-phone');
    await page.setViewportSize({ width: 1100, height: 900 });

    await card.getByLabel('Transaction id of your payment').fill('0xabc123');
    await card.getByRole('button', { name: 'Report payment' }).click();
    // The report checks and records the transaction before the card is drawn again: a second under a loaded machine's run was not enough.
    await expect.poll(() => card.locator('[data-field="refund-status"]').textContent(), { timeout: 15_000 }).toBe('Sent');
    expect((await call('GET', `/v1/orders/${orderId}`)).order.status).toBe('REFUNDED');
    await expect.poll(() => page.locator('section[aria-labelledby="details-title"] .pill').textContent()).toBe('Refunded');
  });
});
