/**
 * The portal's recurring billing routes (plans, subscriptions, their figures and CSV, cancel,
 * the sandbox's test clock) against the real handlers and DynamoDB Local, as an attacker tries
 * them and as a merchant uses them. Every route is tried by every role of merchant A (viewers
 * read and change nothing; developers and owners change) and by merchant B on A's ids (answered
 * exactly as ids that exist nowhere). The search finds a subscription by its customer's email
 * (case ignored), customer id or its own id and never another merchant's; the figures and the
 * CSV count what they say. Each 200 answer is held to its schema (tests/support/portal.ts).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/http/routes';
import type { MerchantCredentials } from '#shared/services/merchants';
import { SUBSCRIPTION_EXPORT_COLUMNS } from '#shared/services/portal/subscriptions';
import { client, newMerchant, startApi } from '../support/api';
import { type PortalBrowser, signedInUser } from '../support/portal';

type Json = Record<string, any>;

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let origin: string;
let shop: MerchantCredentials;
let other: MerchantCredentials;
let live: MerchantCredentials;
let a: { owner: PortalBrowser; developer: PortalBrowser; viewer: PortalBrowser };
let b: PortalBrowser;
let liveOwner: PortalBrowser;

/** The portal's recurring billing routes, which this file covers. */
const BILLING_ROUTES = ROUTES.filter((route) => route.portal && /^\/v1\/portal\/(plans|subscriptions)(\/|$)/.test(route.path));

beforeAll(async () => {
  api = await startApi();
  call = client(api.url);
  origin = `http://localhost:${new URL(api.url).port}`;
  Object.assign(process.env, { PORTAL_ORIGIN: origin, PORTAL_CLIENT_IP_HEADER: 'x-test-client' });
  [shop, other, live] = await Promise.all([newMerchant(true, 'Club A'), newMerchant(true, 'Club B'), newMerchant(false, 'Live Club')]);
  const user = async (merchant: MerchantCredentials, role: 'owner' | 'developer' | 'viewer') => (await signedInUser(api.url, origin, merchant.user_id, role)).browser;
  a = { owner: await user(shop, 'owner'), developer: await user(shop, 'developer'), viewer: await user(shop, 'viewer') };
  b = await user(other, 'owner');
  liveOwner = await user(live, 'owner');
}, 60_000);

afterAll(() => api?.close());

const MONTHLY = { name: 'Chess club', price_amount: '30', price_currency: 'USD', interval_unit: 'month', grace_days: 5, invoice_days_before: 3 } as const;

async function portalPlan(browser: PortalBrowser, body: Json = MONTHLY): Promise<Json> {
  const created = await browser.call('POST', '/v1/portal/plans', { body });
  expect(created.status, created.text).toBe(200);
  return created.body.plan;
}

async function subscribe(merchant: MerchantCredentials, planId: string, customer: Json = {}): Promise<Json> {
  const response = await call('POST', '/v1/subscriptions', { token: merchant.api_token, body: { plan_id: planId, ...customer } });
  expect(response.status, response.text).toBe(201);
  return response.body.subscription;
}

async function pay(merchant: MerchantCredentials, orderId: string): Promise<void> {
  expect((await call('POST', `/v1/orders/${orderId}/checkout`, { token: merchant.api_token, body: { pay_currency: 'USDT_TRC20' } })).status).toBe(200);
  const paid = await call('POST', `/v1/sandbox/orders/${orderId}/pay`, { token: merchant.api_token, body: {} });
  expect(paid.body.order?.status, paid.text).toBe('PAID');
}

