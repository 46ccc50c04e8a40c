import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, Memo, Operation } from '@stellar/stellar-base';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalTonAddress } from '#shared/payments/addresses/ton';
import { parseMuxed } from '#shared/payments/addresses/stellar';
import { keepScreenshot, decodeQr, launchChromium } from '../support/browser';
import { expectAccessible, portalPage } from '../support/portal-page';
import { CIRCLE_USDC_ISSUER, HorizonTestServer, USDC } from '../support/horizon-server';
import { MerchantEndpoint } from '../support/merchant-endpoint';
import { eventually, runScript, sharedDynamoDb, startScript, type Started } from '../support/processes';
import { type TestWallet, ToncenterTestServer } from '../support/toncenter-server';
import { verifyCallback } from '../support/webhook-verify';

/**
 * The payment page of a live merchant paid in TON and in USDC on Stellar, in real headless
 * Chromium, against `npm start` (infra/local/start.ts) with TON_API_URL on a local toncenter
 * and STELLAR_HORIZON_URL on a local Horizon: the page shows the TON comment or the Stellar
 * muxed address, account and MEMO_ID the API gave, with their hints and a QR code of
 * payment_uri; the buyer's real transfer carrying them is booked by the runtime's own watcher
 * (nothing here steps one), the page turns PAID and the merchant's signed PAID callback arrives.
 * The transfers that carried another comment or memo are in the merchant's portal, on its
 * Unmatched payments screen, in English and Chinese.
 */

type Json = Record<string, any>;
/** The local toncenter takes this key: the runtime's TON source then spaces its requests 110 ms, not 1.1 s. */
const TON_KEY = 'page-ton-stellar-key';
const dataDir = mkdtempSync(join(tmpdir(), 'page-ton-stellar-'));
const buyerXlm = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 51));
const merchantXlm = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 52)).publicKey();

let ton: ToncenterTestServer | undefined;
let horizon: HorizonTestServer | undefined;
let shop: MerchantEndpoint | undefined;
let runtime: Started | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let api: string;
let merchant: { api_token: string; callback_secret: string; portal_invite: string };
let buyerTon: TestWallet;
let tonWallet: string;

