/**
 * The authorization matrix: two merchants (A and B) and an anonymous caller against every
 * route of ROUTES, with A's orders in every status the API can reach, and its plans and a
 * subscription in every status. Generated from ROUTES, so a new route is covered (or, if it
 * cannot be classified, fails here by name).
 *
 * - anonymous on a merchant route: 401 AUTHENTICATION_FAILED, the same answer for every id;
 * - B on A's order, plan or subscription: exactly the answer (status and body) B gets for an id
 *   that exists nowhere; B cannot subscribe a customer to A's plan;
 * - B's lists never show A's orders, plans or subscriptions, B's create is not told A's
 *   merchant_order_id exists;
 * - public /v1/pay/ routes: reachable anonymously, never showing the merchant's callback token,
 *   callback_url, user_id or merchant_order_id (nor the API token); a plan's link page shows A's
 *   plans to anyone alike, and the subscriber's page routes answer any secret that is no link one
 *   uniform 404, whoever asks;
 * - nothing B or the anonymous caller did changed A's orders (Get Order, callback log and
 *   list, updated_at included), plans or subscriptions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ROUTES as ALL_ROUTES } from '#shared/http/routes';

// The merchant portal's routes (session cookies, not tokens) have their own attacker tests: tests/integration/portal-auth.test.ts,
// portal-orders.test.ts, portal-account.test.ts, payment-links.test.ts, and for plans and subscriptions portal-subscriptions.test.ts
// (each of their routes tried by every role and by another merchant; it fails when a route of theirs is not in its list).
const ROUTES = ALL_ROUTES.filter((route) => !route.portal && !isLinkRoute(route));
import { newMerchant, startApi } from '../support/api';
import { recordAttack } from '../support/security-report';
import {
  describeRequest,
  describeResponse,
  describeRoute,
  isLinkRoute,
  documentedErrorCodes,
  jsonRequest,
  pathOf,
  rawClient,
  seedOrders,
  seedSubscriptions,
  sendChecked,
  snapshotBilling,
  snapshotMerchant,
  stringsOf,
  validBody,
  type FuzzRequest,
  type RawResponse,
  type RouteInfo,
  type SeededBilling,
  type SeededOrder,
  type Send,
} from '../support/fuzz';

const codes = documentedErrorCodes();

let api: Awaited<ReturnType<typeof startApi>>;
let client: ReturnType<typeof rawClient>;
let send: Send;
let a: { token: string; userId: number; orders: SeededOrder[]; billing: SeededBilling };
let b: { token: string; orders: SeededOrder[]; billing: SeededBilling };
let before: Awaited<ReturnType<typeof snapshotA>>;
/** "caller route-key" pairs the matrix exercised, checked at the end against ROUTES. */
const covered = new Set<string>();
let counter = 0;
/** Requests the matrix sent (seeding A's and B's orders included), for docs/security.md. */
const sent = { requests: 0 };
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter += 1)}`;

/** A's orders, plans and subscriptions of the matrix as the API shows them (those made later, for public writes or by A itself, left out). */
async function snapshotA() {
  const snapshot = await snapshotMerchant(send, a.token);
  const ids = new Set(a.orders.map((order) => order.order_id));
  const billing = await snapshotBilling(send, a.token);
  const seeded = new Set([...a.billing.plans.map((plan) => plan.plan_id), ...a.billing.subscriptions.map((item) => item.subscription_id)]);
  return {
    list: snapshot.list.filter((order) => ids.has(order.order_id)),
    orders: Object.fromEntries(Object.entries(snapshot.orders).filter(([id]) => ids.has(id))),
    plans: billing.plans.filter((plan) => seeded.has(plan.plan_id)),
    subscriptions: billing.subscriptions.filter((item) => seeded.has(item.subscription_id)),
  };
}

/** A resource a path id names: an order, a plan or a subscription, with what it is for messages. */
interface Resource {
  id: string;
  label: string;
}

/** The merchant's resources of the kind the route's path parameter holds. */
function resourcesOf(info: RouteInfo, merchant: { orders: SeededOrder[]; billing: SeededBilling }): Resource[] {
  if (info.idKind === 'plan') return merchant.billing.plans.map((plan) => ({ id: plan.plan_id, label: `${plan.label} plan` }));
  if (info.idKind === 'subscription') return merchant.billing.subscriptions.map((item) => ({ id: item.subscription_id, label: `${item.status} subscription` }));
  return merchant.orders.map((order) => ({ id: order.order_id, label: `${order.status} order` }));
}

/** Every id of A's that B must never see in a list. */
const idsOfA = (): string[] => [...a.orders.map((order) => order.order_id), ...a.billing.plans.map((plan) => plan.plan_id), ...a.billing.subscriptions.map((item) => item.subscription_id)];

beforeAll(async () => {
  api = await startApi();
  client = rawClient(api.url);
  send = (request) => {
    sent.requests += 1;
    return client.send(request);
  };
  const [merchantA, merchantB] = await Promise.all([newMerchant(true, 'Authz Shop A'), newMerchant(true, 'Authz Shop B')]);
  a = {
    token: merchantA.api_token,
    userId: merchantA.user_id,
    orders: await seedOrders(send, merchantA.api_token, 'authzA', ROUTES),
    billing: await seedSubscriptions(send, merchantA.api_token, 'authzA'),
  };
  b = {
    token: merchantB.api_token,
    orders: (await seedOrders(send, merchantB.api_token, 'authzB', ROUTES)).slice(0, 3),
    billing: await seedSubscriptions(send, merchantB.api_token, 'authzB'),
  };
  before = await snapshotA();
  expect(before.list).toHaveLength(a.orders.length);
  expect(before.subscriptions).toHaveLength(a.billing.subscriptions.length);
}, 120_000);

afterAll(async () => {
  client?.close();
  await api?.close();
});

/** Every route, classified (throws, naming the route, for one this matrix cannot place). */
const infos = (): RouteInfo[] => ROUTES.map(describeRoute);
const merchantRoutes = () => infos().filter((info) => info.audience === 'merchant');
const publicRoutes = () => infos().filter((info) => info.audience === 'public' && !REFUND_LINK_ROUTES.has(info.key) && !isSubscriberRoute(info));
/** The refund page's routes: the refund link's secret (in the body) is their capability, not an order id. */
const REFUND_LINK_ROUTES: ReadonlySet<string> = new Set(['POST /v1/pay/refund', 'POST /v1/pay/refund/address']);
/** The subscriber's routes: a plan's link page (the plan id is its capability) and the subscriber's page (its link's secret, in the body). */
const isSubscriberRoute = (info: RouteInfo): boolean => info.route.path.startsWith('/v1/pay/plans/') || info.route.path.startsWith('/v1/pay/subscriptions/');
const gatewayRoutes = () => infos().filter((info) => info.audience === 'gateway');

/** The request a caller makes on a route: A's style of valid request, for `orderId` when the route takes one. */
function requestFor(info: RouteInfo, token: string | undefined, orderId?: string, body?: Record<string, unknown>): FuzzRequest {
  const path = pathOf(info, orderId);
  return jsonRequest(info.route.method, path, token, body ?? validBody(info, orderId, unique('authz')));
}

async function call(request: FuzzRequest, extra?: (response: RawResponse) => string[]): Promise<RawResponse> {
  return sendChecked(send, request, codes, extra);
}

function expect401(response: RawResponse, request: FuzzRequest): void {
  expect(response.status, `${describeRequest(request)}\n${describeResponse(response)}`).toBe(401);
  expect(response.json).toEqual({ status: 401, error: expect.any(String), error_code: 'AUTHENTICATION_FAILED' });
}

describe('the matrix covers every route of ROUTES', () => {
  it('classifies every route (a new kind of route must be taught to tests/support/fuzz.ts)', () => {
    expect(merchantRoutes().length).toBeGreaterThanOrEqual(12);
    for (const info of infos()) {
      if (info.audience === 'public' && !info.orderParam && !REFUND_LINK_ROUTES.has(info.key) && !isSubscriberRoute(info)) {
        throw new Error(`public route ${info.key} takes no order id: the order id is the page's only capability, teach this matrix what it guards`);
      }
    }
  });
});