describe('every recurring billing route, role and merchant', () => {
  let plan: Json;
  let subscription: Json;
  beforeAll(async () => {
    // In a trial: a cancellation at its end leaves it open to the test clock after it.
    plan = await portalPlan(a.owner, { ...MONTHLY, trial_days: 14 });
    subscription = await subscribe(shop, plan.plan_id, { customer_email: 'matrix@example.com' });
  });

  const pathOf = (path: string, ids: { plan: string; subscription: string }) => path.replace('{plan_id}', ids.plan).replace('{subscription_id}', ids.subscription);
  const validBody = (fn: string): Json | undefined =>
    ({
      'portal-create-plan': { name: 'Matrix plan', price_amount: 5, interval_unit: 'week' },
      'portal-update-plan': { description: 'changed by the matrix' },
      'portal-cancel-subscription': { at_period_end: true },
      'portal-advance-clock': { days: 1 },
    })[fn];

  it('covers every portal route of plans and subscriptions', () => {
    expect(BILLING_ROUTES.map((route) => route.fn).sort()).toEqual(
      [
        'portal-list-plans',
        'portal-create-plan',
        'portal-get-plan',
        'portal-update-plan',
        'portal-list-subscriptions',
        'portal-export-subscriptions',
        'portal-subscription-figures',
        'portal-get-subscription',
        'portal-cancel-subscription',
        'portal-advance-clock',
      ].sort(),
    );
  });

  it('lets viewers read every one and change nothing (403 ROLE_REFUSED), and developers do everything', async () => {
    const failures: string[] = [];
    const ids = { plan: plan.plan_id, subscription: subscription.subscription_id };
    // Viewers first: a developer's cancel at the period's end would leave nothing to refuse.
    for (const [role, browser] of [
      ['viewer', a.viewer],
      ['developer', a.developer],
    ] as const) {
      for (const route of BILLING_ROUTES) {
        const answer = await browser.call(route.method, pathOf(route.path, ids), { body: validBody(route.fn) });
        const refused = answer.status === 403 && answer.body?.error_code === 'ROLE_REFUSED';
        const allowed = route.method === 'GET' || role === 'developer';
        if (allowed ? answer.status !== 200 : !refused) failures.push(`${role} ${route.method} ${route.path}: ${answer.status} ${answer.text.slice(0, 160)}`);
      }
      if (role === 'viewer') {
        // Nothing the refused calls tried happened.
        expect((await a.owner.call('GET', `/v1/portal/plans/${plan.plan_id}`)).body.plan).toMatchObject({ description: '', archived: false });
        const page = await a.owner.call('GET', `/v1/portal/subscriptions/${subscription.subscription_id}`);
        expect(page.body.subscription).toMatchObject({ cancel_at_period_end: false, clock: expect.any(String) });
        expect(Date.parse(page.body.subscription.clock)).toBeLessThan(Date.now() + 3_600_000);
      }
    }
    expect(failures).toEqual([]);
    expect((await a.viewer.call('GET', `/v1/portal/subscriptions/${subscription.subscription_id}`)).body.actions).toEqual([]);
  }, 60_000);

  it("answers B on A's plan and subscription exactly as on ids that exist nowhere, on every route that takes one", async () => {
    const routes = BILLING_ROUTES.filter((route) => route.path.includes('{'));
    expect(routes.length).toBe(5);
    for (const route of routes) {
      const onA = await b.call(route.method, pathOf(route.path, { plan: plan.plan_id, subscription: subscription.subscription_id }), { body: validBody(route.fn) });
      expect(onA.status, `${route.path}: ${onA.text}`).toBe(404);
      for (const missing of [randomUUID(), 'not-an-id']) {
        const onNothing = await b.call(route.method, pathOf(route.path, { plan: missing, subscription: missing }), { body: validBody(route.fn) });
        expect([onNothing.status, onNothing.text], route.path).toEqual([onA.status, onA.text]);
      }
    }
    // A itself reads them: the 404 above was no broken route.
    expect((await a.viewer.call('GET', `/v1/portal/plans/${plan.plan_id}`)).status).toBe(200);
    // B's lists, search and export never show A's.
    for (const path of [
      '/v1/portal/plans',
      '/v1/portal/subscriptions',
      '/v1/portal/subscriptions?q=matrix@example.com',
      `/v1/portal/subscriptions?q=${subscription.subscription_id}`,
      '/v1/portal/subscriptions/export',
    ]) {
      const answer = await b.call('GET', path);
      expect(answer.status, path).toBe(200);
      expect(answer.text, path).not.toContain(plan.plan_id);
      expect(answer.text, path).not.toContain(subscription.subscription_id);
    }
  });

  it('refuses every POST without the CSRF token or from another origin', async () => {
    for (const route of BILLING_ROUTES.filter((entry) => entry.method === 'POST')) {
      const path = pathOf(route.path, { plan: plan.plan_id, subscription: subscription.subscription_id });
      const noCsrf = await a.owner.call('POST', path, { body: validBody(route.fn), csrf: null });
      expect([noCsrf.status, noCsrf.body.error_code], path).toEqual([403, 'CSRF_REFUSED']);
      const foreign = await a.owner.call('POST', path, { body: validBody(route.fn), origin: 'https://evil.example' });
      expect(foreign.status, path).toBe(403);
    }
  });
});

