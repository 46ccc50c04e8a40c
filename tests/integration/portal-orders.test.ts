/**
 * The portal's orders as an attacker would try them, and as a merchant uses them: two merchants
 * (A and B), each with a signed-in owner, and A's orders in several statuses. B's user reaches
 * A's order, delivery, export or action through every portal route only as a missing id;
 * viewers read but cannot act; no portal route answers 5xx for anything a client sends.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/http/routes';
import { client, newMerchant, startApi } from '../support/api';
import { PortalBrowser, signedInUser } from '../support/portal';

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let origin: string;
let a: { token: string; userId: number; owner: PortalBrowser; viewer: PortalBrowser; paid: any; fresh: any; other: any[] };
let b: { token: string; owner: PortalBrowser };

const PORTAL_ROUTES = ROUTES.filter((route) => route.portal);

async function order(token: string, body: Record<string, unknown>) {
  const created = await call('POST', '/v1/orders', { token, body: { price_amount: 12.5, price_currency: 'USD', title: 'Portal test', ...body } });
  expect(created.status).toBe(200);
  return created.body;
}

beforeAll(async () => {
  api = await startApi();
  call = client(api.url);
  origin = `http://localhost:${new URL(api.url).port}`;
  Object.assign(process.env, { PORTAL_ORIGIN: origin, PORTAL_CLIENT_IP_HEADER: 'x-test-client' });
  const merchantA = await newMerchant(true, 'Shop A', { callbackStatuses: 'all' });
  const merchantB = await newMerchant(true, 'Shop B');
  const paid = await order(merchantA.api_token, { merchant_order_id: `a-paid-${randomUUID()}`, pay_currency: 'BTC', callback_url: 'https://shop.example/callback' });
  const pay = await call('POST', `/v1/sandbox/orders/${paid.order.order_id}/pay`, { token: merchantA.api_token, body: {} });
  expect(pay.status).toBe(200);
  const fresh = await order(merchantA.api_token, { merchant_order_id: `a-new-${randomUUID()}` });
  const other = [];
  for (let i = 0; i < 5; i += 1) other.push(await order(merchantA.api_token, { merchant_order_id: `a-more-${i}-${randomUUID()}` }));
  a = {
    token: merchantA.api_token,
    userId: merchantA.user_id,
    owner: (await signedInUser(api.url, origin, merchantA.user_id)).browser,
    viewer: (await signedInUser(api.url, origin, merchantA.user_id, 'viewer')).browser,
    paid,
    fresh,
    other,
  };
  b = { token: merchantB.api_token, owner: (await signedInUser(api.url, origin, merchantB.user_id)).browser };
  await order(merchantB.api_token, { merchant_order_id: `b-${randomUUID()}` });
});
afterAll(() => api.close());

const pathFor = (path: string, orderId: string) => path.replace('{order_id}', orderId).replace('{invite}', 'x');

describe("A's orders in A's portal", () => {
  it("lists them newest first, by cursor, without anyone else's", async () => {
    const first = await a.owner.call('GET', '/v1/portal/orders?limit=3');
    expect(first.status).toBe(200);
    expect(first.body.orders).toHaveLength(3);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await a.owner.call('GET', `/v1/portal/orders?limit=3&cursor=${first.body.next_cursor}`);
    const third = await a.owner.call('GET', `/v1/portal/orders?limit=3&cursor=${second.body.next_cursor}`);
    const all = [...first.body.orders, ...second.body.orders, ...third.body.orders];
    expect(all).toHaveLength(7);
    expect(third.body.next_cursor).toBeNull();
    const created = all.map((row: any) => row.created_at);
    expect(created).toEqual([...created].sort().reverse());
    expect(new Set(all.map((row: any) => row.order_id)).size).toBe(7);
  });

  it('filters by status and by day', async () => {
    const paid = await a.owner.call('GET', '/v1/portal/orders?status=PAID');
    expect(paid.body.orders.map((row: any) => row.order_id)).toEqual([a.paid.order.order_id]);
    const today = new Date().toISOString().slice(0, 10);
    expect((await a.owner.call('GET', `/v1/portal/orders?from=${today}&to=${today}`)).body.orders).toHaveLength(7);
    expect((await a.owner.call('GET', '/v1/portal/orders?to=2020-01-01')).body.orders).toHaveLength(0);
  });

  it('finds an order by order_id, merchant_order_id, payment address and transaction id', async () => {
    const full = await a.owner.call('GET', `/v1/portal/orders/${a.paid.order.order_id}`);
    const invoice = full.body.invoices[0];
    const txid = invoice.payments[0].txid;
    for (const q of [a.paid.order.order_id, a.paid.order.merchant_order_id, invoice.payment_address, txid]) {
      const found = await a.owner.call('GET', `/v1/portal/orders?q=${encodeURIComponent(q)}`);
      expect(
        found.body.orders.map((row: any) => row.order_id),
        q,
      ).toEqual([a.paid.order.order_id]);
    }
  });

  it('does not show an order a transaction pointer names before the order records it; the retried booking records it', async () => {
    const { putTxidIndex, txidIndexItems } = await import('#shared/store/order-search');
    const { recordPayment } = await import('#shared/services/payment-reports');
    const { parseDecimal } = await import('#shared/domain/money');
    const { db, tableName } = await import('#shared/store/client');
    const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    // A merchant of its own: A's and B's lists are counted by the other tests.
    const merchant = await newMerchant(true, 'Shop C');
    const owner = (await signedInUser(api.url, origin, merchant.user_id)).browser;
    const target = await order(merchant.api_token, { merchant_order_id: `c-crash-${randomUUID()}`, pay_currency: 'BTC' });
    const { order_id: orderId } = target.order;
    const invoice = (await owner.call('GET', `/v1/portal/orders/${orderId}`)).body.invoices[0];
    const txid = randomUUID().replaceAll('-', '').repeat(2);
    const search = async () => (await owner.call('GET', `/v1/portal/orders?q=${txid}`)).body.orders.map((row: any) => row.order_id);
    // The booking wrote its pointer and stopped before its transaction (a crash, a timeout).
    await putTxidIndex(txidIndexItems(orderId, [], [{ ...invoice, payments: [{ txid, amount: String(invoice.pay_amount), confirmations: 0, seen_at: new Date().toISOString() }] }]));
    expect(await search()).toEqual([]);
    // The watcher books the same payment again: pointer (again) and change.
    const booked = await recordPayment({ orderId, invoiceId: invoice.invoice_id, amount: parseDecimal(String(invoice.pay_amount)), confirmations: 0, txid, key: `${txid}:0`, now: new Date() });
    expect(booked.order.status).toBe('PENDING');
    expect(await search()).toEqual([orderId]);
    const pointers = await db().send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `TXID#${txid}` } }));
    expect(pointers.Items?.map((item) => item.order_id)).toEqual([orderId]);
  });

  it("shows an order's page: history, invoices with payments, callbacks, and the actions its status allows", async () => {
    const page = await a.owner.call('GET', `/v1/portal/orders/${a.paid.order.order_id}`);
    expect(page.status).toBe(200);
    expect(page.body.order.status).toBe('PAID');
    expect(page.body.order.history.map((change: any) => change.to)).toEqual(['NEW', 'PAID']);
    expect(page.body.invoices[0].payments[0]).toMatchObject({ confirmations: expect.any(Number), seen_at: expect.any(String), explorer_url: null });
    expect(page.body.callbacks).toHaveLength(1);
    expect(page.body.actions).toEqual(['resend_callback', 'refund']);
    const fresh = await a.owner.call('GET', `/v1/portal/orders/${a.fresh.order.order_id}`);
    expect(fresh.body.actions).toEqual(['cancel']);
  });

  it('acts: resend the callback, refund and complete the sandbox refund, cancel', async () => {
    const resent = await a.owner.call('POST', `/v1/portal/orders/${a.paid.order.order_id}/callbacks/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body.callbacks[0].state).toBe('PENDING');
    const refunded = await a.owner.call('POST', `/v1/portal/orders/${a.paid.order.order_id}/refund`);
    expect(refunded.body.order.status).toBe('REFUND_PENDING');
    expect(refunded.body.actions).toContain('complete_refund');
    // All of it is asked: no second refund is offered (its form would say "all that is left: 0").
    expect(refunded.body.actions).not.toContain('refund');
    const completed = await a.owner.call('POST', `/v1/portal/orders/${a.paid.order.order_id}/complete-refund`);
    expect(completed.body.order.status).toBe('REFUNDED');
    const canceled = await a.owner.call('POST', `/v1/portal/orders/${a.fresh.order.order_id}/cancel`);
    expect(canceled.body.order.status).toBe('CANCELED');
    const again = await a.owner.call('POST', `/v1/portal/orders/${a.fresh.order.order_id}/cancel`);
    expect(again.status).toBe(400);
  });

  it('exports the filtered orders as CSV', async () => {
    const csv = await a.owner.call('GET', '/v1/portal/orders/export');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('order_id,merchant_order_id,title,status,price_amount,price_currency,pay_amount,pay_currency,created_at,updated_at,sandbox');
    expect(lines).toHaveLength(8);
    const canceled = await a.owner.call('GET', '/v1/portal/orders/export?status=CANCELED');
    expect(canceled.text.trim().split('\r\n')).toHaveLength(2);
  });
});

describe("B's user against A's orders (every portal route with an order id)", () => {
  it("answers A's order exactly like a missing one, and changes nothing", async () => {
    const before = await a.owner.call('GET', `/v1/portal/orders/${a.other[0].order.order_id}`);
    const target = a.other[0].order.order_id;
    const routes = PORTAL_ROUTES.filter((route) => route.path.includes('{order_id}'));
    expect(routes.length).toBeGreaterThanOrEqual(6);
    for (const route of routes) {
      const attack = await b.owner.call(route.method, pathFor(route.path, target));
      const missing = await b.owner.call(route.method, pathFor(route.path, randomUUID()));
      expect(attack.status, route.path).toBe(404);
      expect(attack.body, route.path).toEqual(missing.body);
    }
    const after = await a.owner.call('GET', `/v1/portal/orders/${target}`);
    expect(after.body).toEqual(before.body);
  });

  it("never lists, finds or exports A's orders", async () => {
    const list = await b.owner.call('GET', '/v1/portal/orders?limit=100');
    expect(list.body.orders.every((row: any) => !row.order_id.startsWith('x') && row.merchant_order_id.startsWith('b-'))).toBe(true);
    for (const q of [a.paid.order.order_id, a.paid.order.merchant_order_id]) {
      expect((await b.owner.call('GET', `/v1/portal/orders?q=${encodeURIComponent(q)}`)).body.orders).toEqual([]);
    }
    const csv = await b.owner.call('GET', '/v1/portal/orders/export');
    expect(csv.text).not.toContain(a.paid.order.order_id);
    expect(csv.text.trim().split('\r\n')).toHaveLength(2);
  });

  it("cannot page into A's orders with a cursor made from A's keys", async () => {
    const first = await a.owner.call('GET', '/v1/portal/orders?limit=1');
    const stolen = await b.owner.call('GET', `/v1/portal/orders?limit=10&cursor=${first.body.next_cursor}`);
    expect(stolen.status).toBe(200);
    expect(stolen.body.orders.every((row: any) => row.merchant_order_id.startsWith('b-'))).toBe(true);
  });
});

describe('roles and sessions', () => {
  it('lets a viewer read but not act', async () => {
    const page = await a.viewer.call('GET', `/v1/portal/orders/${a.other[1].order.order_id}`);
    expect(page.status).toBe(200);
    expect(page.body.actions).toEqual([]);
    const cancel = await a.viewer.call('POST', `/v1/portal/orders/${a.other[1].order.order_id}/cancel`);
    expect(cancel.status).toBe(403);
    expect(cancel.body.error_code).toBe('ROLE_REFUSED');
  });

  it('answers every session route 401 without a session (and POSTs 403 without the CSRF defense)', async () => {
    const signInRoutes = new Set(['portal-invite-options', 'portal-accept-invite', 'portal-sign-in-options', 'portal-sign-in', 'portal-recover']);
    for (const route of PORTAL_ROUTES.filter((entry) => !signInRoutes.has(entry.fn))) {
      const path = pathFor(route.path, a.other[2].order.order_id);
      const response = await fetch(api.url + path, {
        method: route.method,
        headers: route.method === 'POST' ? { origin, 'content-type': 'application/json' } : {},
        body: route.method === 'POST' ? '{}' : undefined,
      });
      expect(response.status, `${route.method} ${route.path}`).toBe(401);
      const withSession = await fetch(api.url + path, {
        method: route.method,
        headers: { cookie: b.owner.cookie!, 'content-type': 'application/json' },
        body: route.method === 'POST' ? '{}' : undefined,
      });
      if (route.method === 'POST') expect(withSession.status, `${route.path} without CSRF`).toBe(403);
    }
  });
});

describe('no 5xx for anything a client sends', () => {
  const nasty = [
    '',
    '{',
    '[]',
    'null',
    '"x"',
    '{"credential":{"id":1}}',
    '{"credential":{"id":"a","rawId":"a","type":"public-key","response":{"clientDataJSON":"%%%"}}}',
    '{"code":12}',
    '{"everywhere":"yes"}',
    'x'.repeat(70_000),
  ];
  const queries = [
    '?limit=0',
    '?limit=abc',
    '?cursor=!!!',
    '?cursor=' + Buffer.from('2020-01-01T00:00:00Z#nope').toString('base64url'),
    '?status=BOGUS',
    '?from=2020-13-45',
    '?q=' + 'x'.repeat(300),
    '?unknown=1',
  ];
  it('on every portal route, signed in or not', async () => {
    const failures: string[] = [];
    for (const route of PORTAL_ROUTES) {
      for (const id of [a.other[3].order.order_id, 'not-an-id', '..%2F..', 'x'.repeat(300)]) {
        const path = route.path.replace('{order_id}', id).replace('{invite}', id);
        const attempts = route.method === 'GET' ? queries.map((query) => ({ path: path + query })) : nasty.map((rawBody) => ({ path, rawBody }));
        for (const attempt of attempts) {
          for (const who of [b.owner, new PortalBrowser(api.url, origin)]) {
            const answer = await who.call(route.method, attempt.path, { rawBody: (attempt as { rawBody?: string }).rawBody });
            if (answer.status >= 500) failures.push(`${route.method} ${attempt.path.slice(0, 80)} -> ${answer.status} ${answer.text.slice(0, 100)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