beforeAll(async () => {
  [ton, horizon, shop, browser] = await Promise.all([new ToncenterTestServer({ apiKey: TON_KEY }).start(), new HorizonTestServer().start(), new MerchantEndpoint().start(), launchChromium()]);
  buyerTon = ton.wallet(91);
  tonWallet = canonicalTonAddress(ton.wallet(92).address.toString())!;
  for (const account of [buyerXlm.publicKey(), merchantXlm]) horizon.createAccount(account, '10000');
  horizon.trust(buyerXlm.publicKey(), USDC, { balance: '1000' });
  horizon.trust(merchantXlm, USDC);

  runtime = startScript('infra/local/start.ts', [], {
    PORT: '0',
    DATA_DIR: dataDir,
    WATCH_INTERVAL_SECONDS: '1',
    ...sharedDynamoDb(),
    TON_API_URL: ton.url,
    TON_API_KEY: TON_KEY,
    STELLAR_HORIZON_URL: horizon.url,
    // The runtime's own level (the test run's is ERROR): a payment to the merchant's wallet that no invoice takes is a warning.
    POWERTOOLS_LOG_LEVEL: 'WARN',
  });
  [, api] = (await runtime.waitFor(/API:\s+(http:\/\/\S+)/)) as unknown as [string, string];
  await runtime.waitFor(/Ctrl-C stops everything/);
  expect(runtime.output()).toMatch(/Chain watchers: .*TON \(toncenter\), STELLAR \(horizon\)/);

  const cli = await runScript('infra/local/merchant-cli.ts', ['create', '--name', 'TON and Stellar Shop', '--wallet', `TON=${tonWallet}`, '--wallet', `XLM=${merchantXlm}`], { DATA_DIR: dataDir });
  expect(cli.code, cli.output).toBe(0);
  merchant = JSON.parse(cli.output.trim().split('\n').at(-1)!);

  context = await browser.newContext({ locale: 'en-US', viewport: { width: 414, height: 896 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  // Ctrl-C as a user stops it (stop() kills its process group by PID if it has not exited in 30 s).
  await runtime?.stop('SIGINT');
  rmSync(dataDir, { recursive: true, force: true });
  await ton?.close();
  await horizon?.close();
  await shop?.stop();
});

const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
  const response = await fetch(`${api}${path}`, {
    method,
    headers: { token: merchant.api_token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
};

/** A NEW order of 30 USD calling back the shop, and the buyer's page opened once the runtime's watchers report `currency`'s source healthy. */
async function orderPage(currency: string): Promise<{ id: string; page: Page }> {
  const created = await call('POST', '/v1/orders', { price_amount: 30, price_currency: 'USD', title: 'Season Pass', callback_url: shop!.url, token: `cb-${currency}` });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.order.order_id as string;
  // The runtime's watchers write their health on their first step; until then the page offers nothing on chain.
  const offered = await eventually(
    async () => (await (await fetch(`${api}/v1/pay/${id}`)).json()) as Json,
    (view) => view.currencies?.includes(currency),
    15_000,
  );
  expect(offered.currencies).toContain(currency);
  const page = await context.newPage();
  await page.goto(created.body.payment_url);
  await page.getByRole('button', { name: new RegExp(`^${currency}`) }).click();
  await poll(() => status(page).textContent()).toBe('Waiting for your payment.');
  return { id, page };
}

const invoiceOf = async (id: string): Promise<Json> => (await call('GET', `/v1/orders/${id}`)).body.invoice;
const status = (page: Page) => page.locator('#status');
const text = (page: Page, selector: string) => page.locator(selector).textContent();
const poll = <T>(read: () => Promise<T>, timeout = 10_000) => expect.poll(read, { timeout, interval: 100 });
const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

/** The order's callbacks once one arrived: exactly one, PAID, signed with the merchant's secret (and not a tampered body). */
async function expectPaidCallback(id: string, payCurrency: string): Promise<void> {
  await shop!.waitFor(() => shop!.for(id).length >= 1, 15_000);
  const [callback, ...more] = shop!.for(id);
  expect(more).toEqual([]);
  expect(callback!.json).toMatchObject({ order_id: id, status: 'PAID', price_amount: 30, price_currency: 'USD', pay_currency: payCurrency, token: `cb-${payCurrency}` });
  expect(verifyCallback(merchant.callback_secret, callback!.headers, callback!.body)).toBe(true);
  expect(verifyCallback(merchant.callback_secret, callback!.headers, callback!.body.replace('PAID', 'PAIX'))).toBe(false);
}

/**
 * Whether the runtime logged a transfer carrying `memo` as matching no invoice, as money in the
 * merchant's own wallet (listed in its portal), and never as the operator's to return.
 */
const unmatchedLogged = (memo: string): boolean => {
  const lines = runtime!
    .output()
    .split('\n')
    .filter((line) => line.includes(`"memo":"${memo}"`));
  return lines.some((line) => line.includes("a payment to a merchant's own wallet matches no invoice: listed in its portal")) && !lines.some((line) => line.includes('return it to its sender'));
};

/** The buyer's 30 USDC to the merchant's plain account with `memoId` as MEMO_ID, signed and sent (a ledger closes with it); whether it succeeded. */
function payXlm(memoId: string): boolean | undefined {
  const tx = horizon!
    .builder(buyerXlm)
    .addOperation(Operation.payment({ destination: merchantXlm, asset: USDC, amount: '30' }))
    .addMemo(Memo.id(memoId))
    .build();
  tx.sign(buyerXlm);
  return horizon!.send(tx).successful();
}

describe('the payment page of a live merchant paid in TON and USDC on Stellar, watched by the local runtime', () => {
  it('TON: the comment to copy, its hint and a QR code of payment_uri (in Chinese too); the transfer with the comment turns the page PAID and calls back', async () => {
    const { id, page } = await orderPage('TON');
    const invoice = await invoiceOf(id);
    expect(invoice).toMatchObject({ pay_currency: 'TON', pay_amount: 6, payment_address: tonWallet, payment_memo: expect.stringMatching(/^[1-9]\d{15}$/) });
    expect(invoice.payment_uri).toBe(`ton://transfer/${tonWallet}?amount=6000000000&text=${invoice.payment_memo}`);

    expect(await text(page, '[data-field="address"]')).toBe(tonWallet);
    expect(await text(page, '#memo-label')).toBe('Comment (required)');
    expect(await text(page, '[data-field="memo"]')).toBe(invoice.payment_memo);
    expect(await text(page, '[data-k="memo-hint"]')).toBe('Put this comment in your transfer, exactly. A transfer without it cannot be matched to your order.');
    await page.getByRole('group', { name: 'Comment (required)' }).getByRole('button', { name: 'Copy comment (required)' }).click();
    expect(await clipboard(page)).toBe(invoice.payment_memo);
    expect(await decodeQr(page.getByRole('img', { name: 'QR code of the Toncoin payment request' }))).toBe(invoice.payment_uri);
    await keepScreenshot(page, 'live-ton');

    // The language switch: the same comment under the Chinese label.
    await page.getByRole('button', { name: '切换到中文' }).click();
    await poll(() => text(page, '#memo-label')).toBe('附言（必填）');
    expect(await text(page, '[data-field="memo"]')).toBe(invoice.payment_memo);
    expect(await text(page, '[data-k="memo-hint"]')).toBe('转账时请原样填写此附言。没有附言的转账无法匹配到您的订单。');
    await keepScreenshot(page, 'live-ton-zh');
    await page.getByRole('button', { name: 'Switch to English' }).click();
    await poll(() => text(page, '#memo-label')).toBe('Comment (required)');

    // Nothing paid yet: no callback, the order NEW.
    expect(shop!.for(id)).toEqual([]);
    expect((await call('GET', `/v1/orders/${id}`)).body.order.status).toBe('NEW');
    // A transfer with another comment pays nothing (the runtime's watcher reports it unmatched);
    // the one with the invoice's comment pays it: the order is PAID, not overpaid.
    ton!.addTonTransfer({ from: buyerTon, to: tonWallet, nanotons: 6_000_000_000n, comment: 'order 1234 thanks' });
    ton!.addTonTransfer({ from: buyerTon, to: tonWallet, nanotons: 6_000_000_000n, comment: invoice.payment_memo });
    await poll(() => status(page).textContent(), 15_000).toBe('Payment received. Thank you!');
    expect((await call('GET', `/v1/orders/${id}`)).body.order.status).toBe('PAID');
    await keepScreenshot(page, 'live-ton-paid');
    await expectPaidCallback(id, 'TON');
    await poll(() => Promise.resolve(unmatchedLogged('order 1234 thanks'))).toBe(true);
    await page.close();
  });

  it('USDC on Stellar: the muxed address, its hint, the account and the MEMO_ID, a QR code of payment_uri; a payment to the account with the MEMO_ID turns the page PAID and calls back', async () => {
    const { id, page } = await orderPage('USDC_XLM');
    const invoice = await invoiceOf(id);
    expect(invoice).toMatchObject({ pay_currency: 'USDC_XLM', pay_amount: 30, payment_memo: expect.stringMatching(/^\d+$/) });
    expect(parseMuxed(invoice.payment_address)).toEqual({ account: merchantXlm, id: invoice.payment_memo });
    expect(invoice.payment_uri).toBe(`web+stellar:pay?destination=${merchantXlm}&amount=30.000000&asset_code=USDC&asset_issuer=${CIRCLE_USDC_ISSUER}&memo=${invoice.payment_memo}&memo_type=MEMO_ID`);

    expect(await text(page, '[data-field="address"]')).toBe(invoice.payment_address);
    expect(await text(page, '[data-k="memo-hint"]')).toContain('pay this account instead, with the memo below as a MEMO_ID');
    expect(await text(page, '#account-label')).toBe('Account');
    expect(await text(page, '[data-field="account"]')).toBe(merchantXlm);
    expect(await text(page, '#memo-label')).toBe('Memo (MEMO_ID)');
    expect(await text(page, '[data-field="memo"]')).toBe(invoice.payment_memo);
    expect(await decodeQr(page.getByRole('img', { name: 'QR code of the USDC (Stellar) payment request' }))).toBe(invoice.payment_uri);
    await keepScreenshot(page, 'live-usdc-xlm');

    expect(shop!.for(id)).toEqual([]);
    expect((await call('GET', `/v1/orders/${id}`)).body.order.status).toBe('NEW');
    // A wallet that cannot pay a muxed address: the plain account, the invoice's id as MEMO_ID
    // (after a payment with another MEMO_ID, which pays nothing).
    expect(payXlm('42')).toBe(true);
    expect(payXlm(invoice.payment_memo)).toBe(true);
    await poll(() => status(page).textContent(), 15_000).toBe('Payment received. Thank you!');
    expect((await call('GET', `/v1/orders/${id}`)).body.order.status).toBe('PAID');
    await keepScreenshot(page, 'live-usdc-xlm-paid');
    await expectPaidCallback(id, 'USDC_XLM');
    await poll(() => Promise.resolve(unmatchedLogged('42'))).toBe(true);
    await page.close();
  });

  it("the merchant's portal lists the transfers whose comment or memo no invoice had, newest first, with their explorer pages (in Chinese too)", async () => {
    const page = await portalPage(browser!, { viewport: { width: 375, height: 812 } });
    try {
      await page.goto(merchant.portal_invite);
      await page.locator('main button.primary').click();
      await page.locator('.codes li').nth(9).waitFor();
      await page.locator('main button.primary').click();
      await page.getByRole('link', { name: 'Unmatched payments' }).click();
      // The orders list (two orders, its table of the same class) stays until the screen is
      // shown: counted before the heading, its rows passed for the transfers'.
      await page.getByRole('heading', { level: 1, name: 'Unmatched payments' }).waitFor();
      const rows = page.locator('table.orders tbody tr');
      await poll(() => rows.count()).toBe(2);
      // The Stellar payment was made after the TON transfer: first.
      expect((await rows.nth(0).innerText()).replace(/\s+/g, ' ')).toMatch(/30\.000000 USDC_XLM 42 No open invoice has this comment or memo [0-9a-f]{64}/);
      expect((await rows.nth(1).innerText()).replace(/\s+/g, ' ')).toMatch(/6\.000000 TON order 1234 thanks No open invoice has this comment or memo [0-9a-f]{64}/);
      expect(await rows.nth(1).getByRole('link').getAttribute('href')).toMatch(/^https:\/\/tonviewer\.com\/transaction\/[0-9a-f]{64}$/);
      await expectAccessible(page, 'portal-unmatched-375');
      await page.getByRole('button', { name: '切换到中文' }).click();
      await poll(() => page.locator('h1').textContent()).toBe('未匹配的付款');
      expect(await rows.nth(1).innerText()).toContain('没有未结账单使用此备注');
      await keepScreenshot(page, 'portal-unmatched-375-zh');
    } finally {
      await page.context().close();
    }
  });
});