describe('plans in the portal', () => {
  it('creates, lists, reads, changes and archives a plan; a refused field is INVALID_INPUT naming it', async () => {
    const plan = await portalPlan(a.developer, { ...MONTHLY, name: 'Go club', trial_days: 7 });
    expect(plan).toMatchObject({ name: 'Go club', price_amount: '30', trial_days: 7, archived: false });
    const refused = await a.owner.call('POST', '/v1/portal/plans', { body: { ...MONTHLY, interval_unit: 'day', interval_count: 2, invoice_days_before: 3 } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error_code: 'INVALID_INPUT', error: expect.stringContaining('invoice_days_before') });
    const listed = await a.viewer.call('GET', '/v1/portal/plans');
    expect(listed.body.plans[0]).toEqual(plan);

    const changed = await a.owner.call('POST', `/v1/portal/plans/${plan.plan_id}`, { body: { price_amount: '35' } });
    expect(changed.body.plan).toMatchObject({ price_amount: '35', archived: false });
    const archived = await a.owner.call('POST', `/v1/portal/plans/${plan.plan_id}`, { body: { archived: true } });
    expect(archived.body.plan.archived).toBe(true);
    const noSubscriber = await call('POST', '/v1/subscriptions', { token: shop.api_token, body: { plan_id: plan.plan_id } });
    expect([noSubscriber.status, noSubscriber.body.error_code]).toEqual([409, 'PLAN_ARCHIVED']);
    expect((await a.viewer.call('GET', `/v1/portal/plans/${plan.plan_id}`)).body.plan).toEqual(archived.body.plan);
  });
});

