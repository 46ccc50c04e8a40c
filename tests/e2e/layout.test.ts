/**
 * Layout over every portal screen and buyer page (issue #41), in real headless Chromium against
 * `npm start` itself: each role's screens (owner, developer, viewer) with data on them (orders
 * paid, refunded and with refunds waiting over more than a page, links over more than a page,
 * team members, tokens, email preferences, the audit log over more than a page), the signed-out
 * screens (invite, recovery codes, sign-in), the buyer's pages (the payment page choosing a
 * currency, with an invoice, paid; a payment link's page with a price and with a range; the
 * refund page; a subscription plan's page and a subscriber's page) and the local mailbox, each at 375 and 1280 px, in English and Chinese. Every view
 * is held to tests/support/layout.ts's checks: no sideways scroll, nothing marked hidden shown,
 * nothing squeezed narrower than a word, controls at their natural size; and every "Load more"
 * list pages to its end without repeating a row. The checks are first shown to catch the bugs
 * they were written for, on small planted pages. With SCREENSHOTS=1, a screenshot of every
 * view goes to test-results/layout/ (printed once): for a person to look at, never a failure.
 * Not by default: the full-page captures were about a quarter of the file's CPU (23 of 97 CPU s,
 * most of it Chromium's), for pictures no check reads.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES } from '#shared/domain/portal';
import { screensOf, type Route } from '../../web/portal/src/router';
import { launchChromium, SCREENSHOTS } from '../support/browser';
import { countRequests, describeProblems, layoutProblems, pageThrough, settled, type LayoutProblem } from '../support/layout';
import { PortalBrowser } from '../support/portal';
import { portalPage, startLocalRuntime, stopLocalRuntime } from '../support/portal-page';
import type { Started } from '../support/processes';

const SHOTS = resolve('test-results/layout');
const WIDTHS = [375, 1280] as const;
const LANGS = ['en', 'zh'] as const;
type Lang = (typeof LANGS)[number];

let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  if (SCREENSHOTS) {
    mkdirSync(SHOTS, { recursive: true });
    console.log(`Layout screenshots: ${SHOTS}`);
  }
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** How much of a long page a screenshot shows: a list's first rows say how it looks, and a shorter picture is quicker to take. */
const SHOT_HEIGHT = 3000;

/** A screenshot for a person to look at (the page's top, as wide as the viewport); a failure to write one is said, never a test failure. */
async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  const size = await page.evaluate(() => ({ width: document.documentElement.clientWidth, height: document.documentElement.scrollHeight }));
  await page
    .screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true, clip: { x: 0, y: 0, width: size.width, height: Math.min(size.height, SHOT_HEIGHT) } })
    .catch((error: Error) => console.warn(`screenshot ${name}: ${error.message}`));
}

/** The layout problems of the page as it is, each named after its view; and its screenshot. */
async function inspect(page: Page, name: string): Promise<string[]> {
  const problems: LayoutProblem[] = await layoutProblems(page);
  await screenshot(page, name);
  return describeProblems(problems).map((line) => `${name}: ${line}`);
}

// ---------------------------------------------------------------------------------------------
// The checker against pages planted with each bug it is for.

const PLANTED_BASE = '<!doctype html><meta charset="utf-8"><style>*, *::before, *::after { box-sizing: border-box; } body { margin: 0; font: 16px/1.5 sans-serif; } main { padding: 1rem; }</style>';

/** A planted page in a 375 px (or `width`) tab: its problems, and the page to look further. */
async function planted(html: string, width = 375): Promise<{ page: Page; problems: LayoutProblem[] }> {
  const context = await browser.newContext({ viewport: { width, height: 800 } });
  const page = await context.newPage();
  await page.setContent(PLANTED_BASE + html);
  return { page, problems: await layoutProblems(page) };
}

/** A list with "Load more" that pages from 1 to 7 in pages of 3, its handler and its hiding as `script` says. */
const pagedList = (style: string, script: string) => `
<style>${style}</style>
<main><table><tbody id="rows"></tbody></table><button type="button" id="more">Load more</button></main>
<script>
  window.layoutRequests = 0;
  const rows = document.getElementById('rows');
  const more = document.getElementById('more');
  const page = (from) => [from, from + 1, from + 2].filter((n) => n <= 7).map((n) => { const tr = document.createElement('tr'); tr.innerHTML = '<td>Order ' + n + '</td>'; return tr; });
  let cursor = 1;
  const load = () => { rows.append(...page(cursor || 1)); cursor = cursor + 3 <= 7 ? cursor + 3 : undefined; more.hidden = !cursor; };
  ${script}
  load();
</script>`;

