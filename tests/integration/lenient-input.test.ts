/**
 * The leniency MugglePay's published clients need, and the strictness that stays
 * (docs/merchant-guide.md, "Migrating from MugglePay"): decimal strings and exact numbers, empty fields, unknown fields, `[]` bodies,
 * `merchant_token` and `email`, MugglePay's pay_currency codes, and authentication before
 * validation. Over loopback against the real handlers and DynamoDB Local; the replays of each
 * real client are in tests/compat/.
 */
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ROUTES } from '#shared/http/routes';
import { expectError, expectReferenceTaken, newMerchant, type TestApi, useTestApi } from '../support/api';

let call: TestApi['call'];
let token: string;
let apiUrl: string;
useTestApi((api) => ({ call, token, url: apiUrl } = api));

const createRaw = (rawBody: string, as = token) => call('POST', '/v1/orders', { token: as, rawBody });
const create = (body: unknown, as = token) => call('POST', '/v1/orders', { token: as, body });

async function createOk(body: Record<string, unknown>, as = token): Promise<any> {
  const response = await create({ price_amount: 10, ...body }, as);
  expect(response.status, response.text).toBe(200);
  return response.body.order;
}

/** Every order of a merchant (up to 50), for "nothing was stored" checks. */
async function ordersOf(as: string): Promise<string[]> {
  const response = await call('GET', '/v1/orders?limit=50', { token: as });
  expect(response.status, response.text).toBe(200);
  return response.body.orders.map((order: { order_id: string }) => order.order_id);
}

describe('amounts are read from the request text', () => {
  it('takes a decimal string as the price, exactly', async () => {
    const order = await createOk({ price_amount: '19.90', price_currency: 'USD' });
    expect(order).toMatchObject({ price_amount: 19.9, pay_amount: 19.9 });
  });

  it.each([
    ['more precision than a double holds', '{"price_amount":9.999999999999999999999}'],
    ['a fraction of a cent written with 17 digits', '{"price_amount":10.000000000000001}'],
    ['the same, as a string', '{"price_amount":"10.000000000000001"}'],
    ['JPY with decimals', '{"price_amount":100.5,"price_currency":"JPY"}'],
    ['an exponent too large to be a price', '{"price_amount":1e400}'],
    ['an exponent beyond any decimal', '{"price_amount":1e999}'],
  ])('refuses %s (never rounds it), storing nothing', async (_, rawBody) => {
    const merchant = await newMerchant();
    const response = await createRaw(rawBody, merchant.api_token);
    expect(response.status).toBe(400);
    expect(response.text).toBe('{"status":400,"error":"Price is not valid"}');
    expect(await ordersOf(merchant.api_token)).toEqual([]);
  });

  it('reads exponent forms a JSON encoder may write (1e2 is 100)', async () => {
    const response = await createRaw('{"price_amount":1e2}');
    expect(response.status, response.text).toBe(200);
    expect(response.body.order.price_amount).toBe(100);
  });

  it('keeps every digit of a numeric merchant_order_id, so near neighbours do not collide', async () => {
    const merchant = await newMerchant();
    const first = await createRaw('{"price_amount":1,"merchant_order_id":11111111111111111111}', merchant.api_token);
    expect(first.status, first.text).toBe(200);
    expect(first.text).toContain('"merchant_order_id":"11111111111111111111"');
    const neighbour = await createRaw('{"price_amount":1,"merchant_order_id":11111111111111111112}', merchant.api_token);
    expect(neighbour.status, neighbour.text).toBe(200);
    expect(neighbour.body.order.merchant_order_id).toBe('11111111111111111112');
    const again = await createRaw('{"price_amount":1,"merchant_order_id":11111111111111111111}', merchant.api_token);
    expectReferenceTaken(again, first.body.order);
    // The same reference written as a string is the same reference.
    expectReferenceTaken(await create({ price_amount: 1, merchant_order_id: '11111111111111111111' }, merchant.api_token), first.body.order);
  });

  it('refuses a merchant_order_id that is a number with a fraction, naming the field', async () => {
    expectError(await createRaw('{"price_amount":1,"merchant_order_id":1.5}'), 400, 'PARAMETERS_INVALID', 'merchant_order_id');
  });

  it('takes a sandbox payment amount exactly (a string or a number)', async () => {
    const order = await createOk({ price_amount: 65, pay_currency: 'BTC' });
    const paid = await call('POST', `/v1/sandbox/orders/${order.order_id}/pay`, { token, rawBody: '{"amount":"0.0005"}' });
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    const zero = await call('POST', `/v1/sandbox/orders/${order.order_id}/pay`, { token, rawBody: '{"amount":0}' });
    expectError(zero, 400, 'PARAMETERS_INVALID', 'amount');
  });
});