describe('subscriptions in the portal', () => {
  let plan: Json;
  beforeAll(async () => {
    plan = await portalPlan(a.owner, { ...MONTHLY, name: 'Search club' });
  });

  it("finds a subscription by its customer's email whatever its case, by the customer id and by its own id; never B's", async () => {
    const email = `Ada.${randomUUID().slice(0, 8)}@Example.com`;
    const first = await subscribe(shop, plan.plan_id, { customer_email: email, customer_id: 'CUS-7' });
    const second = await subscribe(shop, plan.plan_id, { customer_email: email.toLowerCase() });
    const bPlan = await portalPlan(b);
    const theirs = await subscribe(other, bPlan.plan_id, { customer_email: email, customer_id: 'CUS-7' });
    const found = async (q: string, status?: string) => {
      const answer = await a.viewer.call('GET', `/v1/portal/subscriptions?${new URLSearchParams({ q, ...(status ? { status } : {}) })}`);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.next_cursor).toBeNull();
      return answer.body.subscriptions.map((row: Json) => row.subscription_id);
    };
    expect(await found(email.toUpperCase())).toEqual([second.subscription_id, first.subscription_id]);
    expect(await found(` ${email.toLowerCase()} `)).toEqual([second.subscription_id, first.subscription_id]);
    expect(await found('cus-7')).toEqual([first.subscription_id]);
    expect(await found(first.subscription_id)).toEqual([first.subscription_id]);
    expect(await found(theirs.subscription_id)).toEqual([]);
    expect(await found(email, 'canceled')).toEqual([]);
    expect(await found('nobody@example.com')).toEqual([]);
    const row = (await a.viewer.call('GET', `/v1/portal/subscriptions?q=${first.subscription_id}`)).body.subscriptions[0];
    expect(row).toMatchObject({
      plan_name: 'Search club',
      price_amount: '30',
      price_currency: 'USD',
      interval_unit: 'month',
      interval_count: 1,
      status: 'incomplete',
      customer_id: 'CUS-7',
      sandbox: true,
    });
  });

  it('lists by status, newest first, a page by cursor', async () => {
    const listPlan = await portalPlan(a.owner, { ...MONTHLY, name: 'List club' });
    const older = await subscribe(shop, listPlan.plan_id, { customer_id: 'list-1' });
    const newer = await subscribe(shop, listPlan.plan_id, { customer_id: 'list-2' });
    const first = await a.viewer.call('GET', '/v1/portal/subscriptions?status=incomplete&limit=1');
    expect(first.body.subscriptions.map((row: Json) => row.subscription_id)).toEqual([newer.subscription_id]);
    const next = await a.viewer.call('GET', `/v1/portal/subscriptions?status=incomplete&limit=1&cursor=${first.body.next_cursor}`);
    expect(next.body.subscriptions.map((row: Json) => row.subscription_id)).toEqual([older.subscription_id]);
    const active = await a.viewer.call('GET', '/v1/portal/subscriptions?status=active&limit=50');
    expect(active.body.subscriptions.every((row: Json) => row.status === 'active')).toBe(true);
    expect(active.text).not.toContain(newer.subscription_id);
  });

  it("shows a subscription's periods with their orders; the test clock brings the next; cancel at the period's end, then now", async () => {
    const subscription = await subscribe(shop, plan.plan_id, { customer_email: 'clock@example.com' });
    const id = subscription.subscription_id;
    const opened = await a.developer.call('GET', `/v1/portal/subscriptions/${id}`);
    expect(opened.body.periods).toEqual([expect.objectContaining({ period: 1, attempt: 1, order_id: subscription.period_order_id, order_status: 'NEW', price_amount: '30' })]);
    expect(opened.body.due).toMatchObject({ period: 1, price_amount: '30', price_currency: 'USD' });
    expect(opened.body.actions).toEqual(['cancel', 'advance_clock']);

    await pay(shop, subscription.period_order_id);
    const moved = await a.developer.call('POST', `/v1/portal/subscriptions/${id}/advance`, { body: { days: 30 } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.subscription).toMatchObject({ status: 'active', periods_paid: 1, period: 2 });
    expect(moved.body.periods.map((period: Json) => [period.period, period.order_status])).toEqual([
      [2, 'NEW'],
      [1, 'PAID'],
    ]);
    expect(moved.body.due).toMatchObject({ period: 2, due_at: moved.body.periods[0].due_at });
    expect(moved.body.actions).toEqual(['cancel', 'cancel_at_period_end', 'advance_clock']);

    const atEnd = await a.developer.call('POST', `/v1/portal/subscriptions/${id}/cancel`, { body: { at_period_end: true } });
    expect(atEnd.body.subscription).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect(atEnd.body.actions).toEqual(['cancel', 'advance_clock']);
    const now = await a.developer.call('POST', `/v1/portal/subscriptions/${id}/cancel`, { body: {} });
    expect(now.body.subscription).toMatchObject({ status: 'canceled', cancel_reason: 'merchant', canceled_at: expect.any(String) });
    expect(now.body.due).toBeNull();
    expect(now.body.actions).toEqual([]);
    expect(now.body.periods[0]).toMatchObject({ period: 2, order_status: 'CANCELED' });
    const again = await a.developer.call('POST', `/v1/portal/subscriptions/${id}/advance`, { body: { days: 1 } });
    expect([again.status, again.body.error_code]).toEqual([409, 'SUBSCRIPTION_CANCELED']);
  });

  it("refuses to move a live merchant's clock (403 SANDBOX_ONLY), and a day count out of bounds", async () => {
    const livePlan = await portalPlan(liveOwner);
    const subscription = await subscribe(live, livePlan.plan_id, { customer_id: 'live-1' });
    expect((await liveOwner.call('GET', `/v1/portal/subscriptions/${subscription.subscription_id}`)).body.actions).toEqual(['cancel']);
    const refused = await liveOwner.call('POST', `/v1/portal/subscriptions/${subscription.subscription_id}/advance`, { body: { days: 1 } });
    expect([refused.status, refused.body.error_code]).toEqual([403, 'SANDBOX_ONLY']);
    for (const days of [0, 367, 'a']) {
      expect((await a.owner.call('POST', `/v1/portal/subscriptions/${subscription.subscription_id}/advance`, { body: { days } })).status).toBe(400);
    }
  });
});