describe('the layout checker, on planted pages', () => {
  it('reports a button and a form marked hidden but given a display by a rule', async () => {
    const { page, problems } = await planted(`
      <style>button { display: inline-block; } .inline-form { display: grid; gap: 0.5rem; }</style>
      <main><button type="button" id="more" hidden>Load more</button>
      <div class="inline-form" id="range" hidden><label>Least amount <input></label><label>Most amount <input></label></div>
      <div hidden><p id="inner">Inside a hidden box</p></div></main>`);
    expect(problems.filter((problem) => problem.check === 'hidden-shown').map((problem) => problem.where)).toEqual([
      expect.stringContaining('button#more'),
      expect.stringContaining('div#range.inline-form'),
    ]);
    await page.context().close();
  });

  it('reports a facts grid whose value column is squeezed: the URL broken at every few letters, "Copy link" a letter a line', async () => {
    const { page, problems } = await planted(`
      <style>.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; } .facts dd { margin: 0; overflow-wrap: anywhere; } .link-url { display: flex; flex-wrap: wrap; gap: 0.5rem; }</style>
      <main><dl class="facts"><dt>The address buyers pay this link at</dt><dd><span class="link-url"><a id="url" href="#">http://localhost:3000/pay/?link=0f3a1b2c-5d6e-4f70-8a9b-0c1d2e3f4a5b</a><button type="button">Copy link</button></span></dd></dl></main>`);
    const squeezed = problems.filter((problem) => problem.check === 'squeezed');
    expect(squeezed.map((problem) => problem.where)).toEqual(expect.arrayContaining([expect.stringContaining('a#url'), expect.stringContaining('button "Copy link"')]));
    expect(squeezed.find((problem) => problem.where.includes('button'))!.detail).toMatch(/broken over \d+ lines|wraps over \d+ lines/);
    await page.context().close();
  });

  it('reports a caption kept in its table-caption box by a block table, a word a line', async () => {
    const { page, problems } = await planted(`
      <style>table, tbody, tr, td { display: block; }</style>
      <main><table><caption id="caption">Orders of this shop, newest first</caption><tbody><tr><td>Order 1</td></tr></tbody></table></main>`);
    expect(problems).toEqual([
      expect.objectContaining({ check: 'squeezed', where: expect.stringContaining('caption#caption'), detail: expect.stringMatching(/^text wraps over \d+ lines in a box \d+ px wide/) }),
    ]);
    await page.context().close();
  });

  it('reports checkboxes drawn 44 px tall and full width above their label, and a text field squeezed narrow', async () => {
    const { page, problems } = await planted(`
      <style>input, select { width: 100%; min-height: 2.75rem; } .amount { width: 3rem; }</style>
      <main><fieldset><legend>Email me when</legend><div class="check"><input type="checkbox" id="team"><label for="team">the team changes</label></div></fieldset>
      <p><label for="amount">Amount</label> <input id="amount" class="amount"></p></main>`);
    expect(problems.map((problem) => [problem.check, problem.where.split(' "')[0]!.split(' > ').at(-1)])).toEqual([
      ['control-size', 'input#team'],
      ['control-size', 'input#amount.amount'],
    ]);
    expect(problems[0]!.detail).toMatch(/^checkbox drawn \d+×44 px; its natural size is 13×13 px/);
    await page.context().close();
  });

  it('reports a page that scrolls sideways, naming what reaches past its edge, and a box that scrolls sideways inside', async () => {
    const { page, problems } = await planted(`
      <style>.message { white-space: pre; } .wrap { overflow-x: auto; }</style>
      <main><p class="message" id="long">Payment received: order layout-1234567890, 25.00 USD from buyer@example.com</p>
      <div class="wrap"><table><tr><td style="white-space: nowrap">A row far wider than a phone: 0x52908400098527886E0F7030069857D2E4169EE7</td></tr></table></div></main>`);
    const sideways = problems.filter((problem) => problem.check === 'sideways');
    expect(sideways.map((problem) => problem.where)).toEqual([expect.stringContaining('p#long.message'), expect.stringContaining('div.wrap')]);
    expect(sideways[0]!.detail).toMatch(/^the page is \d+ px wide in a 375 px viewport/);
    await page.context().close();
  });

  it('reports a list whose "Load more", hidden on the last page but shown by a rule, appends the first page again', async () => {
    const { page } = await planted(pagedList('button { display: inline-block; }', "more.addEventListener('click', () => load());"));
    const paged = await pageThrough(page, '#rows tr', page.locator('#more'), 5);
    expect(paged.endless).toBe(true);
    expect(paged.repeated).toEqual(expect.arrayContaining(['Order 1', 'Order 2', 'Order 3']));
    expect((await layoutProblems(page)).map((problem) => problem.check)).toContain('hidden-shown');
    await page.context().close();
  });

  it('reports a list whose hidden "Load more" still loads the first page again when clicked by a script', async () => {
    const { page } = await planted(pagedList('[hidden] { display: none !important; }', "more.addEventListener('click', () => load());"));
    const paged = await pageThrough(page, '#rows tr', page.locator('#more'));
    expect(paged).toMatchObject({ clicks: 2, endless: false });
    expect(paged.repeated).toEqual(['Order 1', 'Order 2', 'Order 3']);
    await page.context().close();
  });

  it('reports nothing on a page that does all of it right, at 375 and 1280 px', async () => {
    const clean = `
      <style>
        [hidden] { display: none !important; } button { display: inline-block; min-height: 2.75rem; } table { width: 100%; }
        .facts { display: grid; grid-template-columns: minmax(7rem, max-content) minmax(0, 1fr); gap: 0.25rem 1rem; } .facts dd { margin: 0; overflow-wrap: anywhere; }
        @media (max-width: 40rem) { .facts { grid-template-columns: minmax(0, 1fr); } }
        .link-url { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
        input, select { width: 100%; min-height: 2.75rem; } label.check { display: flex; gap: 0.5rem; align-items: center; } label.check input { width: auto; min-height: 0; }
        @media (max-width: 40rem) { table, tbody, tr, td { display: block; } caption { display: block; } }
        .message { overflow-wrap: anywhere; }
      </style>
      <main><button type="button" hidden>Load more</button>
      <dl class="facts"><dt>Payment link</dt><dd><span class="link-url"><a href="#">http://localhost:3000/pay/?link=0f3a1b2c-5d6e-4f70-8a9b-0c1d2e3f4a5b</a><button type="button">Copy link</button></span></dd></dl>
      <table><caption>Orders of this shop, newest first</caption><tbody><tr><td>Order 1</td></tr></tbody></table>
      <fieldset><legend>Email me when</legend><label class="check"><input type="checkbox">the team changes</label></fieldset>
      <p><label for="amount">Amount</label> <input id="amount"></p>
      <p class="message">Payment received: order layout-1234567890, 25.00 USD from buyer@example.com, 0x52908400098527886E0F7030069857D2E4169EE7</p>
      <p lang="zh-CN">已收款：订单 layout-1234567890，金额 25.00 USD，来自买家。</p></main>`;
    for (const width of WIDTHS) {
      const { page, problems } = await planted(clean, width);
      expect(describeProblems(problems), `${width} px`).toEqual([]);
      await page.context().close();
    }
    const { page } = await planted(pagedList('[hidden] { display: none !important; }', "more.addEventListener('click', () => cursor && load());"));
    const paged = await pageThrough(page, '#rows tr', page.locator('#more'));
    expect(paged).toMatchObject({ keys: ['Order 1', 'Order 2', 'Order 3', 'Order 4', 'Order 5', 'Order 6', 'Order 7'], repeated: [], clicks: 2, endless: false });
    await page.context().close();
  });
});

