/**
 * A subscriber's journey in real headless Chromium against `npm start` (its own DynamoDB Local
 * table, SQS emulator, stream, renewal and email pipelines and SMTP server): the plan's link page
 * takes an email and goes on to the first period's payment page, paid with the page's sandbox
 * control; the invoice arrives at the runtime's SMTP server with the subscriber's page link; the
 * test clock (POST /v1/sandbox/subscriptions/{id}/advance) brings the next invoice, whose email
 * arrives with the same link, and the subscriber's page shows both periods and "Pay now". Each
 * page passes axe-core with no violation and fits a 375 px phone without scrolling sideways, in
 * English and Chinese. With SCREENSHOTS=1, screenshots go to tests/artifacts/page-subscriber-*.png.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsViewport, launchChromium } from '../support/browser';
import { expectAccessible, listedMail, type ListedMail, startLocalRuntime, stopLocalRuntime } from '../support/portal-page';
import type { Started } from '../support/processes';

const dataDir = mkdtempSync(join(tmpdir(), 'subscriber-e2e-'));
let runtime: Started;
let api = '';
let mailbox = '';
let token = '';
let pageUrl = '';
let browser: Browser;
let phone: BrowserContext;

const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
  const response = await fetch(api + path, {
    method,
    headers: { token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as any;
  expect(response.ok, `${path}: ${JSON.stringify(answer)}`).toBe(true);
  return answer;
};

const SECRET_LINK = /(http\S+#subscription=[A-Za-z0-9_-]{43})/;
/** The invoices `email` has received, oldest first. */
const invoices = async (email: string): Promise<ListedMail[]> =>
  (await listedMail(mailbox)).filter((mail) => mail.to === email && mail.subject.startsWith('Your payment for Hosting, small is due on'));

/** The page in English and in Chinese, each audited by axe and held to the phone's width. */
async function bothLanguages(page: Page, name: string, ready: (page: Page) => Promise<unknown>): Promise<void> {
  await ready(page);
  await expectAccessible(page, `subscriber-${name}-en`);
  expect(await fitsViewport(page), `${name} in English is wider than the phone`).toBe(true);
  await page.getByRole('button', { name: '切换到中文' }).click();
  await expect.poll(() => page.evaluate(() => document.documentElement.lang), { timeout: 10_000 }).toBe('zh-CN');
  await ready(page);
  await expectAccessible(page, `subscriber-${name}-zh`);
  expect(await fitsViewport(page), `${name} in Chinese is wider than the phone`).toBe(true);
  await page.getByRole('button', { name: 'Switch to English' }).click();
  await expect.poll(() => page.evaluate(() => document.documentElement.lang), { timeout: 10_000 }).toBe('en');
}