describe('the figures and the CSV', () => {
  it('count the monthly recurring revenue per currency, and the churn of the paying ones ended', async () => {
    const merchant = await newMerchant(true, 'Figures club');
    const owner = (await signedInUser(api.url, origin, merchant.user_id, 'owner')).browser;
    const planOf = (body: Json) => portalPlan(owner, body);
    const monthly = await planOf(MONTHLY);
    const weekly = await planOf({ ...MONTHLY, name: 'Weekly', price_amount: '12', interval_unit: 'week' });
    const yearly = await planOf({ ...MONTHLY, name: 'Yearly yen', price_amount: '1000', price_currency: 'JPY', interval_unit: 'year' });
    const started = async (planId: string, paid: boolean) => {
      const subscription = await subscribe(merchant, planId, { customer_id: randomUUID() });
      if (!paid) return subscription;
      await pay(merchant, subscription.period_order_id);
      return (await owner.call('POST', `/v1/portal/subscriptions/${subscription.subscription_id}/advance`, { body: { days: 0.001 } })).body.subscription;
    };
    await started(monthly.plan_id, true);
    await started(weekly.plan_id, true);
    await started(yearly.plan_id, true);
    // Not paying: a first period unpaid.
    await started(monthly.plan_id, false);
    const ended = await started(monthly.plan_id, true);
    expect((await owner.call('POST', `/v1/portal/subscriptions/${ended.subscription_id}/cancel`, { body: {} })).body.subscription.status).toBe('canceled');

    const figures = await owner.call('GET', '/v1/portal/subscriptions/figures');
    expect(figures.status, figures.text).toBe(200);
    expect(figures.body).toEqual({
      status: 200,
      // 30 a month and 12 a week (52 a year: 52 a month); 1000 yen a year is 83 a month.
      mrr: [
        { currency: 'JPY', amount: '83', subscriptions: 1 },
        { currency: 'USD', amount: '82', subscriptions: 2 },
      ],
      // All started today: the one ended after paying is the only one paying at the window's start.
      churn: { window_days: 30, ended: 1, at_start: 1, rate: 1 },
      active: 3,
      past_due: 0,
      read_limit: 2000,
      complete: true,
    });

    const csv = await owner.call('GET', '/v1/portal/subscriptions/export?status=active');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(SUBSCRIPTION_EXPORT_COLUMNS.join(','));
    const rows = lines.slice(1).map((line) => Object.fromEntries(line.split(',').map((value, index) => [SUBSCRIPTION_EXPORT_COLUMNS[index], value])));
    expect(rows.map((row) => `${row.plan_name} ${row.price_amount} ${row.price_currency} ${row.status}`).sort()).toEqual([
      'Chess club 30 USD active',
      'Weekly 12 USD active',
      'Yearly yen 1000 JPY active',
    ]);
    const all = await owner.call('GET', '/v1/portal/subscriptions/export');
    expect(all.text.trimEnd().split('\r\n')).toHaveLength(1 + 5);
    const searched = await owner.call('GET', `/v1/portal/subscriptions/export?q=${ended.subscription_id}`);
    expect(
      searched.text
        .trimEnd()
        .split('\r\n')
        .slice(1)
        .map((line) => line.split(',')[0]),
    ).toEqual([ended.subscription_id]);
  }, 60_000);
});