describe('anonymous caller on merchant routes', () => {
  const BOGUS_TOKENS = (): (string | undefined)[] => [
    undefined,
    '',
    'null',
    `${a.token.slice(0, -1)}${a.token.endsWith('A') ? 'B' : 'A'}`,
    a.token.toUpperCase() === a.token ? a.token.toLowerCase() : a.token.toUpperCase(),
    'A'.repeat(43),
  ];

  it('answers 401 AUTHENTICATION_FAILED on every merchant route, the same for every id and token', async () => {
    const answers = new Set<string>();
    for (const info of merchantRoutes()) {
      const ids = info.idParam ? [...resourcesOf(info, a).map((resource) => resource.id), randomUUID(), resourcesOf(info, b)[0]!.id] : [undefined];
      for (const id of ids) {
        for (const token of BOGUS_TOKENS()) {
          const request = requestFor(info, token, id);
          const response = await call(request);
          expect401(response, request);
          answers.add(response.text);
        }
      }
      covered.add(`anonymous ${info.key}`);
    }
    // One body for all: nothing about the route, the order or the token's closeness shows.
    expect([...answers]).toHaveLength(1);
  });
});

describe('merchant B on merchant A', () => {
  it("answers B on each of A's orders, plans and subscriptions exactly as on an id that exists nowhere, on every route that takes one", async () => {
    const mismatches: string[] = [];
    for (const info of merchantRoutes().filter((route) => route.idParam)) {
      for (const resource of resourcesOf(info, a)) {
        const onA = requestFor(info, b.token, resource.id);
        const responseOnA = await call(onA);
        for (const other of [randomUUID(), resource.id.toUpperCase(), randomUUID().replace(/^./, '0')]) {
          const onNothing = requestFor(info, b.token, other);
          const responseOnNothing = await call(onNothing);
          if (responseOnA.status !== responseOnNothing.status || responseOnA.text !== responseOnNothing.text) {
            mismatches.push(`${info.key} on A's ${resource.label}: ${describeResponse(responseOnA)}\n    vs missing id ${other}: ${describeResponse(responseOnNothing)}`);
          }
        }
        expect(responseOnA.status, `${info.key}: B got a success on A's ${resource.label}: ${responseOnA.text}`).toBeGreaterThanOrEqual(400);
      }
      covered.add(`B ${info.key}`);
    }
    expect(mismatches, mismatches.join('\n')).toEqual([]);
  });

  it('would notice an oracle: A itself gets its orders, plans and subscriptions on read routes, where B gets the missing answer', async () => {
    for (const info of merchantRoutes().filter((route) => route.idParam && !route.writes)) {
      const own = await call(requestFor(info, a.token, resourcesOf(info, a)[0]!.id));
      const missing = await call(requestFor(info, a.token, randomUUID()));
      expect(own.status, describeResponse(own)).toBe(200);
      expect(own.text).not.toBe(missing.text);
    }
  });

  it("never lists A's orders, plans or subscriptions to B, whatever the filter, page or path spelling", async () => {
    const aIds = idsOfA();
    const bIds = [...b.orders.map((order) => order.order_id), ...b.billing.plans.map((plan) => plan.plan_id), ...b.billing.subscriptions.map((item) => item.subscription_id)];
    for (const info of merchantRoutes().filter((route) => !route.idParam && route.route.method === 'GET')) {
      let sawOwn = false;
      for (const query of listQueries(info)) {
        const request = jsonRequest('GET', `${pathOf(info)}${query}`, b.token);
        const response = await call(request);
        expect(response.status, describeResponse(response)).toBe(200);
        for (const id of aIds) expect(response.text, `${info.key}${query} shows A's order ${id}`).not.toContain(id);
        expect(response.text).not.toContain(a.orders[0]!.callbackToken);
        if (bIds.some((id) => response.text.includes(id))) sawOwn = true;
      }
      // The check means something only if the list works: B sees its own orders (plans, subscriptions).
      expect(sawOwn, `${info.key} never showed B its own orders`).toBe(true);
      covered.add(`B ${info.key}`);
    }
  });

  it("answers B's subscription to A's plan exactly as one to a plan that exists nowhere", async () => {
    const onA = await call(jsonRequest('POST', '/v1/subscriptions', b.token, { plan_id: a.billing.plans[0]!.plan_id, customer_email: 'member@example.test' }));
    const onNothing = await call(jsonRequest('POST', '/v1/subscriptions', b.token, { plan_id: randomUUID(), customer_email: 'member@example.test' }));
    expect(onA.status, describeResponse(onA)).toBe(404);
    expect(onA.text).toBe(onNothing.text);
    // A itself can subscribe to it: the refusal is B's, not the plan's.
    const own = await call(jsonRequest('POST', '/v1/subscriptions', a.token, { plan_id: a.billing.plans[1]!.plan_id }));
    expect(own.status, describeResponse(own)).toBe(201);
  });

  it("does not tell B that A's merchant_order_id exists (B may use the same reference)", async () => {
    for (const info of merchantRoutes().filter((route) => !route.idParam && route.route.method === 'POST')) {
      const fresh = validBody(info, undefined, unique('authzB-fresh'));
      const asA = validBody(info, undefined, a.orders[0]!.merchant_order_id);
      const responseFresh = await call(jsonRequest('POST', pathOf(info), b.token, fresh));
      const responseAsA = await call(jsonRequest('POST', pathOf(info), b.token, asA));
      expect(responseAsA.status, describeResponse(responseAsA)).toBe(responseFresh.status);
      expect(responseAsA.json?.error_code).toBe(responseFresh.json?.error_code);
      expect(responseAsA.text).not.toContain(a.orders[0]!.order_id);
      covered.add(`B ${info.key}`);
    }
  });
});

