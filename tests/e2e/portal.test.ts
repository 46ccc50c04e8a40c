/**
 * The merchant portal's whole journey in real headless Chromium, against `npm start` itself
 * (its own DynamoDB Local, SQS emulator and callback pipeline), signing in with Chromium's
 * virtual authenticator (DevTools WebAuthn domain): the invite link `npm start` prints,
 * register a passkey, sign out, sign in, find a paid order by its transaction id, open it,
 * resend its callback and see the new attempt, export CSV. axe-core audits every screen, in
 * English and Chinese, at 375 px too. With SCREENSHOTS=1, screenshots go to tests/artifacts/page-portal-*.png.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsViewport, launchChromium } from '../support/browser';
import { expectAccessible, expectRefreshFailureSaid, portalPage } from '../support/portal-page';
import { MerchantEndpoint } from '../support/merchant-endpoint';
import { killGroup, runScript, sharedDynamoDb, startScript, type Started } from '../support/processes';

const dataDir = mkdtempSync(join(tmpdir(), 'portal-e2e-'));
let runtime: Started;
let api = '';
let portalUrl = '';
let inviteUrl = '';
let token = '';
let browser: Browser;
let page: Page;
const endpoint = new MerchantEndpoint();
let orderId = '';
let txid = '';

const audit = (name: string): Promise<void> => expectAccessible(page, `portal-${name}`);

beforeAll(async () => {
  await endpoint.start();
  runtime = startScript('infra/local/start.ts', [], { PORT: '0', DATA_DIR: dataDir, TOKEN_HMAC_KEY: '', ...sharedDynamoDb() });
  api = (await runtime.waitFor(/API:\s+(http:\/\/\S+)/))[1]!;
  portalUrl = (await runtime.waitFor(/Portal:\s+(http:\/\/\S+)/))[1]!;
  inviteUrl = (await runtime.waitFor(/Portal invite:\s+(http:\/\/\S+)/))[1]!;
  token = (await runtime.waitFor(/Demo API token:\s+(\S+)/))[1]!;
  await runtime.waitFor(/Ctrl-C stops everything/);

  // A paid order whose callback reached the merchant once.
  const post = (path: string, body: unknown) =>
    fetch(api + path, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((response) => response.json() as Promise<any>);
  const created = await post('/v1/orders', { merchant_order_id: 'portal-e2e-1', price_amount: 25, price_currency: 'USD', title: 'Portal journey', pay_currency: 'BTC', callback_url: endpoint.url });
  orderId = created.order.order_id;
  txid = 'f'.repeat(16) + Date.now().toString(16).padStart(48, '0');
  const paid = await post(`/v1/sandbox/orders/${orderId}/pay`, { txid });
  expect(paid.order?.status ?? paid.status).toBeDefined();
  for (let waited = 0; endpoint.received.length === 0 && waited < 30_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
  expect(endpoint.received.length).toBeGreaterThanOrEqual(1);

  browser = await launchChromium();
  page = await portalPage(browser, { acceptDownloads: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (runtime) killGroup(runtime.child);
  await endpoint.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the merchant portal in Chromium', () => {
  it('npm start prints the portal beside the API and an invite link for the demo merchant', () => {
    expect(portalUrl).toMatch(/^http:\/\/localhost:\d+\/portal\/$/);
    expect(inviteUrl.startsWith(`${portalUrl}#/invite/`)).toBe(true);
  });

  it('accepts the invite with a new passkey and shows the recovery codes once', async () => {
    await page.goto(inviteUrl);
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
    await audit('invite');
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await page.getByRole('heading', { level: 1, name: 'Your recovery codes' }).waitFor();
    expect(await page.locator('.codes li').count()).toBe(10);
    await audit('recovery-codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
    await page.getByRole('link', { name: 'portal-e2e-1' }).waitFor();
    await audit('orders');
  });

  it('signs out, and signs in again with the passkey', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await audit('sign-in');
    // Signed out for real: the API refuses the old cookie.
    expect(await page.evaluate(async () => (await fetch('/v1/portal/session')).status)).toBe(401);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
  });

  it('finds the paid order by its transaction id, opens it, resends its callback and shows the new attempt', async () => {
    await page.getByLabel('Search').fill(txid);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/q=/);
    const rows = page.locator('table.orders tbody tr');
    // Polled: the unfiltered list's rows are still shown until the search's answer redraws the
    // table (a count read in between saw 0 rows, or the unfiltered list's).
    await expect.poll(() => rows.count()).toBe(1);
    await rows.filter({ hasText: 'portal-e2e-1' }).waitFor();
    await page.getByRole('link', { name: 'portal-e2e-1' }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${orderId}` }).waitFor();
    await page.getByText(txid).first().waitFor();
    const attempts = page.locator('table.attempts tbody tr');
    await attempts.first().waitFor();
    expect(await attempts.count()).toBe(1);
    // The attempt shows the start of the merchant's answer.
    await page.locator('table.attempts').getByText('{"status":200}').first().waitFor();
    await audit('order');
    // Keyboard only: tab to the button and press Enter.
    await page.getByRole('button', { name: 'Resend callback' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Done.' }).waitFor();
    // The page polls: the second attempt appears without a reload.
    await page.waitForFunction(() => document.querySelectorAll('table.attempts tbody tr').length === 2, undefined, { timeout: 30_000 });
    expect(endpoint.received.length).toBe(2);
  });

  it("the order's page says when a refresh fails, keeps what it shows, and refreshes again once the service answers", async () => {
    await expectRefreshFailureSaid(page, `**/v1/portal/orders/${orderId}`, async () => {
      expect(await page.locator('table.attempts tbody tr').count()).toBe(2);
      await page.getByText(txid).first().waitFor();
    });
  });

  it("keeps an action's answer drawn when a read sent before the action answers after it", async () => {
    const created = await fetch(`${api}/v1/orders`, {
      method: 'POST',
      headers: { token, 'content-type': 'application/json' },
      body: JSON.stringify({ merchant_order_id: 'portal-e2e-race', price_amount: 5, price_currency: 'USD', title: 'Race' }),
    }).then((response) => response.json() as Promise<any>);
    const id = created.order.order_id as string;
    await page.goto(`${page.url().split('#')[0]}#/orders/${id}`);
    await page.getByRole('button', { name: 'Cancel order' }).waitFor();
    // The next read of the order is answered by the service at once (the order still NEW), and
    // that answer is held on its way to the page; the read after it is held until it is looked at.
    let reads = 0;
    let releaseStale!: () => void;
    const staleReleased = new Promise<void>((resolve) => (releaseStale = resolve));
    let releaseNext!: () => void;
    const nextReleased = new Promise<void>((resolve) => (releaseNext = resolve));
    const handled: Promise<void>[] = [];
    const handle = async (route: Route) => {
      if (route.request().method() !== 'GET') return route.continue();
      reads += 1;
      if (reads === 1) {
        const response = await route.fetch();
        await staleReleased;
        return route.fulfill({ response });
      }
      if (reads === 2) await nextReleased;
      return route.continue();
    };
    await page.route(`**/v1/portal/orders/${id}`, (route) => {
      const done = handle(route);
      handled.push(done);
      return done;
    });
    const canceled = page.locator('.order .pill.s-canceled');
    try {
      await expect.poll(() => reads, { timeout: 20_000 }).toBe(1);
      page.once('dialog', (dialog) => void dialog.accept());
      await page.getByRole('button', { name: 'Cancel order' }).click();
      await page.getByRole('status').filter({ hasText: 'Done.' }).waitFor();
      await canceled.first().waitFor();
      // The older answer arrives; the page's next read comes only once it was taken in.
      releaseStale();
      await expect.poll(() => reads, { timeout: 20_000 }).toBe(2);
      expect(await canceled.count()).toBeGreaterThan(0);
      expect(await page.locator('.order .pill.s-new').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Cancel order' }).count()).toBe(0);
    } finally {
      releaseStale();
      releaseNext();
      // Each held read answered before the route is taken away.
      await Promise.allSettled(handled);
      await page.unroute(`**/v1/portal/orders/${id}`);
    }
  });

  it('exports the orders as CSV', async () => {
    await page.getByRole('link', { name: 'Back to orders' }).click();
    await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv.split('\r\n')[0]).toBe('order_id,merchant_order_id,title,status,price_amount,price_currency,pay_amount,pay_currency,created_at,updated_at,sandbox');
    expect(csv).toContain(`${orderId},portal-e2e-1,Portal journey,PAID,25,USD`);
  });

  it('works in Chinese and at 375 px without sideways scrolling', async () => {
    await page.getByRole('button', { name: '切换到中文' }).click();
    await page.getByRole('heading', { level: 1, name: '订单' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('zh-CN');
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await fitsViewport(page)).toBe(true);
    await audit('orders-zh-375');
    await page.getByRole('link', { name: 'portal-e2e-1' }).click();
    await page.getByRole('heading', { level: 1, name: `订单 ${orderId}` }).waitFor();
    await page.locator('table.attempts tbody tr').first().waitFor();
    expect(await fitsViewport(page)).toBe(true);
    await audit('order-zh-375');
  });

  it('refuses the used invite link, and the operator CLI makes a new one that works', async () => {
    // Another browser with its own authenticator.
    const tab = await portalPage(browser);
    try {
      await tab.setViewportSize({ width: 900, height: 800 });
      await tab.goto(inviteUrl);
      await tab.getByRole('button', { name: 'Create a passkey' }).click();
      await tab.getByRole('status').filter({ hasText: 'not valid any more' }).waitFor();
      const cli = await runScript('infra/local/merchant-cli.ts', ['invite', '1', '--role', 'viewer', '--name', 'Bookkeeper', '--json'], { DATA_DIR: dataDir, TOKEN_HMAC_KEY: '' });
      expect(cli.code).toBe(0);
      const fresh = JSON.parse(cli.output.trim().split('\n').at(-1)!) as { portal_invite: string; expires_at: string };
      expect(fresh.portal_invite.startsWith(`${portalUrl}#/invite/`)).toBe(true);
      await tab.goto(fresh.portal_invite);
      await tab.getByRole('button', { name: 'Create a passkey' }).click();
      await tab.getByRole('heading', { level: 1, name: 'Your recovery codes' }).waitFor();
      await tab.getByRole('button', { name: 'I have saved them' }).click();
      await tab.getByText('Bookkeeper (viewer)').waitFor();
      await tab.getByRole('link', { name: 'portal-e2e-1' }).click();
      await tab.getByRole('heading', { level: 1, name: `Order ${orderId}` }).waitFor();
      // A viewer reads the order but is offered no buttons.
      await tab.locator('table.attempts').first().waitFor();
      expect(await tab.locator('.actions button').count()).toBe(0);
    } finally {
      await tab.context().close();
    }
  });
});
