/**
 * Lighthouse's accessibility score of every merchant portal screen, against `npm start` itself
 * (its own DynamoDB Local, SQS emulator and callback pipeline), in one headless Chromium: the
 * score must be exactly 1 on each. Playwright signs in with Chromium's virtual authenticator and
 * brings each screen to a state worth auditing (a paid order with its payment, callback attempts
 * and buttons; a token just made; the secret shown; a key's first addresses; an invite link);
 * Lighthouse audits the tab as it stands. A failing screen names the failing audits and their
 * elements. Each pass is one new user in a new browser context: it accepts the invite the last
 * pass made. tests/e2e/portal-lighthouse.test.ts runs it on a desktop and as a phone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContextOptions } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccessibilityScore, lighthouseChromium } from './lighthouse';
import { MerchantEndpoint } from './merchant-endpoint';
import { portalPage } from './portal-page';
import { killGroup, sharedDynamoDb, startScript, type Started } from './processes';

const BIP84_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const SCREENS = [
  'recovery-codes',
  'orders',
  'orders-filtered',
  'orders-empty',
  'order',
  'order-refund',
  'refunds',
  'unmatched',
  'links',
  'email',
  'developers',
  'settings',
  'audit',
  'team',
  'sign-in',
  'recovery',
  'invite',
  'invite-spent',
];

/** One pass: a language (the browser's) and a viewport; `formFactor` is what Lighthouse is told. */
export interface LighthousePass {
  name: string;
  formFactor: 'mobile' | 'desktop';
  options: BrowserContextOptions;
}