/**
 * The queries a list route is read with: no query, a full page, each status its query schema
 * takes, and offsets where it pages by offset (Get Orders; the others page by cursor).
 */
function listQueries(info: RouteInfo): string[] {
  const properties = info.query?.properties ?? {};
  const statuses = (properties.status?.enum ?? []) as readonly string[];
  const offsets = 'offset' in properties ? ['?limit=50&offset=0', '?offset=1'] : [];
  return ['', '?limit=50', ...offsets, ...statuses.map((status) => `?status=${status}&limit=50`)];
}

/** The invoice ids of A's matrix orders (as Get Order showed them before the matrix ran). */
function invoiceIdsOfA(): string[] {
  return Object.values(before.orders)
    .map((order: any) => order.detail?.invoice?.invoice_id as string | undefined)
    .filter((id): id is string => typeof id === 'string' && id !== '');
}

/** What the payment page must never show: the merchant's secrets and internal references. */
function secretsShown(response: RawResponse, orders: readonly SeededOrder[]): string[] {
  const problems: string[] = [];
  // docs/merchant-guide.md, "The payment page": never the callback token or URL, user_id, merchant_order_id, or the invoice's ids, rate and payments.
  const forbiddenKeys = new Set(['token', 'callback_url', 'user_id', 'merchant_order_id', 'api_token', 'callback_secret', 'token_hash', 'invoice_id', 'rate', 'payments']);
  const keys = new Set<string>();
  const walk = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        keys.add(key);
        walk(item);
      }
    }
  };
  walk(response.json);
  for (const key of keys) if (forbiddenKeys.has(key)) problems.push(`shows the field ${key}`);
  const strings = stringsOf(response.json).join('\n');
  for (const order of orders) {
    for (const [what, value] of [
      ['callback token', order.callbackToken],
      ['callback_url', order.callback_url],
      ['merchant_order_id', order.merchant_order_id],
    ] as const) {
      if (response.text.includes(value) || strings.includes(value)) problems.push(`shows the ${what} ${JSON.stringify(value)}`);
    }
  }
  if (response.text.includes(a.token)) problems.push("shows A's API token");
  for (const invoiceId of invoiceIdsOfA()) if (response.text.includes(invoiceId)) problems.push(`shows the invoice id ${invoiceId}`);
  if (new RegExp(`"user_id"\\s*:\\s*${a.userId}\\b`).test(response.text)) problems.push("shows A's user_id");
  return problems;
}