describe('what real clients send beyond the contract', () => {
  it('ignores fields the contract does not list (the Python SDK sends merchat_order_id, the Go SDK every order field)', async () => {
    const order = await createOk({ merchat_order_id: 'py-1', notified: '', is_self: false, user_id: 0, status: '', colour: 'red' });
    expect(order).toMatchObject({ merchant_order_id: '', status: 'NEW' });
    expect(order.user_id).toBeGreaterThan(0);
  });

  it('reads "" and null as an absent field: no pay_currency is no checkout', async () => {
    const order = await createOk({ pay_currency: '', mobile: '', fast: null, title: null, price_currency: 'CNY' });
    expect(order).toMatchObject({ pay_currency: 'CNY', pay_amount: 10, title: '' });
    const got = await call('GET', `/v1/orders/${order.order_id}`, { token });
    expect(got.body.invoice).toEqual({});
  });

  it('takes [] (PHP json_encode(array())) or no body at all as no parameters on the order actions', async () => {
    const first = await createOk({});
    const canceled = await call('POST', `/v1/orders/${first.order_id}/cancel`, { token, rawBody: '[]' });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body.order.status).toBe('CANCELED');
    const second = await createOk({ pay_currency: 'BTC' });
    expect((await call('POST', `/v1/sandbox/orders/${second.order_id}/pay`, { token, rawBody: '[]' })).body.order.status).toBe('PAID');
    const refunded = await call('POST', `/v1/orders/${second.order_id}/refund`, { token, rawBody: '[]' });
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body.order.status).toBe('REFUND_PENDING');
    const third = await createOk({});
    // MugglePay's CancelOrder example: curl -X POST with no body and no content-type.
    const bare = await fetch(`${apiUrl}/v1/orders/${third.order_id}/cancel`, { method: 'POST', headers: { token } });
    expect(bare.status).toBe(200);
    expect(((await bare.json()) as { order: { status: string } }).order.status).toBe('CANCELED');
  });

  it('still refuses a body that is not an object, or a non-empty array', async () => {
    const order = await createOk({});
    for (const rawBody of ['[1]', '[{}]', '"x"', '7', 'null']) {
      expectError(await call('POST', `/v1/orders/${order.order_id}/cancel`, { token, rawBody }), 400, 'PARAMETERS_INVALID');
    }
    expect((await call('GET', `/v1/orders/${order.order_id}`, { token })).body.order.status).toBe('NEW');
  });

  it('takes merchant_token as token; both must agree when both are sent', async () => {
    const order = await createOk({ merchant_token: 'cb-2025' });
    expect((await call('GET', `/v1/orders/${order.order_id}`, { token })).body.order.token).toBe('cb-2025');
    const both = await createOk({ merchant_token: 'same', token: 'same' });
    expect((await call('GET', `/v1/orders/${both.order_id}`, { token })).body.order.token).toBe('same');
    const merchant = await newMerchant();
    expectError(await create({ price_amount: 1, token: 'a', merchant_token: 'b' }, merchant.api_token), 400, 'PARAMETERS_INVALID', 'merchant_token');
    expect(await ordersOf(merchant.api_token)).toEqual([]);
  });

  it('keeps email on the order and shows it in Get Order and Get Orders', async () => {
    const order = await createOk({ email: 'buyer@example.com', merchant_order_id: `em-${randomUUID()}` });
    expect((await call('GET', `/v1/orders/${order.order_id}`, { token })).body.order.email).toBe('buyer@example.com');
    const listed = await call('GET', '/v1/orders?limit=50', { token });
    expect(listed.body.orders.find((o: { order_id: string }) => o.order_id === order.order_id).email).toBe('buyer@example.com');
    expectError(await create({ price_amount: 1, email: 'not an address' }), 400, 'PARAMETERS_INVALID', 'email');
  });

  it('refuses a key given twice with different values (two readers must not see two requests)', async () => {
    expectError(await createRaw('{"price_amount":1,"price_amount":2}'), 400, 'INVALID_JSON');
  });

  it('answers a deeply nested body with a 400, not a crash', async () => {
    const deep = `{"price_amount":1,"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const response = await createRaw(deep);
    expect(response.status).toBeLessThan(500);
  });
});

describe("MugglePay's pay_currency codes", () => {
  it('takes ETH_ERC20 as ETH, at creation and at checkout', async () => {
    const created = await createOk({ price_amount: 30, pay_currency: 'ETH_ERC20' });
    expect(created.pay_currency).toBe('ETH');
    const order = await createOk({ price_amount: 30 });
    const checkout = await call('POST', `/v1/orders/${order.order_id}/checkout`, { token, body: { pay_currency: 'ETH_ERC20' } });
    expect(checkout.status, checkout.text).toBe(200);
    expect(checkout.body.invoice).toMatchObject({ pay_currency: 'ETH', pay_amount: 0.01 });
    expect(checkout.body.invoice.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it.each([
    ['USDT', 'USDT_ERC20'],
    ['USDC', 'USDC_ERC20'],
    ['USDT_ERC20', 'USDT_ERC20'],
    ['USDT_ARBI', 'USDT_ARB'],
  ])("takes %s (WHMCS sends plain USDT; MugglePay's example USDT_ARBI) as %s", async (code, payCurrency) => {
    const order = await createOk({ price_amount: 30, pay_currency: code });
    expect(order.pay_currency).toBe(payCurrency);
    const got = await call('GET', `/v1/orders/${order.order_id}`, { token });
    expect(got.body.invoice).toMatchObject({ pay_currency: payCurrency, pay_amount: 30 });
  });

  it.each(['USDT_TON', 'USDC_XLM', 'TON', 'PYUSD'])("takes MugglePay's %s (its last codes), with the memo or reference the transfer carries", async (code) => {
    const merchant = await newMerchant();
    const response = await create({ price_amount: 5, pay_currency: code }, merchant.api_token);
    expect(response.status, response.text).toBe(200);
    const { invoice } = (await call('GET', `/v1/orders/${response.body.order.order_id}`, { token: merchant.api_token })).body;
    expect(invoice).toMatchObject({ pay_currency: code, payment_memo: expect.stringMatching(/^\S+$/) });
    expect(invoice.memo).toBe(invoice.payment_memo);
  });

  it.each(['P2P_BTC'])('answers the known code %s that this service cannot take yet with PAYMENT_NOT_AVAILABLE naming what it can, storing nothing', async (code) => {
    const merchant = await newMerchant();
    const response = await create({ price_amount: 5, pay_currency: code }, merchant.api_token);
    expectError(response, 400, 'PAYMENT_NOT_AVAILABLE', code);
    for (const takeable of ['BTC', 'ETH', 'ETH_ERC20', 'LBTC', 'USDT_ERC20', 'USDT', 'USDT_ARB', 'USDT_ARBI', 'CUSD']) expect(response.body.error).toContain(takeable);
    expect(await ordersOf(merchant.api_token)).toEqual([]);
    const order = await createOk({ price_amount: 5 }, merchant.api_token);
    const checkout = await call('POST', `/v1/orders/${order.order_id}/checkout`, { token: merchant.api_token, body: { pay_currency: code } });
    expectError(checkout, 400, 'PAYMENT_NOT_AVAILABLE', code);
    expect((await call('GET', `/v1/orders/${order.order_id}`, { token: merchant.api_token })).body.invoice).toEqual({});
  });

  it.each(['DOGE', 'USDT_ARBITRUM', 'usdt', 'CNY'])('keeps an unknown code (%s) a PARAMETERS_INVALID naming pay_currency', async (code) => {
    expectError(await create({ price_amount: 5, pay_currency: code }), 400, 'PARAMETERS_INVALID', 'pay_currency');
  });
});

describe('authentication comes before validation', () => {
  const merchantPosts = ROUTES.filter((route) => route.method === 'POST' && !route.public && !route.gateway && !route.portal);

  it.each(merchantPosts.map((route) => [route.path]))("POST %s: an anonymous bad body is 401, not the schema's error", async (path) => {
    const url = path.replace('{order_id}', randomUUID());
    for (const rawBody of ['{"bogus":1,"pay_currency":"DOGE","price_amount":"x"}', '{"price_amount":', '[1,2]', 'x'.repeat(70_000)]) {
      for (const as of [undefined, 'n'.repeat(43)]) {
        const response = await call('POST', url, { ...(as ? { token: as } : {}), rawBody });
        expectError(response, 401, 'AUTHENTICATION_FAILED');
      }
    }
  });
});
