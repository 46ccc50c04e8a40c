/**
 * The portal's account screens in real headless Chromium against `npm start` (its own DynamoDB
 * Local, SQS emulator and callback pipeline), signed in with Chromium's virtual authenticator:
 * a token rotated in the portal while an integration keeps creating orders (none lost), the
 * callback secret rolled while callbacks keep verifying (the merchant's server moves to the new
 * secret during the overlap), a key's first addresses shown before saving, the audit log and
 * the team. axe-core audits every new screen, in English and Chinese, at 375 px too.
 * With SCREENSHOTS=1, screenshots go to tests/artifacts/page-portal-account-*.png.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsViewport, launchChromium } from '../support/browser';
import { MerchantEndpoint } from '../support/merchant-endpoint';
import { acceptInvite, expectAccessible, portalPage, startLocalRuntime } from '../support/portal-page';
import { killGroup, stopLeftoverJava, type Started } from '../support/processes';
import { verifyCallback } from '../support/webhook-verify';

const BIP84_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const BIP84_FIRST = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const dataDir = mkdtempSync(join(tmpdir(), 'portal-account-e2e-'));
let runtime: Started;
let api = '';
let inviteUrl = '';
let firstToken = '';
let vicInvite = '';
let browser: Browser;
let page: Page;
const endpoint = new MerchantEndpoint();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const audit = (name: string) => expectAccessible(page, `portal-account-${name}`);

const post = (path: string, token: string, body: unknown) => fetch(api + path, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
/**
 * A POST as a client keeps to the rate limit: a 429 is sent again after its Retry-After. The
 * test before the secret's roll reads its orders back as fast as the limit lets it, so the roll's
 * first orders can fall in the same window (one loaded run got 429 and waited out its timeout).
 */
async function postWithinLimit(path: string, token: string, body: unknown): Promise<Response> {
  for (;;) {
    const response = await post(path, token, body);
    if (response.status !== 429) return response;
    await sleep(1000 * Number(response.headers.get('retry-after') ?? '1'));
  }
}

/** An integration that keeps creating orders with whichever token it holds, until stopped. */
function integration(start: string) {
  const outcomes: { token: string; status: number; orderId?: string }[] = [];
  let token = start;
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i += 1) {
      const response = await post('/v1/orders', token, { price_amount: 4, price_currency: 'USD', title: 'Rotation', merchant_order_id: `rotation-${Date.now()}-${i}` });
      const body = (await response.json().catch(() => ({}))) as any;
      outcomes.push({ token, status: response.status, orderId: body.order?.order_id });
      await sleep(100);
    }
  })();
  return {
    outcomes,
    use: (next: string) => (token = next),
    stop: async () => {
      running = false;
      await done;
    },
  };
}

