/**
 * Recurring billing in the merchant portal, in real headless Chromium on a 375 px phone, against
 * `npm start` itself (its DynamoDB Local, SQS emulator, pipeline and sandbox demo merchant): the
 * merchant signs in with a passkey (Chromium's virtual authenticator) and makes a monthly plan in
 * the portal; the shop subscribes a customer to it over the API; the subscriptions screen lists
 * and finds it, its page shows the first period and its order; once that order is paid, the
 * sandbox's "Move the test clock" brings the next period's order; "Cancel now" ends it. Every
 * screen is audited by axe-core and held to the layout test's checks (no sideways scroll, no
 * squeezed word, nothing hidden drawn: tests/support/layout.ts), in English and in Chinese.
 * With SCREENSHOTS=1, screenshots go to tests/artifacts/page-subscriptions-*.png.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsViewport, launchChromium } from '../support/browser';
import { describeProblems, layoutProblems } from '../support/layout';
import { acceptInvite, expectAccessible, expectRefreshFailureSaid, portalPage, startLocalRuntime, stopLocalRuntime } from '../support/portal-page';
import type { Started } from '../support/processes';

const dataDir = mkdtempSync(join(tmpdir(), 'subscriptions-e2e-'));
let runtime: Started;
let api = '';
let inviteUrl = '';
let token = '';
let browser: Browser;
let portal: Page;
let planId = '';
let subscription: { subscription_id: string; period_order_id: string };
/** The second period's order, made by the test clock. */
let nextOrderId = '';

beforeAll(async () => {
  ({ runtime, api, inviteUrl, token } = await startLocalRuntime(dataDir));
  browser = await launchChromium();
  portal = await portalPage(browser, { viewport: { width: 375, height: 800 } });
}, 180_000);

afterAll(() => stopLocalRuntime(runtime, dataDir, browser));