// ---------------------------------------------------------------------------------------------
// The portal and the buyer's pages, as `npm start` serves them, with data on every screen.

/** Orders paid: all but the last get a refund asked, more than the 50 of the refunds' first page. */
const PAID = 53;
const REFUNDED = PAID - 1;
const CURRENCIES = ['USDT_ERC20', 'BTC', 'ETH', 'LTC'] as const;
const TITLES = ['Monthly Program x 1', 'Annual membership, family plan with two extra seats', '年度会员（家庭套餐）', 'Gift card'];
/** Links: more than the portal's page of 20. */
const LINKS = 22;
const ETH_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

const dataDir = mkdtempSync(join(tmpdir(), 'layout-e2e-'));
let runtime: Started;
let api = '';
let token = '';
let mailbox = '';
let portalUrl = '';
let pageUrl = '';
/** Every role's signed-in portal tab (each its own context and passkey). */
const tabs: Partial<Record<(typeof ROLES)[number], Page>> = {};
/** The problems the sign-up journey saw on the invite and recovery codes screens. */
const signUpProblems: string[] = [];
const seeded = {
  paidOrder: '',
  refundAskedOrder: '',
  awaitingPaymentOrder: '',
  refundedOrder: '',
  fixedLink: { id: '', url: '' },
  rangeLink: { id: '', url: '' },
  choosing: '',
  invoiceUsdt: '',
  invoiceTon: '',
  refundUrl: '',
  usedRefundUrl: '',
  plan: '',
  subscription: '',
};