/** The portal's screens in `passes`, in turn, one test per pass, each screen's score exactly 1. */
export function describePortalLighthouse(title: string, passes: readonly LighthousePass[]): void {
  const dataDir = mkdtempSync(join(tmpdir(), 'portal-lighthouse-'));
  const endpoint = new MerchantEndpoint();
  let runtime: Started;
  let portalUrl = '';
  let inviteUrl = '';
  let orderId = '';
  let refundOrderId = '';
  let chromium: Awaited<ReturnType<typeof lighthouseChromium>>;
  /** Every screen's score and how many audits applied and passed, by pass: printed at the end (docs/performance.md quotes them). */
  const scores: Record<string, Record<string, string>> = {};

  beforeAll(async () => {
    await endpoint.start();
    runtime = startScript('infra/local/start.ts', [], { PORT: '0', DATA_DIR: dataDir, TOKEN_HMAC_KEY: '', ...sharedDynamoDb() });
    const api = (await runtime.waitFor(/API:\s+(http:\/\/\S+)/))[1]!;
    portalUrl = (await runtime.waitFor(/Portal:\s+(http:\/\/\S+)/))[1]!;
    inviteUrl = (await runtime.waitFor(/Portal invite:\s+(http:\/\/\S+)/))[1]!;
    const token = (await runtime.waitFor(/Demo API token:\s+(\S+)/))[1]!;
    await runtime.waitFor(/Ctrl-C stops everything/);

    // A paid order whose callback reached the merchant, and an unpaid one.
    const post = (path: string, body: unknown) =>
      fetch(api + path, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((response) => response.json() as Promise<any>);
    const created = await post('/v1/orders', { merchant_order_id: 'lighthouse-1', price_amount: 25, price_currency: 'USD', title: 'Lighthouse', pay_currency: 'BTC', callback_url: endpoint.url });
    orderId = created.order.order_id;
    await post(`/v1/sandbox/orders/${orderId}/pay`, { txid: 'e'.repeat(16) + Date.now().toString(16).padStart(48, '0') });
    // A paid order the passes refund from the portal (the first pass asks the refund, every pass audits it).
    refundOrderId = (await post('/v1/orders', { merchant_order_id: 'refund-lh', price_amount: 12, price_currency: 'USD', title: 'Refunded', pay_currency: 'USDT_ERC20' })).order.order_id;
    await post(`/v1/sandbox/orders/${refundOrderId}/pay`, {});
    await post('/v1/orders', { merchant_order_id: 'lighthouse-2', price_amount: 7.5, price_currency: 'USD', title: 'Unpaid', pay_currency: 'LTC' });
    for (let waited = 0; endpoint.received.length === 0 && waited < 30_000; waited += 200) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(endpoint.received.length).toBeGreaterThanOrEqual(1);

    chromium = await lighthouseChromium();
  }, 180_000);

  afterAll(async () => {
    await chromium?.close();
    if (runtime) killGroup(runtime.child);
    await endpoint.stop();
    rmSync(dataDir, { recursive: true, force: true });
    console.log(JSON.stringify({ lighthouseAccessibility: scores }));
  });

  /**
   * The screens in turn, in one new signed-in session (language and viewport from `options`):
   * each screen's Lighthouse result, by name. Answers the next pass's invite link too.
   */
  async function auditScreens(options: BrowserContextOptions, formFactor: 'mobile' | 'desktop'): Promise<{ results: Record<string, AccessibilityScore>; nextInvite: string }> {
    const results: Record<string, AccessibilityScore> = {};
    const page = await portalPage(chromium.browser, options);
    const audit = async (name: string) => {
      results[name] = await chromium.accessibility(page, formFactor);
    };
    const show = (hash: string) => page.goto(`${portalUrl}${hash}`);
    try {
      page.on('dialog', (dialog) => void dialog.accept());
      // Passkeys first: once Lighthouse has audited the tab and let go of it, Chromium's virtual
      // authenticator no longer answers there (the invite screen is audited at the end).
      await page.goto(inviteUrl);
      await page.locator('main button.primary').click();
      await page.locator('.codes li').nth(9).waitFor();
      const recoveryCode = (await page.locator('.codes li').first().textContent())!.trim();
      await audit('recovery-codes');
      await page.locator('main button.primary').click();

      await page.locator('table.orders tbody tr').nth(1).waitFor();
      await audit('orders');
      await show('#/orders?status=PAID&q=lighthouse-1');
      await page.locator('table.orders tbody tr').first().waitFor();
      await expect.poll(() => page.locator('table.orders tbody tr').count()).toBe(1);
      await audit('orders-filtered');
      await show('#/orders?status=REFUNDED');
      await page.locator('main [role="status"]:not(:empty)').waitFor();
      await audit('orders-empty');

      await show(`#/orders/${orderId}`);
      await page.locator('.payments li').first().waitFor();
      await page.locator('table.attempts tbody tr').first().waitFor();
      await page.locator('.actions button').first().waitFor();
      await audit('order');

      await show(`#/orders/${refundOrderId}`);
      await page.locator('.refund-ask button[type="submit"], article.refund').first().waitFor();
      if ((await page.locator('article.refund').count()) === 0) {
        await page.locator('#refund-reason').fill('Out of stock');
        await page.locator('.refund-ask button[type="submit"]').click();
      }
      await page.locator('article.refund [data-field="refund-url"]').waitFor();
      await audit('order-refund');
      await show('#/refunds');
      await page.locator('table.orders tbody tr').first().waitFor();
      await audit('refunds');
      await show('#/unmatched');
      await page.locator('main [role="status"]:not(:empty)').waitFor();
      await audit('unmatched');
      await show('#/links');
      await page.locator('section[aria-labelledby="new-link-title"] form').waitFor();
      await audit('links');
      await show('#/email');
      await page.locator('#email-address').waitFor();
      await audit('email');

      await show('#/developers');
      await page.locator('table.tokens tbody tr').first().waitFor();
      await page.locator('#token-name').fill('shop v2');
      await page.locator('#token-name').press('Enter');
      await page.locator('#new-token').waitFor();
      await page.locator('section[aria-labelledby="secret-title"] .buttons button[type="button"]').click();
      await page.locator('#current-secret').waitFor();
      await audit('developers');

      await show('#/settings');
      await page.locator('#key-BTC').fill(BIP84_ZPUB);
      await page.locator('form.settings .buttons button:not(.primary)').click();
      await page.locator('#addresses-BTC li').first().waitFor();
      await audit('settings');

      await show('#/audit');
      await page.locator('table.audit tbody tr').first().waitFor();
      await audit('audit');

      await show('#/team');
      await page.locator('table.team tbody tr').first().waitFor();
      await page.locator('#member-name').fill('Next pass');
      await page.locator('#member-role').selectOption('owner');
      await page.locator('#member-name').press('Enter');
      const nextInvite = (await page.locator('#invite-link').textContent())!.trim();
      await audit('team');

      // Signed out: sign in with a recovery code, which offers a new passkey at once.
      await page.locator('.account button:not([lang])').click();
      await page.locator('#recovery-code').waitFor();
      await audit('sign-in');
      await page.locator('#recovery-code').fill(recoveryCode);
      await page.locator('#recovery-code').press('Enter');
      await page.locator('main a[href="#/orders"]').waitFor();
      await audit('recovery');
      // The invite screen as the link shows it (a spent link looks the same until its button is pressed).
      await page.goto(inviteUrl);
      await page.locator('main button.primary').waitFor();
      await audit('invite');
      await page.locator('main button.primary').click();
      await page.locator('main [role="status"].error').waitFor();
      await audit('invite-spent');
      return { results, nextInvite };
    } finally {
      await page.context().close();
    }
  }

  describe(`Lighthouse's accessibility score of the merchant portal (${title})`, () => {
    for (const pass of passes) {
      it(`is 1 on every screen (${pass.name}, ${pass.formFactor})`, async () => {
        const { results, nextInvite } = await auditScreens(pass.options, pass.formFactor);
        inviteUrl = nextInvite;
        scores[pass.name] = Object.fromEntries(Object.entries(results).map(([name, result]) => [name, `${result.score} (${result.passed} passed)`]));
        expect(Object.keys(results)).toEqual(SCREENS);
        const belowOne = Object.entries(results)
          .filter(([, result]) => result.score !== 1)
          .map(([name, result]) => `${name}: ${result.score}\n  ${result.failures.join('\n  ')}`);
        expect(belowOne, `${pass.name}: screens below 1`).toEqual([]);
      }, 240_000);
    }
  });
}
