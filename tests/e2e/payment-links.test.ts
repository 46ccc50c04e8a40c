/**
 * A payment link from creation to payment in real headless Chromium, against `npm start` itself
 * (its DynamoDB Local, SQS emulator and sandbox demo merchant): the merchant signs in to the
 * portal with a passkey (Chromium's virtual authenticator), creates a link that asks for the
 * buyer's email, downloads its QR code as PNG and SVG (both decode to the link's URL); a buyer
 * on a 375 px phone opens the link (nothing is made), picks a currency, continues on the
 * ordinary payment page and pays in the sandbox; the order shows PAID under the link in the
 * portal, with the buyer's email on it (what the buyer's receipt is sent to). axe-core audits
 * every screen. The merchant (who chose an email of each payment in the portal) and the buyer
 * are mailed at `npm start`'s SMTP server. With SCREENSHOTS=1, screenshots go to tests/artifacts/page-link-*.png.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQrPng, fitsViewport, launchChromium } from '../support/browser';
import { acceptInvite, chooseEmail, expectAccessible, expectNoReadAfterLeaving, expectRefreshFailureSaid, listedMail, portalPage, startLocalRuntime, stopLocalRuntime } from '../support/portal-page';
import type { Started } from '../support/processes';

const dataDir = mkdtempSync(join(tmpdir(), 'links-e2e-'));
let runtime: Started;
let api = '';
let mailbox = '';
let inviteUrl = '';
let token = '';
let browser: Browser;
let portal: Page;
let phone: BrowserContext;
let linkUrl = '';
let orderId = '';

beforeAll(async () => {
  ({ runtime, api, mailbox, inviteUrl, token } = await startLocalRuntime(dataDir));
  browser = await launchChromium();
  portal = await portalPage(browser, { acceptDownloads: true });
  phone = await browser.newContext({ locale: 'en-US', viewport: { width: 375, height: 800 } });
}, 180_000);

afterAll(() => stopLocalRuntime(runtime, dataDir, browser));

const merchantApi = (path: string) => fetch(api + path, { headers: { token } }).then((response) => response.json() as Promise<any>);

describe('a payment link from creation to payment', () => {
  it('the merchant signs in with a passkey, asks for an email of each payment, and creates a link in the portal', async () => {
    await acceptInvite(portal, inviteUrl);
    await chooseEmail(portal, 'owner@club.test');
    await portal.getByRole('link', { name: 'Payment links' }).click();
    await portal.getByRole('heading', { level: 1, name: 'Payment links' }).waitFor();
    await portal.getByText('No payment link yet.').waitFor();
    await expectAccessible(portal, 'link-portal-list-empty');

    await portal.getByLabel('Title').fill('Chess club: annual fee');
    await portal.getByLabel('Description (optional)').fill('Twelve months, every Tuesday');
    await portal.getByLabel('Price', { exact: true }).fill('30');
    await portal.getByLabel('How many (optional)').fill('20');
    await portal.getByLabel("Ask the buyer's email (for the receipt)").check();
    await portal.getByRole('button', { name: 'Create link' }).click();
    await portal.getByRole('heading', { level: 1, name: 'Payment link: Chess club: annual fee' }).waitFor();
    linkUrl = (await portal.locator('#link-url').textContent()) ?? '';
    expect(linkUrl).toMatch(/\/pay\/\?link=[0-9a-f-]{36}$/);
    await expectAccessible(portal, 'link-portal-link');
  });

  it("downloads the QR code as PNG and SVG, both of the link's URL", async () => {
    const [png] = await Promise.all([portal.waitForEvent('download'), portal.getByRole('link', { name: 'Download PNG' }).click()]);
    expect(png.suggestedFilename()).toMatch(/^payment-link-[0-9a-f-]{36}\.png$/);
    const pngBytes = readFileSync((await png.path())!);
    expect(pngBytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(decodeQrPng(pngBytes)).toBe(linkUrl);

    const [svg] = await Promise.all([portal.waitForEvent('download'), portal.getByRole('link', { name: 'Download SVG' }).click()]);
    const svgText = readFileSync((await svg.path())!, 'utf8');
    expect(svgText).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    // The SVG as a browser draws it, screenshotted, decodes to the link too.
    const scratch = await portal.context().newPage();
    await scratch.setContent(`<img id="qr" width="400" height="400" src="data:image/svg+xml;base64,${Buffer.from(svgText).toString('base64')}">`);
    await scratch.locator('#qr').evaluate((image: HTMLImageElement) => image.decode());
    expect(decodeQrPng(await scratch.locator('#qr').screenshot())).toBe(linkUrl);
    await scratch.close();
  });

  it('a buyer opens the link on a phone: nothing is made until a currency is picked', async () => {
    const before = (await merchantApi('/v1/orders?limit=50')).orders.length;
    const page = await phone.newPage();
    await page.goto(linkUrl);
    await page.getByRole('heading', { level: 1, name: 'Chess club: annual fee' }).waitFor();
    await page.getByText('20 left').waitFor();
    expect(await fitsViewport(page)).toBe(true);
    await expectAccessible(page, 'link-page-375');
    expect((await merchantApi('/v1/orders?limit=50')).orders.length).toBe(before);

    // The tab hidden and shown again: the link is read again at once, and nothing is asked for
    // an order (the order page's poller is loaded with the page's code, never started here).
    const asked: string[] = [];
    page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    await page.evaluate(() => {
      for (const hidden of [true, false]) {
        Object.defineProperty(document, 'hidden', { value: hidden, configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      }
    });
    await expect.poll(() => asked.filter((path) => path.startsWith('/v1/pay/links/')).length).toBeGreaterThan(0);
    await page.waitForTimeout(500);
    expect(asked.filter((path) => path.startsWith('/v1/') && !path.startsWith('/v1/pay/links/'))).toEqual([]);
    await page.getByRole('heading', { level: 1, name: 'Chess club: annual fee' }).waitFor();

    // The email is asked first, in the buyer's words.
    await page.getByRole('button', { name: /^BTC/ }).click();
    await page.getByRole('alert').filter({ hasText: 'Enter your email address' }).waitFor();
    expect((await merchantApi('/v1/orders?limit=50')).orders.length).toBe(before);

    await page.getByRole('button', { name: '切换到中文' }).click();
    await page.getByLabel('接收收据的电子邮箱').waitFor();
    await expectAccessible(page, 'link-page-zh-375');
    await page.getByRole('button', { name: 'English' }).click();

    await page.getByLabel('Email for your receipt').fill('member@example.com');
    await page.getByRole('button', { name: /^BTC/ }).click();
    await page.waitForURL(/\/pay\/\?id=[0-9a-f-]{36}$/);
    orderId = new URL(page.url()).searchParams.get('id')!;
    await page.getByText('Waiting for your payment.').waitFor();
    await page.getByRole('button', { name: 'Simulate payment (sandbox)' }).click();
    await page.locator('#status').filter({ hasText: 'Payment received' }).waitFor();
    await page.close();
  });

  it("the order is an ordinary order named after the link, with the buyer's email (the receipt's address)", async () => {
    const { order } = await merchantApi(`/v1/orders/${orderId}`);
    expect(order).toMatchObject({ status: 'PAID', title: 'Chess club: annual fee', price_amount: 30, price_currency: 'USD', pay_currency: 'BTC', email: 'member@example.com' });
    expect(order.merchant_order_id).toBe(`link_${new URL(linkUrl).searchParams.get('link')}_${order.merchant_order_id.split('_').at(-1)}`);
  });

  it('the merchant\'s "payment received" email and the buyer\'s receipt arrive at the local SMTP server; the receipt names the link, with no secret', async () => {
    await expect.poll(async () => (await listedMail(mailbox)).map((mail) => mail.to).sort(), { timeout: 30_000 }).toEqual(['member@example.com', 'owner@club.test']);
    const mails = await listedMail(mailbox);
    const { order } = await merchantApi(`/v1/orders/${orderId}`);
    const owner = mails.find((mail) => mail.to === 'owner@club.test')!;
    expect(owner.subject).toBe(`Payment received: order ${order.merchant_order_id}`);
    expect(owner.text).toContain('Chess club: annual fee');
    const receipt = mails.find((mail) => mail.to === 'member@example.com')!;
    expect(receipt.subject).toContain('Your receipt from');
    expect(receipt.text).toContain('Item: Chess club: annual fee');
    expect(receipt.text).toContain('Price: 30.00 USD');
    expect(receipt.text).toContain(`?id=${orderId}`);
    // No secret: not the API token, not the order's own token, not the portal.
    for (const mail of mails) expect(mail.text).not.toContain(token);
    expect(receipt.text).not.toContain('/portal/');
  });

  it('the portal shows the order PAID under the link, with the paid count and total', async () => {
    await portal.locator('#paid-count').filter({ hasText: '1' }).waitFor({ timeout: 20_000 });
    await portal.getByRole('link', { name: orderId }).waitFor();
    await portal.locator('table.orders').getByText('Paid').waitFor();
    await portal.getByRole('link', { name: 'Back to payment links' }).click();
    await portal.getByRole('heading', { level: 1, name: 'Payment links' }).waitFor();
    const row = portal.locator('table.links tbody tr').first();
    await row.getByText('30.00 USD').first().waitFor();
    expect(await row.locator('td').allTextContents()).toEqual(['Chess club: annual fee', '30.00 USD', 'Open', '1', '1', '30.00 USD']);
    await expectAccessible(portal, 'link-portal-list');
  });

  it("the link's page says when a refresh fails, keeps what it shows, refreshes again once the service answers, and reads no more once left", async () => {
    await portal.getByRole('link', { name: 'Chess club: annual fee' }).click();
    await portal.locator('#paid-count').filter({ hasText: '1' }).waitFor();
    await expectRefreshFailureSaid(
      portal,
      `**/v1/portal/links/${new URL(linkUrl).searchParams.get('link')}`,
      async () => {
        expect(await portal.locator('#paid-count').textContent()).toBe('1');
      },
      429,
    );
    // Left while a read is on its way: the list, and no more reads of the link.
    await expectNoReadAfterLeaving(portal, `**/v1/portal/links/${new URL(linkUrl).searchParams.get('link')}`, async () => {
      await portal.getByRole('link', { name: 'Back to payment links' }).click();
      await portal.getByRole('heading', { level: 1, name: 'Payment links' }).waitFor();
    });
  });

  it('a disabled link says so to the buyer, and takes orders again once enabled', async () => {
    await portal.getByRole('link', { name: 'Chess club: annual fee' }).click();
    await portal.getByRole('button', { name: 'Disable Chess club: annual fee' }).click();
    await portal.getByRole('status').filter({ hasText: 'Link disabled' }).waitFor();
    const page = await phone.newPage();
    await page.goto(linkUrl);
    await page.locator('#status').filter({ hasText: 'has turned this payment link off' }).waitFor();
    expect(await page.getByRole('button', { name: /^BTC/ }).count()).toBe(0);
    await expectAccessible(page, 'link-page-disabled');
    await portal.getByRole('button', { name: 'Enable Chess club: annual fee' }).click();
    // The open page reads the link again by itself.
    await page.getByRole('button', { name: /^BTC/ }).waitFor({ timeout: 20_000 });
    await page.close();
  });
});