async function merchantCall(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const response = await fetch(api + path, { method, headers: { token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = await response.json();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** A portal call from a signed-in tab, as its own page makes it (the session's cookie and CSRF token). */
async function portalCall(page: Page, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const answer = await page.evaluate(
    async ([method, path, body]) => {
      const session = await (await fetch('/v1/portal/session')).json();
      const response = await fetch(`/v1/portal${path}`, {
        method,
        headers: method === 'POST' ? { 'content-type': 'application/json', 'x-csrf-token': session.csrf_token } : {},
        body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
      });
      return { status: response.status, body: await response.json() };
    },
    [method, path, body] as const,
  );
  if (answer.status !== 200) throw new Error(`${method} /v1/portal${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Runs `work` for 0..count-1, a few at a time. */
async function inTurn<T>(count: number, work: (index: number) => Promise<T>, parallel = 6): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await work(index);
      }
    }),
  );
  return results;
}

/** The merchant's orders and links, through the merchant API as a shop makes them. */
async function seedMerchantData(): Promise<void> {
  const paid = await inTurn(PAID, async (index) => {
    const created = await merchantCall('POST', '/v1/orders', {
      merchant_order_id: `layout-${String(index).padStart(3, '0')}`,
      price_amount: 25 + index,
      price_currency: 'USD',
      title: TITLES[index % TITLES.length],
      // Some buyers give an email: their receipts fill the local mailbox.
      ...(index % 10 === 0 ? { email: `buyer${index}@example.com` } : {}),
      // The currency at once: the order is made with its invoice.
      pay_currency: CURRENCIES[index % CURRENCIES.length],
    });
    const orderId: string = created.order.order_id;
    await merchantCall('POST', `/v1/sandbox/orders/${orderId}/pay`, {});
    if (index >= REFUNDED) return { orderId, refund: undefined };
    const asked = await merchantCall('POST', `/v1/orders/${orderId}/refund`, index % 3 === 0 ? { reason: 'Out of stock: the item was discontinued' } : {});
    return { orderId, refund: asked.refund as { refund_id: string; refund_url: string } };
  });
  // Order 0 (USDT on Ethereum) refunded in full: its address given on the refund page, its payment reported.
  const secretOf = (url: string) => new URL(url).hash.slice('#refund='.length);
  const refunded = paid[0]!;
  await merchantCall('POST', '/v1/pay/refund/address', { secret: secretOf(refunded.refund!.refund_url), address: ETH_ADDRESS });
  await merchantCall('POST', `/v1/orders/${refunded.orderId}/refund-txid`, { refund_id: refunded.refund!.refund_id, txid: `0x${'ab'.repeat(32)}` });
  // Order 4 (USDT on Ethereum too) with its address given: the portal shows the payment to make.
  const awaiting = paid[4]!;
  await merchantCall('POST', '/v1/pay/refund/address', { secret: secretOf(awaiting.refund!.refund_url), address: ETH_ADDRESS });
  Object.assign(seeded, {
    refundedOrder: refunded.orderId,
    usedRefundUrl: refunded.refund!.refund_url,
    awaitingPaymentOrder: awaiting.orderId,
    refundAskedOrder: paid[1]!.orderId,
    refundUrl: paid[1]!.refund!.refund_url,
    paidOrder: paid[PAID - 1]!.orderId,
  });
  // Orders a buyer has not paid yet: one choosing a currency, two with an invoice.
  const unpaid = async (title: string, payCurrency?: string) => {
    const created = await merchantCall('POST', '/v1/orders', {
      merchant_order_id: `layout-new-${payCurrency ?? 'none'}`,
      price_amount: 9.99,
      price_currency: 'USD',
      title,
      description: 'Game Pass Friends and Family',
    });
    if (payCurrency) await merchantCall('POST', `/v1/orders/${created.order.order_id}/checkout`, { pay_currency: payCurrency });
    return created.order.order_id as string;
  };
  seeded.choosing = await unpaid('Monthly Program x 1');
  seeded.invoiceUsdt = await unpaid('Monthly Program x 1', 'USDT_ERC20');
  seeded.invoiceTon = await unpaid('Annual membership, family plan with two extra seats', 'TON');

  const links = await inTurn(LINKS, (index) =>
    merchantCall(
      'POST',
      '/v1/links',
      index === 0
        ? { title: 'Chess club: annual fee', description: 'Twelve months, every Tuesday evening', price_amount: '30', quantity: 20, ask_email: true }
        : index === 1
          ? { title: 'Donation to the library fund', min_amount: '5', max_amount: '500', price_currency: 'EUR' }
          : { title: `Workshop seat ${index}`, price_amount: String(10 + index) },
    ),
  );
  // A plan and a subscription to it by API, its first period's order made at once (the subscription's page lists it).
  const { plan } = await merchantCall('POST', '/v1/plans', { name: 'Managed hosting, medium instance', price_amount: '24', interval_unit: 'month' });
  const { subscription } = await merchantCall('POST', '/v1/subscriptions', { plan_id: plan.plan_id, customer_email: 'member@example.com', customer_id: 'cus_1001' });
  seeded.plan = plan.plan_id;
  seeded.subscription = subscription.subscription_id;
  seeded.fixedLink = { id: links[0].link.link_id, url: links[0].link.url };
  seeded.rangeLink = { id: links[1].link.link_id, url: links[1].link.url };
}

/**
 * A plan's link page and a subscriber's page with a paid period: a subscription started on the
 * plan's link, its first order paid in the sandbox, its page opened by the link its invoice email
 * carries (the only place the link is given).
 */
async function seedSubscriber(): Promise<{ planUrl: string; subscriberUrl: string }> {
  const { plan } = await merchantCall('POST', '/v1/plans', {
    name: 'Managed hosting, small instance',
    description: 'One virtual server, backups included',
    price_amount: '12.50',
    interval_unit: 'month',
    trial_days: 14,
  });
  const { plan: paidPlan } = await merchantCall('POST', '/v1/plans', { name: 'Hosting, small', price_amount: '12.50', interval_unit: 'month' });
  // The owner's own mailbox: team mail, so the sandbox's daily buyer mail, filled by the seeded receipts and refund links, does not stop it.
  const email = 'owner@shop.test';
  const started = await merchantCall('POST', `/v1/pay/plans/${paidPlan.plan_id}/subscriptions`, { email });
  const orderId = new URL(started.payment_url).searchParams.get('id')!;
  await merchantCall('POST', `/v1/orders/${orderId}/checkout`, { pay_currency: 'USDT_TRC20' });
  await merchantCall('POST', `/v1/sandbox/orders/${orderId}/pay`, {});
  let subscriberUrl = '';
  await expect
    .poll(
      async () => {
        const mails = (await (await fetch(`${mailbox}messages.json`)).json()) as { to: string; text: string }[];
        subscriberUrl =
          mails
            .filter((mail) => mail.to === email)
            .map((mail) => /(http\S+#subscription=[A-Za-z0-9_-]{43})/.exec(mail.text)?.[1])
            .find(Boolean) ?? '';
        return subscriberUrl;
      },
      { timeout: 60_000 },
    )
    .not.toBe('');
  return { planUrl: `${pageUrl}?plan=${plan.plan_id}`, subscriberUrl };
}

/** The language the page shows now. */
const langOf = async (page: Page): Promise<Lang> => ((await page.evaluate(() => document.documentElement.lang)).startsWith('zh') ? 'zh' : 'en');

/** Shows the page in `lang` with its own language switch (`button`), and waits until it has drawn again. */
async function useLang(page: Page, lang: Lang, button: string): Promise<void> {
  if ((await langOf(page)) === lang) return;
  await page.locator(button).click();
  await page.waitForFunction((lang) => document.documentElement.lang.startsWith(lang), lang);
  await settled(page);
}

/** Goes to a portal screen by its fragment, as a link does, and waits until it has drawn its data. */
async function goTo(page: Page, hash: string): Promise<void> {
  await page.evaluate(
    (target) =>
      new Promise<void>((done) => {
        if (location.hash === target) return done();
        // The portal's own hashchange listener was added first: the screen has started its requests when this runs.
        addEventListener('hashchange', () => setTimeout(done), { once: true });
        location.hash = target;
      }),
    hash,
  );
  await settled(page);
}

/** The page in each of `langs` at each width: its layout problems (and screenshots named `name`-lang-width). */
async function everyView(page: Page, name: string, switchButton: string | null, langs: readonly Lang[] = LANGS): Promise<string[]> {
  const problems: string[] = [];
  for (const lang of langs) {
    if (switchButton) await useLang(page, lang, switchButton);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      problems.push(...(await inspect(page, `${name}-${lang}-${width}`)));
    }
  }
  return problems;
}

const PORTAL_SWITCH = 'header.top button[lang]';
const PAGE_SWITCH = '.bar button.lang';

/** A new portal tab of its own (its own passkey), counting its requests. */
async function newPortalTab(locale: string): Promise<Page> {
  const page = await portalPage(browser, { locale });
  await countRequests(page.context());
  return page;
}

/**
 * Accepts an invite in `page` with a new passkey: the invite screen and the recovery codes
 * screen are inspected on the way (`langs` of the invite screen; the codes are shown once, in
 * the language the invite was accepted in), and the tab ends signed in, on Orders.
 */
async function signUp(page: Page, inviteUrl: string, name: string, langs: readonly Lang[]): Promise<void> {
  await page.goto(inviteUrl);
  await settled(page);
  signUpProblems.push(...(await everyView(page, `${name}-invite`, PORTAL_SWITCH, langs)));
  await page.setViewportSize({ width: 1100, height: 900 });
  await page.locator('main button.primary').click();
  await page.locator('main ol.codes li').first().waitFor();
  signUpProblems.push(...(await everyView(page, `${name}-recovery-codes`, null, [await langOf(page)])));
  await page.locator('main button.primary').click();
  await page.locator('table.orders').waitFor();
  await settled(page);
}

/** The screens each role sees, by the portal's own router, with the fragments that show them with data. */
type SignedInScreen = Exclude<Route['name'], 'invite' | 'sign-in'>;
interface Visit {
  name: string;
  hash: string;
  /** What shows the screen drew its data (a row, a field). */
  shows: string;
}
const visits = (): Record<SignedInScreen, Visit[]> => ({
  orders: [{ name: 'orders', hash: '#/orders', shows: 'table.orders tbody tr' }],
  order: [
    { name: 'order-refund-awaiting-payment', hash: `#/orders/${seeded.awaitingPaymentOrder}`, shows: '.refund .refund-qr' },
    { name: 'order-refund-asked', hash: `#/orders/${seeded.refundAskedOrder}`, shows: '[data-field="refund-url"]' },
    { name: 'order-paid', hash: `#/orders/${seeded.paidOrder}`, shows: '.order .facts' },
    { name: 'order-refunded', hash: `#/orders/${seeded.refundedOrder}`, shows: '.refund [data-field="refund-address"]' },
  ],
  links: [{ name: 'links', hash: '#/links', shows: 'table.links tbody tr' }],
  link: [
    { name: 'link-fixed', hash: `#/links/${seeded.fixedLink.id}`, shows: '#link-url' },
    { name: 'link-range', hash: `#/links/${seeded.rangeLink.id}`, shows: '#link-url' },
  ],
  refunds: [{ name: 'refunds', hash: '#/refunds', shows: 'table tbody tr' }],
  // No payment to a merchant's own TON or Stellar wallet is made without a chain: the empty list is shown.
  unmatched: [{ name: 'unmatched', hash: '#/unmatched', shows: 'main .notice:not(:empty)' }],
  developers: [{ name: 'developers', hash: '#/developers', shows: 'table.tokens tbody tr' }],
  settings: [{ name: 'settings', hash: '#/settings', shows: '#addresses-BTC li' }],
  audit: [{ name: 'audit', hash: '#/audit', shows: 'table.audit tbody tr' }],
  team: [{ name: 'team', hash: '#/team', shows: 'table.team tbody tr' }],
  email: [{ name: 'email', hash: '#/email', shows: '#email-address' }],
  plans: [{ name: 'plans', hash: '#/plans', shows: 'table.plans tbody tr' }],
  plan: [{ name: 'plan', hash: `#/plans/${seeded.plan}`, shows: '#plan-id' }],
  subscriptions: [{ name: 'subscriptions', hash: '#/subscriptions', shows: 'table.subscriptions tbody tr' }],
  subscription: [{ name: 'subscription', hash: `#/subscriptions/${seeded.subscription}`, shows: 'table.periods tbody tr' }],
});

/**
 * The portal's own data, made in the portal as its users do: the owner signs up with the demo
 * merchant's invite and makes tokens, email preferences, a key with its first addresses and a
 * team (a developer and a viewer who sign up in tabs of their own, a member who joined and was
 * removed).
 */
async function seedPortal(inviteUrl: string): Promise<void> {
  const owner = await newPortalTab('en-US');
  await signUp(owner, inviteUrl, 'owner', LANGS);
  tabs.owner = owner;
  for (const name of ['Shop backend', 'Reporting (read only)']) await portalCall(owner, 'POST', '/tokens', { name });
  await portalCall(owner, 'POST', '/email-preferences', {
    address: 'owner@shop.test',
    language: 'zh',
    payments: 'daily',
    topics: { unresolved: true, callbacks: true, refund_address: true, new_passkey: false, team: true },
  });
  await portalCall(owner, 'POST', '/settings', { xpubs: { BTC: 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs' } });
  const invite = async (name: string, role: string) => (await portalCall(owner, 'POST', '/team/invites', { name, role })).invite.url as string;
  // The member who joined and was removed: over HTTP with a software passkey (no tab needed).
  const former = new PortalBrowser(api, new URL(portalUrl).origin);
  const joined = await former.acceptInvite(await invite('Former bookkeeper', 'viewer'));
  if (joined.status !== 200) throw new Error(`the former member's invite: ${joined.status} ${joined.text}`);
  await portalCall(owner, 'POST', `/team/${encodeURIComponent(joined.body.user.user_id)}/remove`);
  // The developer signs up in Chinese (the recovery codes are seen in Chinese), the viewer in English.
  const developer = await newPortalTab('zh-CN');
  await signUp(developer, await invite('Dana Developer', 'developer'), 'developer', ['zh']);
  tabs.developer = developer;
  const viewer = await newPortalTab('en-US');
  await signUp(viewer, await invite('Victor Viewer', 'viewer'), 'viewer', []);
  tabs.viewer = viewer;
}

describe('every portal screen and buyer page at 375 and 1280 px, in English and Chinese', () => {
  beforeAll(async () => {
    let inviteUrl: string;
    ({ runtime, api, mailbox, inviteUrl, token } = await startLocalRuntime(dataDir, { QUOTA_MERCHANT_RATE: '0', QUOTA_PUBLIC_RATE: '0' }));
    portalUrl = inviteUrl.split('#')[0]!;
    pageUrl = (await runtime.waitFor(/Payment page:\s+(\S+)/))[1]!;
    // The shop's orders and links through the merchant API, and meanwhile the portal's own data.
    await Promise.all([seedMerchantData(), seedPortal(inviteUrl)]);
  }, 240_000);

  afterAll(() => stopLocalRuntime(runtime, dataDir));

  it("visits every screen the portal draws: each role's by the router, and the signed-out ones", () => {
    // The portal's screens as its entry point lists them: a new one fails here until it is visited.
    const drawn = [...readFileSync('web/portal/src/main.ts', 'utf8').matchAll(/^\s+'?([a-z-]+)'?: [a-zA-Z]+Screen,$/gm)].map((match) => match[1]);
    const visited = ['invite', 'sign-in', ...Object.keys(visits())];
    expect(drawn.sort()).toEqual(visited.sort());
    for (const role of ROLES)
      expect(
        screensOf(role).filter((screen) => !visited.includes(screen)),
        role,
      ).toEqual([]);
  });

  it('the signed-out screens: invite, recovery codes (shown once: English for the owner, Chinese for the developer) and sign-in', async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    await countRequests(context);
    const page = await context.newPage();
    await page.goto(`${portalUrl}#/sign-in`);
    await settled(page);
    const problems = [...signUpProblems, ...(await everyView(page, 'signed-out-sign-in', PORTAL_SWITCH))];
    await context.close();
    expect(problems).toEqual([]);
  });

  /**
   * The screens a role's tab visits: the owner's all (each kind of order and link); another role's
   * those drawn by the signed-in role (their modules read it: what it may do), one of each kind.
   * The rest are drawn alike for every role that sees them, around the same header.
   */
  const readsRole = (screen: string) => /signedInUser\(|mayChangeLinks\(/.test(readFileSync(`web/portal/src/screens/${screen}.ts`, 'utf8'));
  const screensVisited = (role: (typeof ROLES)[number]) => (screensOf(role) as SignedInScreen[]).filter((screen) => role === 'owner' || readsRole(screen));

  for (const role of ROLES) {
    it(`the ${role}'s screens: ${screensVisited(role).join(', ')}`, async () => {
      const page = tabs[role]!;
      const problems: string[] = [];
      const all = visits();
      expect(screensVisited(role).length, role).toBeGreaterThan(0);
      for (const screen of screensVisited(role)) {
        for (const visit of role === 'owner' ? all[screen] : all[screen].slice(0, 1)) {
          await useLang(page, 'en', PORTAL_SWITCH);
          await goTo(page, visit.hash);
          expect(await page.locator(visit.shows).count(), `${role} ${visit.name} shows its data`).toBeGreaterThan(0);
          problems.push(...(await everyView(page, `${role}-${visit.name}`, PORTAL_SWITCH)));
        }
      }
      expect(problems).toEqual([]);
    }, 180_000);
  }

  it('every "Load more" list pages to its end without repeating a row (nor loading again once it is hidden)', async () => {
    const page = tabs.owner!;
    await page.setViewportSize({ width: 1280, height: 800 });
    await useLang(page, 'en', PORTAL_SWITCH);
    const auditEntries = async () => {
      let count = 0;
      let before: string | null = null;
      do {
        const answer: { entries: unknown[]; next_before: string | null } = await portalCall(page, 'GET', `/audit?limit=50${before ? `&before=${encodeURIComponent(before)}` : ''}`);
        count += answer.entries.length;
        before = answer.next_before;
      } while (before);
      return count;
    };
    const lists = [
      { hash: '#/orders', rows: 'table.orders tbody tr', expected: PAID + 4 },
      { hash: '#/links', rows: 'table.links tbody tr', expected: LINKS },
      // Every refund asked but the one sent.
      { hash: '#/refunds', rows: 'table tbody tr', expected: REFUNDED - 1 },
      { hash: '#/audit', rows: 'table.audit tbody tr', expected: await auditEntries() },
    ];
    const problems: string[] = [];
    for (const list of lists) {
      await goTo(page, list.hash);
      const paged = await pageThrough(page, list.rows, page.locator('main button', { hasText: /^Load more$/ }));
      expect({ list: list.hash, rows: paged.keys.length, repeated: paged.repeated, endless: paged.endless }).toEqual({ list: list.hash, rows: list.expected, repeated: [], endless: false });
      // More than one page: "Load more" was shown and clicked.
      expect(paged.clicks, list.hash).toBeGreaterThan(0);
      // The whole list, as long as it gets, holds its layout too.
      problems.push(...(await everyView(page, `owner-${list.hash.slice(2)}-all`, null, ['en'])));
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it("the buyer's pages: the payment page (choosing, an invoice, paid), a payment link's page (a price, a range), the refund page, a plan's page and a subscriber's", async () => {
    const subscription = await seedSubscriber();
    const context = await browser.newContext({ locale: 'en-US' });
    await countRequests(context);
    // What the buyer's app draws, by the module its entry point hands the page to: a new page fails here until it is visited.
    const buyerPages: Record<string, { name: string; url: string; shows: string }[]> = {
      './render': [
        { name: 'pay-choose', url: `${pageUrl}?id=${seeded.choosing}`, shows: '.picker button' },
        { name: 'pay-invoice-usdt', url: `${pageUrl}?id=${seeded.invoiceUsdt}`, shows: '[data-field="address"]' },
        { name: 'pay-invoice-ton', url: `${pageUrl}?id=${seeded.invoiceTon}`, shows: '[data-field="memo"]' },
        { name: 'pay-paid', url: `${pageUrl}?id=${seeded.paidOrder}`, shows: '.status.ok' },
      ],
      './link-page': [
        { name: 'link-fixed', url: seeded.fixedLink.url, shows: '#email' },
        { name: 'link-range', url: seeded.rangeLink.url, shows: '#amount' },
      ],
      './refund': [
        { name: 'refund-ask', url: seeded.refundUrl, shows: '#address' },
        { name: 'refund-used', url: seeded.usedRefundUrl, shows: '.status.error' },
      ],
      './plan-page': [{ name: 'plan', url: subscription.planUrl, shows: '#email' }],
      './subscriber': [{ name: 'subscriber', url: subscription.subscriberUrl, shows: '.period [data-field="status"]' }],
    };
    const NOT_PAGES = ['./actions', './polling', './state'];
    const imported = [...readFileSync('web/src/main.ts', 'utf8').matchAll(/from '(\.\/[a-z-]+)'/g)].map((match) => match[1]!);
    expect(imported.filter((module) => !NOT_PAGES.includes(module)).sort()).toEqual(Object.keys(buyerPages).sort());
    const problems: string[] = [];
    for (const visit of Object.values(buyerPages).flat()) {
      // A tab of its own: the refund pages differ only in their fragment, which the page reads once, at its start.
      const page = await context.newPage();
      await page.goto(visit.url);
      await settled(page);
      await useLang(page, 'en', PAGE_SWITCH);
      expect(await page.locator(visit.shows).count(), `${visit.name} shows its data`).toBeGreaterThan(0);
      problems.push(...(await everyView(page, `buyer-${visit.name}`, PAGE_SWITCH)));
      await page.close();
    }
    await context.close();
    expect(problems).toEqual([]);
  }, 120_000);

  it('the local mailbox: its list and a message', async () => {
    await expect.poll(async () => ((await (await fetch(`${mailbox}messages.json`)).json()) as unknown[]).length, { timeout: 60_000 }).toBeGreaterThan(0);
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    await page.goto(mailbox);
    const problems = await everyView(page, 'mailbox-list', null, ['en']);
    await page.locator('tbody a').first().click();
    await page.locator('h1').waitFor();
    problems.push(...(await everyView(page, 'mailbox-message', null, ['en'])));
    await context.close();
    expect(problems).toEqual([]);
  }, 90_000);
});