beforeAll(async () => {
  ({ runtime, api, mailbox, token } = await startLocalRuntime(dataDir));
  pageUrl = (await runtime.waitFor(/Payment page:\s+(http:\/\/\S+)/))[1]!;
  browser = await launchChromium();
  phone = await browser.newContext({ locale: 'en-US', viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
}, 180_000);

afterAll(async () => {
  await phone?.close();
  await stopLocalRuntime(runtime, dataDir, browser);
});

describe('a subscriber in Chromium', () => {
  it('subscribes from the plan link, pays the first period in the sandbox, and follows the emails to the subscriber page', async () => {
    const { plan } = await call('POST', '/v1/plans', {
      name: 'Hosting, small',
      description: 'One VPS, monthly',
      price_amount: '12.50',
      price_currency: 'USD',
      interval_unit: 'month',
      invoice_days_before: 3,
      grace_days: 5,
    });
    const email = `subscriber-${randomUUID().slice(0, 8)}@example.test`;

    // The plan's link page: what is sold, at what price, and the email.
    const page = await phone.newPage();
    await page.goto(`${pageUrl}?plan=${plan.plan_id}`);
    await bothLanguages(page, 'plan', (shown) => shown.locator('[data-field="price"]').waitFor());
    expect(await page.locator('h1').textContent()).toBe('Hosting, small');
    expect(await page.locator('[data-field="price"]').textContent()).toBe('12.50 USD every month');
    await page.getByRole('button', { name: 'Subscribe and pay' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('Enter your email address');
    await page.getByLabel('Your email').fill(email);
    await page.getByRole('button', { name: 'Subscribe and pay' }).click();

    // On to the first period's order's own payment page.
    await page.waitForURL(/\?id=[0-9a-f-]{36}$/);

    // The invoice arrived at the runtime's SMTP server with the subscriber's page link; that page
    // waits for the first payment and, without a reload, sees it taken in.
    await expect.poll(async () => (await invoices(email)).length, { timeout: 60_000 }).toBe(1);
    const link = SECRET_LINK.exec((await invoices(email))[0]!.text)?.[1];
    expect(link?.startsWith(pageUrl)).toBe(true);
    const mine = await phone.newPage();
    await mine.goto(link!);
    await expect.poll(() => mine.locator('#status').textContent(), { timeout: 30_000 }).toBe('Waiting for your first payment.');

    // Pick a currency, pay with the sandbox control.
    await page.getByRole('button', { name: /^USDT_TRC20/ }).click();
    await page.getByRole('button', { name: 'Simulate payment (sandbox)' }).click();
    await expect.poll(() => page.locator('#status').textContent(), { timeout: 60_000 }).toBe('Payment received. Thank you!');
    await expect.poll(() => mine.locator('#status').textContent(), { timeout: 60_000 }).toBe('Your subscription is active.');
    expect(await mine.locator('[data-period="1"] [data-field="status"]').textContent()).toBe('Paid');
    expect(await mine.getByRole('button', { name: 'Pay now' }).count()).toBe(0);

    // The test clock: 29 days on, the second period's order is made and its invoice mailed, with the same link.
    const { subscriptions } = await call('GET', '/v1/subscriptions?status=active');
    const subscription = (subscriptions as any[]).find((entry) => entry.customer_email === email);
    await call('POST', `/v1/sandbox/subscriptions/${subscription.subscription_id}/advance`, { days: 29 });
    await expect.poll(async () => (await invoices(email)).length, { timeout: 60_000 }).toBe(2);
    expect(SECRET_LINK.exec((await invoices(email))[1]!.text)?.[1]).toBe(link);
    await mine.reload();
    await bothLanguages(mine, 'page', (shown) => shown.locator('[data-period="2"]').waitFor());
    expect(await mine.locator('[data-period="2"] [data-field="status"]').textContent()).toBe('New');
    expect(await mine.locator('[data-field="next"]').textContent()).toMatch(/^12\.50 USD due on /);

    // "Pay now" opens the second period's order's payment page.
    await mine.getByRole('button', { name: 'Pay now' }).click();
    await mine.waitForURL(/\?id=[0-9a-f-]{36}$/);
    expect(new URL(mine.url()).searchParams.get('id')).toBe((await call('GET', `/v1/subscriptions/${subscription.subscription_id}`)).subscription.period_order_id);

    // Canceled at the period's end from the page: it says when it ends.
    const again = await phone.newPage();
    await again.goto(link!);
    await again.getByRole('button', { name: 'Cancel subscription' }).click();
    await again.getByRole('button', { name: 'Yes, cancel' }).click();
    await expect.poll(() => again.locator('#status').textContent(), { timeout: 60_000 }).toMatch(/^Canceled: your subscription ends on /);
    // Nothing more to pay: the period's order is canceled at the due date with the subscription.
    expect(await again.getByRole('button', { name: 'Pay now' }).count()).toBe(0);
    await bothLanguages(again, 'ending', (shown) => shown.locator('#status').waitFor());
    expect((await call('GET', `/v1/subscriptions/${subscription.subscription_id}`)).subscription).toMatchObject({ cancel_at_period_end: true, cancel_reason: 'subscriber' });
  }, 240_000);

  it('a wrong link says it does not work, in both languages', async () => {
    const page = await phone.newPage();
    await page.goto(`${pageUrl}#subscription=${'A'.repeat(43)}`);
    await bothLanguages(page, 'invalid', (shown) =>
      shown
        .locator('h1')
        .filter({ hasText: /does not work|无效/ })
        .waitFor(),
    );
  }, 60_000);
});