const merchantApi = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
  const response = await fetch(api + path, { method, headers: { token, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const answer = (await response.json()) as any;
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
};

/** No sideways scroll and none of the layout test's problems (a squeezed word, a hidden thing drawn, a stretched control) on the screen as it is. */
async function expectLaidOut(what: string): Promise<void> {
  expect(await fitsViewport(portal), what).toBe(true);
  expect(describeProblems(await layoutProblems(portal)), what).toEqual([]);
}

/** axe and the layout checks on the screen as it is, then the same in Chinese (and back to English). */
async function inBothLanguages(name: string, chinese: string): Promise<void> {
  await expectLaidOut(`${name} at 375 px`);
  await expectAccessible(portal, `subscriptions-${name}-375`);
  await portal.getByRole('button', { name: '切换到中文' }).click();
  await portal.getByText(chinese).first().waitFor();
  await expectLaidOut(`${name} in Chinese at 375 px`);
  await expectAccessible(portal, `subscriptions-${name}-zh-375`);
  await portal.getByRole('button', { name: 'Switch to English' }).click();
  await portal
    .getByRole('heading', { level: 1 })
    .filter({ hasNotText: /[\u4e00-\u9fff]/ })
    .waitFor();
}

describe('recurring billing in the portal, on a phone', () => {
  it('the merchant signs in with a passkey and makes a monthly plan', async () => {
    await acceptInvite(portal, inviteUrl);
    await portal.getByRole('navigation').getByRole('link', { name: 'Plans' }).click();
    await portal.getByRole('heading', { level: 1, name: 'Plans' }).waitFor();
    await portal.getByText('No plan yet.').waitFor();
    await inBothLanguages('plans-empty', '还没有订阅方案。');

    await portal.getByLabel('Plan name').fill('Chess club membership');
    await portal.getByLabel('Price', { exact: true }).fill('30');
    await portal.getByLabel('Billed every').fill('1');
    await portal.getByLabel('Unit').selectOption('month');
    await portal.getByLabel('Subscription events URL (optional)').fill('https://club.example/subscription-events');
    await portal.getByRole('button', { name: 'Create plan' }).click();
    await portal.getByRole('heading', { level: 1, name: 'Plan: Chess club membership' }).waitFor();
    planId = (await portal.locator('#plan-id').textContent()) ?? '';
    expect(planId).toMatch(/^[0-9a-f-]{36}$/);
    await portal.getByText('30.00 USD every month').waitFor();
    // The events URL went with the plan: the API has it, and the change form shows it.
    expect((await merchantApi('GET', `/v1/plans/${planId}`)).plan.events_url).toBe('https://club.example/subscription-events');
    expect(await portal.getByLabel('Subscription events URL (optional)').inputValue()).toBe('https://club.example/subscription-events');
    await inBothLanguages('plan', '每个月 30.00 USD');
  });

  it('a subscription made by the API is listed, found by its email in any case, and its page shows the first period and its order', async () => {
    ({ subscription } = await merchantApi('POST', '/v1/subscriptions', { plan_id: planId, customer_email: 'member@example.com', customer_id: 'member-1' }));
    await portal.getByRole('navigation').getByRole('link', { name: 'Subscriptions' }).click();
    await portal.getByRole('heading', { level: 1, name: 'Subscriptions' }).waitFor();
    const row = portal.locator('table.subscriptions tbody tr').first();
    await row.getByRole('link', { name: 'member@example.com' }).waitFor();
    await row.getByText('Incomplete').waitFor();
    // Nothing is paid yet: no revenue, nobody to lose.
    await portal.locator('#churn').filter({ hasText: 'No paying subscription to lose yet' }).waitFor();
    await inBothLanguages('list', '月度经常性收入');

    await portal.getByLabel('Search').fill('MEMBER@Example.com');
    await portal.getByRole('button', { name: 'Apply' }).click();
    await portal.waitForURL(/#\/subscriptions\?q=/);
    await expect.poll(() => portal.locator('table.subscriptions tbody tr').count()).toBe(1);
    await portal.getByRole('link', { name: 'member@example.com' }).click();
    await portal.getByRole('heading', { level: 1, name: 'Subscription: member@example.com' }).waitFor();
    const periods = portal.locator('table.periods tbody tr');
    await periods.first().getByRole('link', { name: subscription.period_order_id }).waitFor();
    await periods.first().getByText('New').waitFor();
    await inBothLanguages('subscription', '拨快测试时钟');
  });

  it("once the first order is paid, the test clock brings the next period's order", async () => {
    await merchantApi('POST', `/v1/orders/${subscription.period_order_id}/checkout`, { pay_currency: 'BTC' });
    await merchantApi('POST', `/v1/sandbox/orders/${subscription.period_order_id}/pay`, {});
    // The open page reads the subscription again by itself; the pipeline takes the payment's step.
    const periods = portal.locator('table.periods tbody tr');
    await periods.first().getByText('Paid').waitFor({ timeout: 30_000 });
    await portal.locator('.facts').getByText('Active').waitFor({ timeout: 30_000 });

    await portal.getByLabel('Days forward').fill('30');
    await portal.getByRole('button', { name: 'Move the test clock' }).click();
    await portal.getByRole('status').filter({ hasText: 'Test clock moved' }).waitFor();
    await expect.poll(() => periods.count()).toBe(2);
    const { subscription: moved } = await merchantApi('GET', `/v1/subscriptions/${subscription.subscription_id}`);
    expect(moved).toMatchObject({ status: 'active', period: 2, periods_paid: 1 });
    nextOrderId = moved.period_order_id;
    await periods.first().getByRole('link', { name: nextOrderId }).waitFor();
    await periods.first().getByText('New').waitFor();
    await inBothLanguages('subscription-next-period', '已付期数');
  });

  it('"Cancel now" ends the subscription with its unpaid order', async () => {
    portal.once('dialog', (dialog) => void dialog.accept());
    await portal.getByRole('button', { name: 'Cancel now' }).click();
    await portal.getByRole('status').filter({ hasText: 'Subscription ended.' }).waitFor();
    await portal.locator('.facts').getByText('Ended', { exact: true }).waitFor();
    expect(await portal.getByRole('button', { name: 'Cancel now' }).count()).toBe(0);
    const { subscription: ended } = await merchantApi('GET', `/v1/subscriptions/${subscription.subscription_id}`);
    expect(ended).toMatchObject({ status: 'canceled', cancel_reason: 'merchant' });
    expect((await merchantApi('GET', `/v1/orders/${nextOrderId}`)).order.status).toBe('CANCELED');
    await portal.locator('table.periods tbody tr').first().getByText('Canceled').waitFor();
    await inBothLanguages('subscription-ended', '已终止');
  });

  it('says when a refresh of the open page fails, keeps what it shows, and takes the message back once one answers', async () => {
    // The service answers the page's poll with a 503 for a while, as an outage would.
    await expectRefreshFailureSaid(portal, `**/v1/portal/subscriptions/${subscription.subscription_id}`, async () => {
      await portal.locator('.facts').getByText('Ended', { exact: true }).waitFor();
    });
    expect(await portal.locator('table.periods tbody tr').count()).toBe(2);
  });

  it('lays out each screen at 1280 px too', async () => {
    await portal.setViewportSize({ width: 1280, height: 900 });
    for (const [hash, shows] of [
      ['#/plans', 'table.plans tbody tr'],
      [`#/plans/${planId}`, '#plan-id'],
      ['#/subscriptions', 'table.subscriptions tbody tr'],
      [`#/subscriptions/${subscription.subscription_id}`, 'table.periods tbody tr'],
    ] as const) {
      await portal.goto(new URL(hash, portal.url()).href);
      await portal.locator(shows).first().waitFor();
      await expectLaidOut(`${hash} at 1280 px`);
    }
  });
});