describe('public payment-page routes (/v1/pay/)', () => {
  it("would notice a leak: the merchant's own Get Order shows what the page must not", async () => {
    const own = await call(jsonRequest('GET', `/v1/orders/${a.orders[0]!.order_id}`, a.token));
    const found = secretsShown(own, a.orders);
    expect(invoiceIdsOfA().length, 'A has checked-out orders').toBeGreaterThan(0);
    for (const what of ['field token', 'field callback_url', 'field user_id', 'field merchant_order_id', 'callback token']) {
      expect(found.join('; ')).toContain(what);
    }
  });

  it("reads A's orders anonymously in every status, the same with or without any token, showing no merchant secret", async () => {
    for (const info of publicRoutes().filter((route) => !route.writes)) {
      for (const order of a.orders) {
        const anonymous = requestFor(info, undefined, order.order_id);
        const response = await call(anonymous, (answer) => secretsShown(answer, a.orders));
        expect(response.status, `${info.key} on A's ${order.status} order: ${describeResponse(response)}`).toBe(200);
        for (const token of [a.token, b.token, 'garbage-token-garbage']) {
          const withToken = await call(requestFor(info, token, order.order_id));
          expect(withToken.status).toBe(response.status);
          expect(withToken.text, `${info.key} answers differently with a token`).toBe(response.text);
        }
      }
      // docs/merchant-guide.md: an unknown or malformed id is 404 ORDER_NOT_FOUND on every page endpoint.
      for (const id of [randomUUID(), 'not-an-id']) {
        const missing = await call(requestFor(info, undefined, id));
        expect(missing.status, describeResponse(missing)).toBe(404);
        expect(missing.json?.error_code).toBe('ORDER_NOT_FOUND');
      }
      covered.add(`anonymous ${info.key}`);
    }
  });

  it('writes on fresh orders of A anonymously (never 401/403 for want of a token), showing no merchant secret', async () => {
    for (const info of publicRoutes().filter((route) => route.writes)) {
      // Public writes legitimately change orders: they act on orders made for them, not the matrix's.
      const targets = await seedOrders(send, a.token, `authzA-${info.route.fn}`, ROUTES);
      let succeeded = 0;
      for (const order of targets) {
        const request = requestFor(info, undefined, order.order_id);
        const response = await call(request, (answer) => secretsShown(answer, [...a.orders, ...targets]));
        expect([401, 403].includes(response.status) && response.json?.error_code === 'AUTHENTICATION_FAILED', describeResponse(response)).toBe(false);
        if (response.status === 200) succeeded += 1;
      }
      expect(succeeded, `${info.key} succeeded on none of A's orders (in ${targets.map((order) => order.status).join(', ')})`).toBeGreaterThan(0);
      for (const id of [randomUUID(), 'not-an-id']) {
        const missing = await call(requestFor(info, undefined, id));
        expect(missing.status, describeResponse(missing)).toBe(404);
        expect(missing.json?.error_code).toBe('ORDER_NOT_FOUND');
      }
      covered.add(`anonymous ${info.key}`);
    }
  }, 60_000);
});

