/**
 * Email preferences in real headless Chromium against `npm start` (its own DynamoDB Local, SQS
 * emulator, pipeline and SMTP server), signed in with Chromium's virtual authenticator: the
 * owner gives an address, picks Chinese and switches an event off; then a buyer pays an order
 * (an ordinary one, in the sandbox) and the owner's email and the buyer's receipt arrive at the
 * runtime's SMTP server, listed by its mailbox page, which reads at 375 px without scrolling
 * sideways. axe-core audits the screen in English and Chinese. With SCREENSHOTS=1, screenshots go to
 * tests/artifacts/page-portal-email-*.png.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsViewport, launchChromium } from '../support/browser';
import { acceptInvite, expectAccessible, listedMail, portalPage, startLocalRuntime, stopLocalRuntime } from '../support/portal-page';
import type { Started } from '../support/processes';

const dataDir = mkdtempSync(join(tmpdir(), 'portal-email-e2e-'));
let runtime: Started;
let api = '';
let mailbox = '';
let token = '';
let browser: Browser;
let page: Page;

const post = async (path: string, body: unknown) => {
  const response = await fetch(api + path, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status, path).toBe(200);
  return (await response.json()) as any;
};

const listed = () => listedMail(mailbox);

beforeAll(async () => {
  let inviteUrl: string;
  ({ runtime, api, mailbox, inviteUrl, token } = await startLocalRuntime(dataDir));
  browser = await launchChromium();
  page = await portalPage(browser);
  await acceptInvite(page, inviteUrl);
}, 180_000);

afterAll(() => stopLocalRuntime(runtime, dataDir, browser));

describe('email preferences in Chromium', () => {
  it('a portal user gives an address, picks a language and an event off; it is kept', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Email' }).click();
    await page.getByRole('heading', { level: 1, name: 'Email' }).waitFor();
    await expectAccessible(page, 'portal-email-en');
    await page.getByLabel('Email address').fill('owner@shop.test');
    await page.getByLabel('Language of the emails').selectOption('zh');
    await page.getByLabel('Payments received').selectOption('each');
    await page.getByLabel('the team changes').uncheck();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Email' }).waitFor();
    await expect.poll(() => page.getByLabel('Email address').inputValue()).toBe('owner@shop.test');
    expect(await page.getByLabel('Language of the emails').inputValue()).toBe('zh');
    expect(await page.getByLabel('the team changes').isChecked()).toBe(false);
    expect(await page.getByLabel('an order needs a decision (status: Unresolved)').isChecked()).toBe(true);

    await page.getByRole('button', { name: '中文' }).click();
    await page.getByRole('heading', { level: 1, name: '邮件' }).waitFor();
    await expectAccessible(page, 'portal-email-zh');
    await page
      .getByRole('button', { name: 'English' })
      .click()
      .catch(() => undefined);
  });

  it("a buyer pays: the owner's email (in Chinese) and the buyer's receipt arrive at the local SMTP server", async () => {
    const created = await post('/v1/orders', { merchant_order_id: `email-${Date.now()}`, price_amount: 9.99, price_currency: 'USD', title: 'Demo order', email: 'buyer@example.test' });
    const id = created.order.order_id as string;
    await post(`/v1/orders/${id}/checkout`, { pay_currency: 'BTC' });
    await post(`/v1/sandbox/orders/${id}/pay`, {});
    await expect.poll(async () => (await listed()).map((mail) => mail.to).sort(), { timeout: 30_000 }).toEqual(['buyer@example.test', 'owner@shop.test']);
    const mails = await listed();
    const owner = mails.find((mail) => mail.to === 'owner@shop.test')!;
    expect(owner.subject).toBe(`已收款：订单 ${created.order.merchant_order_id}`);
    expect(owner.text).toContain('#/email');
    const receipt = mails.find((mail) => mail.to === 'buyer@example.test')!;
    expect(receipt.subject).toContain('Your receipt from Demo Shop');
    // The mailbox page lists both.
    await page.goto(mailbox);
    await page.getByRole('link', { name: owner.subject }).click();
    await page.getByRole('heading', { level: 1, name: owner.subject }).waitFor();
    // At a phone's width neither a message (its source open, lines of headers and base64) nor the list scrolls sideways.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.locator('details').evaluate((details) => details.setAttribute('open', ''));
    expect(await fitsViewport(page), 'a message at 375 px').toBe(true);
    await page.goto(mailbox);
    await page.getByRole('link', { name: owner.subject }).waitFor();
    expect(await fitsViewport(page), 'the list at 375 px').toBe(true);
  });
});