beforeAll(async () => {
  await endpoint.start();
  ({ runtime, api, inviteUrl, token: firstToken } = await startLocalRuntime(dataDir));
  browser = await launchChromium();
  page = await portalPage(browser);
  // The screens confirm revoking, rolling and removing: this user says yes.
  page.on('dialog', (dialog) => void dialog.accept());
  await acceptInvite(page, inviteUrl);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (runtime) killGroup(runtime.child);
  await endpoint.stop();
  stopLeftoverJava(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the portal's account screens in Chromium", () => {
  it('shows the sandbox mode plainly on every page and the account screens an owner may use', async () => {
    await page.locator('#mode').filter({ hasText: 'Sandbox mode' }).waitFor();
    for (const name of ['Orders', 'Developers', 'Settings', 'Audit log', 'Team']) await page.getByRole('navigation').getByRole('link', { name }).waitFor();
  });

  it('rotates the API token while an integration keeps creating orders, and loses none', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Developers' }).click();
    await page.getByRole('heading', { level: 1, name: 'Developers' }).waitFor();
    await page.locator('table.tokens tbody tr').first().waitFor();
    await audit('developers');
    const shop = integration(firstToken);
    const madeWith = (token: string) => shop.outcomes.filter((outcome) => outcome.token === token).length;
    // A few requests with the first token (counted, not timed: a loaded machine sends fewer a second).
    while (madeWith(firstToken) <= 3) await sleep(100);
    // Keyboard only: type the name and press Enter.
    await page.getByLabel('Name of the new token').focus();
    await page.keyboard.type('shop v2');
    await page.keyboard.press('Enter');
    const fresh = (await page.locator('#new-token').textContent())!.trim();
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.locator('table.tokens tbody tr').filter({ hasText: 'shop v2' }).waitFor();
    // The shop moves to the new token, then the old one is revoked.
    shop.use(fresh);
    await sleep(1000);
    await page.getByRole('button', { name: 'Revoke default' }).click();
    await page.getByRole('status').filter({ hasText: 'Token revoked.' }).waitFor();
    await sleep(7000);
    while (madeWith(fresh) <= 10) await sleep(100);
    await shop.stop();
    expect(shop.outcomes.filter((outcome) => outcome.status !== 200)).toEqual([]);
    expect(shop.outcomes.filter((outcome) => outcome.token === firstToken).length).toBeGreaterThan(3);
    expect(shop.outcomes.filter((outcome) => outcome.token === fresh).length).toBeGreaterThan(10);
    // Every order the shop made is there (read back slowly enough for the API's rate limit).
    for (const { orderId } of shop.outcomes) {
      let response = await fetch(`${api}/v1/orders/${orderId}`, { headers: { token: fresh } });
      while (response.status === 429) {
        await sleep(1000 * Number(response.headers.get('retry-after') ?? '1'));
        response = await fetch(`${api}/v1/orders/${orderId}`, { headers: { token: fresh } });
      }
      expect(response.status, orderId).toBe(200);
    }
    // The old token is refused (within the auth cache's seconds, long passed).
    expect((await post('/v1/orders', firstToken, { price_amount: 4, price_currency: 'USD' })).status).toBe(401);
  }, 90_000);

  it('rolls the callback secret while callbacks keep verifying', async () => {
    await page.getByRole('button', { name: 'Show the secret' }).click();
    const oldSecret = (await page.locator('#current-secret').textContent())!.trim();
    expect(oldSecret).toMatch(/^whsec_/);
    const token = (await page.evaluate(() => document.querySelector('#new-token')?.textContent ?? ''))!.trim();
    // The merchant's server verifies with the secret it holds; it moves to the new one during the overlap.
    let serverSecret = oldSecret;
    const verdicts: boolean[] = [];
    const before = endpoint.received.length;
    const checked = setInterval(() => {
      while (before + verdicts.length < endpoint.received.length) {
        const callback = endpoint.received[before + verdicts.length]!;
        verdicts.push(verifyCallback(serverSecret, callback.headers, callback.body));
      }
    }, 20);
    let paid = 0;
    let paying = true;
    const payer = (async () => {
      for (let i = 0; paying; i += 1) {
        const created = (await (
          await postWithinLimit('/v1/orders', token, { price_amount: 5, price_currency: 'USD', pay_currency: 'BTC', callback_url: endpoint.url, merchant_order_id: `roll-${Date.now()}-${i}` })
        ).json()) as any;
        const pay = await postWithinLimit(`/v1/sandbox/orders/${created.order.order_id}/pay`, token, {});
        expect(pay.status).toBe(200);
        paid += 1;
        await sleep(250);
      }
    })();
    // A few callbacks signed with the old secret alone first (counted, not timed: a loaded machine pays slower).
    while (paid < 3) await sleep(100);
    await page.getByLabel('Keep signing with the old secret too for (hours)').fill('24');
    await page.getByRole('button', { name: 'Roll the secret' }).click();
    await page.getByRole('status').filter({ hasText: 'Done.' }).waitFor();
    await page.locator('#current-secret').filter({ hasNotText: oldSecret }).waitFor();
    const newSecret = (await page.locator('#current-secret').textContent())!.trim();
    expect(newSecret).not.toBe(oldSecret);
    await page.getByText(oldSecret).waitFor();
    // The merchant updates its server a few seconds after the roll (the delivery workers' secret cache: 5 s).
    await sleep(6000);
    serverSecret = newSecret;
    // And a few that the server checks with the new one.
    const atSwitch = paid;
    while (paid < atSwitch + 3) await sleep(100);
    paying = false;
    await payer;
    for (let waited = 0; endpoint.received.length - before < paid && waited < 30_000; waited += 200) await sleep(200);
    await sleep(100);
    clearInterval(checked);
    while (before + verdicts.length < endpoint.received.length)
      verdicts.push(verifyCallback(serverSecret, endpoint.received[before + verdicts.length]!.headers, endpoint.received[before + verdicts.length]!.body));
    expect(endpoint.received.length - before).toBe(paid);
    expect(verdicts).toHaveLength(paid);
    expect(verdicts.every(Boolean), JSON.stringify(verdicts)).toBe(true);
    // After the roll every callback carries both signatures; the last ones verify with either secret.
    const last = endpoint.received[endpoint.received.length - 1]!;
    expect(verifyCallback(oldSecret, last.headers, last.body) && verifyCallback(newSecret, last.headers, last.body)).toBe(true);
    expect(last.headers['webhook-signature']!.split(' ')).toHaveLength(2);
  }, 90_000);

  it("shows a key's first addresses before saving, then saves it for new invoices", async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    await page.getByText('Sandbox mode: test payments only, nothing settles').first().waitFor();
    await audit('settings');
    await page.getByLabel('BTC extended public key').fill('xpubnotakey');
    await page.getByRole('button', { name: 'Show first addresses' }).click();
    await page.getByRole('status').filter({ hasText: 'Not saved' }).waitFor();
    await page.getByLabel('BTC extended public key').fill(BIP84_ZPUB);
    await page.getByRole('button', { name: 'Show first addresses' }).click();
    await page.getByText(BIP84_FIRST).waitFor();
    expect(await page.locator('#addresses-BTC li').count()).toBe(3);
    await page.getByLabel('Callbacks for').selectOption('all');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await audit('settings-saved');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    expect(await page.getByLabel('BTC extended public key').inputValue()).toBe(BIP84_ZPUB);
    expect(await page.getByLabel('Callbacks for').inputValue()).toBe('all');
  });

  it('shows the audit log of what was just done, with who and from where', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    await page.locator('table.audit tbody tr').first().waitFor();
    const text = await page.locator('table.audit').textContent();
    for (const action of ['member.joined', 'token.created', 'token.revoked', 'callback_secret.rolled', 'settings.changed']) expect(text).toContain(action);
    await audit('audit');
  });

  it('invites a member with a role by link', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    await page.locator('table.team tbody tr').first().waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Viewer Vic');
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Create invite link' }).click();
    vicInvite = (await page.locator('#invite-link').textContent())!.trim();
    expect(vicInvite).toContain('#/invite/');
    await audit('team');
  });

  it('a viewer sees orders, payment links and refunds waiting (to read) and their own email settings only; removed by the owner, their page is signed out at once', async () => {
    const vic = await portalPage(browser);
    await vic.goto(vicInvite);
    await vic.getByRole('button', { name: 'Create a passkey' }).click();
    await vic.getByRole('button', { name: 'I have saved them' }).click();
    await vic.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
    expect(await vic.getByRole('navigation').getByRole('link').allTextContents()).toEqual(['Orders', 'Payment links', 'Plans', 'Subscriptions', 'Refunds waiting', 'Unmatched payments', 'Email']);
    // A typed address of an owner's screen shows the orders instead; the API refuses anyway.
    await vic.goto(vicInvite.split('#')[0] + '#/developers');
    await vic.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
    expect(await vic.evaluate(async () => (await fetch('/v1/portal/tokens')).status)).toBe(403);
    // The owner removes Vic.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    await page.getByRole('button', { name: 'Remove Viewer Vic' }).click();
    await page.getByRole('status').filter({ hasText: 'Member removed.' }).waitFor();
    await page.locator('table.team tbody tr').filter({ hasText: 'Viewer Vic' }).filter({ hasText: 'Removed' }).waitFor();
    expect(await vic.evaluate(async () => (await fetch('/v1/portal/orders')).status)).toBe(401);
    await vic.reload();
    await vic.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await vic.context().close();
  }, 60_000);

  it('works in Chinese and at 375 px without sideways scrolling on every account screen', async () => {
    await page.getByRole('button', { name: '切换到中文' }).click();
    await page.setViewportSize({ width: 375, height: 800 });
    for (const [hash, title] of [
      ['developers', '开发者设置'],
      ['settings', '设置'],
      ['audit', '审计日志'],
      ['team', '团队'],
    ] as const) {
      await page.goto(`${page.url().split('#')[0]}#/${hash}`);
      await page.getByRole('heading', { level: 1, name: title }).waitFor();
      await page.locator('main table tbody tr, main form').first().waitFor();
      expect(await fitsViewport(page), hash).toBe(true);
      await audit(`${hash}-zh-375`);
    }
  }, 60_000);
});