describe('refund link routes (/v1/pay/refund)', () => {
  it('answer a secret that is no link, malformed or not, 404 REFUND_LINK_INVALID or 400, the same with or without any token', async () => {
    for (const info of infos().filter((route) => REFUND_LINK_ROUTES.has(route.key))) {
      for (const secret of ['A'.repeat(43), 'x'.repeat(43).replace(/^x/, '-'), a.orders[0]!.order_id, 'short']) {
        const body = info.key.endsWith('/address') ? { secret, address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' } : { secret };
        const anonymous = await call(jsonRequest('POST', info.route.path, undefined, body), (answer) => secretsShown(answer, a.orders));
        expect([400, 404], describeResponse(anonymous)).toContain(anonymous.status);
        if (secret.length === 43) expect(anonymous.json?.error_code, describeResponse(anonymous)).toBe('REFUND_LINK_INVALID');
        for (const token of [a.token, b.token]) {
          const withToken = await call(jsonRequest('POST', info.route.path, token, body));
          expect(withToken.text).toBe(anonymous.text);
        }
      }
      covered.add(`anonymous ${info.key}`);
    }
  });
});

describe("the subscriber's routes (/v1/pay/plans/, /v1/pay/subscriptions/)", () => {
  it("show A's plans to anyone alike, with or without any token, no merchant secret; a missing plan is 404 whoever asks", async () => {
    for (const info of infos().filter((route) => isSubscriberRoute(route) && route.idKind === 'plan')) {
      for (const plan of resourcesOf(info, a)) {
        // Subscribing would change A's subscriptions: only what makes nothing is sent on A's plans (a page, a link asked for, an address refused).
        const body = info.route.method === 'GET' ? undefined : info.key.endsWith('/subscriptions') ? { email: 'not an address' } : { email: `authz-${unique('link')}@example.test` };
        const anonymous = await call(jsonRequest(info.route.method, pathOf(info, plan.id), undefined, body), (answer) => secretsShown(answer, a.orders));
        expect(anonymous.status, `${info.key} on ${plan.label}: ${describeResponse(anonymous)}`).toBe(info.key.endsWith('/subscriptions') ? 400 : 200);
        for (const token of [a.token, b.token]) expect((await call(jsonRequest(info.route.method, pathOf(info, plan.id), token, body))).text).toBe(anonymous.text);
      }
      for (const id of [randomUUID(), a.orders[0]!.order_id, 'not-an-id']) {
        const missing = await call(jsonRequest(info.route.method, pathOf(info, id), undefined, info.route.method === 'GET' ? undefined : { email: 'someone@example.test' }));
        expect([missing.status, missing.json?.error_code], describeResponse(missing)).toEqual([404, 'PLAN_NOT_FOUND']);
      }
      covered.add(`anonymous ${info.key}`);
    }
  });

  it('answer a secret that is no link, malformed or not, 404 SUBSCRIPTION_NOT_FOUND or 400, the same with or without any token', async () => {
    for (const info of infos().filter((route) => isSubscriberRoute(route) && !route.idParam)) {
      for (const secret of ['A'.repeat(43), 'x'.repeat(43).replace(/^x/, '-'), a.orders[0]!.order_id, a.billing.subscriptions[0]!.subscription_id, 'short']) {
        const anonymous = await call(jsonRequest('POST', info.route.path, undefined, { secret }), (answer) => secretsShown(answer, a.orders));
        expect([400, 404], describeResponse(anonymous)).toContain(anonymous.status);
        if (secret.length === 43) expect(anonymous.json?.error_code, describeResponse(anonymous)).toBe('SUBSCRIPTION_NOT_FOUND');
        for (const token of [a.token, b.token]) expect((await call(jsonRequest('POST', info.route.path, token, { secret }))).text).toBe(anonymous.text);
      }
      covered.add(`anonymous ${info.key}`);
    }
  });
});

describe("gateways' notification routes (/v1/gateways/)", () => {
  it('refuse anything not signed by the gateway, with or without any token, and change nothing', async () => {
    expect(gatewayRoutes().length).toBeGreaterThanOrEqual(2);
    for (const info of gatewayRoutes()) {
      const order = a.orders[0]!.order_id;
      const bodies = ['', `out_trade_no=${order.replace(/-/g, '')}&trade_status=TRADE_SUCCESS&total_amount=1.00`, JSON.stringify({ order_id: order })];
      for (const token of [undefined, a.token, b.token]) {
        for (const body of bodies) {
          const request: FuzzRequest = { method: 'POST', path: info.route.path, headers: { ...(token ? { token } : {}), 'content-type': 'application/x-www-form-urlencoded' }, body };
          const response = await call(request);
          expect(response.status, `${info.key}: ${describeResponse(response)}`).toBeGreaterThanOrEqual(400);
          expect(response.status).toBeLessThan(500);
        }
      }
      covered.add(`anonymous ${info.key}`);
      covered.add(`B ${info.key}`);
    }
  });
});

describe('afterwards', () => {
  it('the monitors (GET /v1/health) answer anyone the same, with or without any token, showing no merchant secret', async () => {
    for (const info of infos().filter((route) => route.audience === 'monitor')) {
      const anonymous = await call(requestFor(info, undefined), (answer) => secretsShown(answer, a.orders));
      expect(anonymous.status, describeResponse(anonymous)).toBe(200);
      for (const token of [a.token, b.token, 'garbage-token-garbage']) {
        const withToken = await call(requestFor(info, token), (answer) => secretsShown(answer, a.orders));
        expect(withToken.status).toBe(200);
        // `checked_at` is the only thing that may differ between two answers.
        expect(withToken.text.replace(/"checked_at":"[^"]+"/, '')).toBe(anonymous.text.replace(/"checked_at":"[^"]+"/, ''));
      }
      for (const text of [a.token, b.token, ...a.orders.map((order) => order.order_id)]) expect(anonymous.text).not.toContain(text);
      covered.add(`anonymous ${info.key}`);
    }
  });

  it("A's orders, plans and subscriptions are exactly as before: nothing B or the anonymous caller did changed them", async () => {
    const after = await snapshotA();
    expect(after).toEqual(before);
    // And B still sees none of them.
    const list = await call(jsonRequest('GET', '/v1/orders/?limit=50', b.token));
    for (const order of a.orders) expect(list.text).not.toContain(order.order_id);
  });

  it('every route of ROUTES was exercised by every caller that matters to it', () => {
    const missing: string[] = [];
    for (const info of infos()) {
      const callers = info.audience === 'public' || info.audience === 'monitor' ? ['anonymous'] : ['anonymous', 'B'];
      for (const caller of callers) if (!covered.has(`${caller} ${info.key}`)) missing.push(`${caller} ${info.key}`);
    }
    expect(missing, `routes the matrix did not exercise: ${missing.join(', ')}`).toEqual([]);
    recordAttack('authz-matrix', {
      attack: `Routes x callers: merchant B and an anonymous caller on each of merchant A's orders (every status), plans and subscriptions (every status) on all ${ROUTES.length} routes`,
      count: sent.requests,
      outcome:
        `anonymous: 401 AUTHENTICATION_FAILED on all ${merchantRoutes().length} merchant routes; ` +
        `B: the same answer as for an id that exists nowhere on all ${merchantRoutes().length}; ` +
        `${publicRoutes().length} payment page routes: no merchant secret shown; ` +
        `${gatewayRoutes().length} gateway notification routes: unsigned notifications refused; ` +
        `A's ${a.orders.length} orders, ${a.billing.plans.length} plans and ${a.billing.subscriptions.length} subscriptions unchanged; ${covered.size} (caller, route) pairs covered`,
      test: 'tests/integration/authz-matrix.test.ts',
    });
  });
});
