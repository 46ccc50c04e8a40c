import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINK_QUANTITY } from '#shared/domain/limits';
import type { MerchantCredentials } from '#shared/services/merchants';
import { client, expectError, newMerchant, startApi } from '../support/api';
import { signedInUser } from '../support/portal';

/**
 * Payment links against the real handlers and DynamoDB Local: the merchant's routes (create,
 * list, get, change, disable, enable; every bad field a 400 naming it; another merchant's link
 * answered as missing), the link page's (opening makes nothing; a buyer's order is an ordinary
 * order with the link in its merchant_order_id), and the quantity, single use and expiry under
 * concurrent buyers.
 */

type Json = Record<string, any>;

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let shop: MerchantCredentials;
let other: MerchantCredentials;
let live: MerchantCredentials;

beforeAll(async () => {
  api = await startApi();
  call = client(api.url);
  [shop, other, live] = await Promise.all([newMerchant(true, 'Link Shop'), newMerchant(true, 'Other Shop'), newMerchant(false, 'Live Shop')]);
  origin = `http://localhost:${new URL(api.url).port}`;
  Object.assign(process.env, { PORTAL_ORIGIN: origin, PORTAL_CLIENT_IP_HEADER: 'x-test-client' });
});

let origin = '';

afterAll(async () => {
  await api?.close();
});

async function createLink(body: Json, merchant = shop): Promise<Json> {
  const response = await call('POST', '/v1/links', { token: merchant.api_token, body });
  expect(response.status, response.text).toBe(201);
  return response.body.link;
}

const buy = (linkId: string, body: Json) => call('POST', `/v1/pay/links/${linkId}/orders`, { body });
const orderCount = async (merchant = shop) => (await call('GET', '/v1/orders?limit=50', { token: merchant.api_token })).body.orders.length as number;

describe('the merchant routes', () => {
  it("creates a link, reads it back, lists it newest first, and answers another merchant's link as missing", async () => {
    const link = await createLink({
      title: 'Club fee',
      description: 'One year',
      price_amount: '25.50',
      price_currency: 'EUR',
      quantity: 10,
      ask_email: true,
      success_url: 'https://club.example/thanks',
    });
    expect(link).toMatchObject({
      title: 'Club fee',
      price_amount: '25.5',
      price_currency: 'EUR',
      min_amount: null,
      quantity: 10,
      units_left: 10,
      state: 'OPEN',
      enabled: true,
      ask_email: true,
      order_count: 0,
    });
    expect(link.url).toBe(`${api.url}/pay/?link=${link.link_id}`.replace(api.url, new URL(link.url).origin));
    expect(new URL(link.url).searchParams.get('link')).toBe(link.link_id);

    const got = await call('GET', `/v1/links/${link.link_id}`, { token: shop.api_token });
    expect(got.status).toBe(200);
    expect(got.body.link).toEqual(link);

    const second = await createLink({ title: 'Donation', min_amount: 1, max_amount: '100' });
    const listed = await call('GET', '/v1/links?limit=1', { token: shop.api_token });
    expect(listed.body.links.map((l: Json) => l.link_id)).toEqual([second.link_id]);
    const next = await call('GET', `/v1/links?limit=1&cursor=${listed.body.next_cursor}`, { token: shop.api_token });
    expect(next.body.links.map((l: Json) => l.link_id)).toEqual([link.link_id]);

    expectError(await call('GET', `/v1/links/${link.link_id}`, { token: other.api_token }), 404, 'LINK_NOT_FOUND');
    expectError(await call('POST', `/v1/links/${link.link_id}`, { token: other.api_token, body: { enabled: false } }), 404, 'LINK_NOT_FOUND');
    expectError(await call('GET', '/v1/links/not-a-link', { token: shop.api_token }), 404, 'LINK_NOT_FOUND');
    expect((await call('GET', '/v1/links', { token: other.api_token })).body.links).toEqual([]);
    expectError(await call('GET', '/v1/links', {}), 401, 'AUTHENTICATION_FAILED');
  });

  it.each([
    ['no title', { price_amount: 5 }, 'PARAMETERS_MISSING', 'title'],
    ['an empty title', { title: '', price_amount: 5 }, 'PARAMETERS_MISSING', 'title'],
    ['a title too long', { title: 'x'.repeat(201), price_amount: 5 }, 'PARAMETERS_INVALID', 'title'],
    ['a description too long', { title: 't', description: 'x'.repeat(801), price_amount: 5 }, 'PARAMETERS_INVALID', 'description'],
    ['no price', { title: 't' }, 'PARAMETERS_MISSING', 'price_amount'],
    ['a negative price', { title: 't', price_amount: '-1' }, 'PARAMETERS_INVALID', 'price_amount'],
    ['a zero price', { title: 't', price_amount: 0 }, 'PARAMETERS_INVALID', 'price_amount'],
    ['too many decimals', { title: 't', price_amount: '1.001' }, 'PARAMETERS_INVALID', 'price_amount'],
    ['a price and bounds', { title: 't', price_amount: 5, min_amount: 1, max_amount: 9 }, 'PARAMETERS_INVALID', 'price_amount'],
    ['a minimum alone', { title: 't', min_amount: 1 }, 'PARAMETERS_MISSING', 'max_amount'],
    ['a maximum alone', { title: 't', max_amount: 1 }, 'PARAMETERS_MISSING', 'min_amount'],
    ['min above max', { title: 't', min_amount: 10, max_amount: 9 }, 'PARAMETERS_INVALID', 'min_amount'],
    ['a crypto price currency', { title: 't', price_amount: 5, price_currency: 'BTC' }, 'PARAMETERS_INVALID', 'price_currency'],
    ['an unknown price currency', { title: 't', price_amount: 5, price_currency: 'XYZ' }, 'PARAMETERS_INVALID', 'price_currency'],
    ['an unknown pay currency', { title: 't', price_amount: 5, currencies: ['DOGE'] }, 'PARAMETERS_INVALID', 'currencies'],
    ['a pay currency twice', { title: 't', price_amount: 5, currencies: ['BTC', 'BTC'] }, 'PARAMETERS_INVALID', 'currencies'],
    ['no pay currency', { title: 't', price_amount: 5, currencies: [] }, 'PARAMETERS_INVALID', 'currencies'],
    ['a zero quantity', { title: 't', price_amount: 5, quantity: 0 }, 'PARAMETERS_INVALID', 'quantity'],
    ['a fractional quantity', { title: 't', price_amount: 5, quantity: 1.5 }, 'PARAMETERS_INVALID', 'quantity'],
    ['a quantity above the stock bound', { title: 't', price_amount: 5, quantity: MAX_LINK_QUANTITY + 1 }, 'PARAMETERS_INVALID', 'quantity'],
    ['a million units', { title: 't', price_amount: 5, quantity: 1_000_000 }, 'PARAMETERS_INVALID', 'quantity'],
    ['single use and quantity 3', { title: 't', price_amount: 5, quantity: 3, single_use: true }, 'PARAMETERS_INVALID', 'single_use'],
    ['an expiry in the past', { title: 't', price_amount: 5, expires_at: '2020-01-01T00:00:00Z' }, 'PARAMETERS_INVALID', 'expires_at'],
    ['an expiry that is no time', { title: 't', price_amount: 5, expires_at: 'tomorrow' }, 'PARAMETERS_INVALID', 'expires_at'],
    ['an impossible date', { title: 't', price_amount: 5, expires_at: '2030-13-45T00:00:00Z' }, 'PARAMETERS_INVALID', 'expires_at'],
    ['a success URL that is not http', { title: 't', price_amount: 5, success_url: 'javascript:alert(1)' }, 'PARAMETERS_INVALID', 'success_url'],
    ['a callback URL in a private network', { title: 't', price_amount: 5, callback_url: 'http://10.0.0.1/hook' }, 'PARAMETERS_INVALID', ''],
    ['ask_email that is not a boolean', { title: 't', price_amount: 5, ask_email: 'yes' }, 'PARAMETERS_INVALID', 'ask_email'],
    ['an unknown field', { title: 't', price_amount: 5, colour: 'red' }, 'PARAMETERS_INVALID', 'colour'],
  ])('refuses %s with a 400 naming the field', async (_name, body, code, field) => {
    const response = await call('POST', '/v1/links', { token: shop.api_token, body });
    expectError(response, 400, code, field);
  });

  it('refuses currencies the merchant cannot be paid in (a live merchant without keys)', async () => {
    expectError(await call('POST', '/v1/links', { token: live.api_token, body: { title: 't', price_amount: 5, currencies: ['BTC'] } }), 400, 'PARAMETERS_INVALID', 'BTC');
  });

  it('refuses a gateway checkout would refuse (enabled for the merchant, not configured here) at create, change and in the portal', async () => {
    const gatewayShop = await newMerchant(false, 'Gateway Shop', { gateways: ['ALIPAY'] });
    // Checkout's answer for the same merchant and currency: the link takes what checkout takes.
    const order = await call('POST', '/v1/orders', { token: gatewayShop.api_token, body: { price_amount: 5, price_currency: 'USD' } });
    expectError(await call('POST', `/v1/orders/${order.body.order.order_id}/checkout`, { token: gatewayShop.api_token, body: { pay_currency: 'ALIPAY' } }), 400, 'PAYMENT_NOT_AVAILABLE');
    for (const currencies of [['ALIPAY'], ['WECHAT']]) {
      expectError(await call('POST', '/v1/links', { token: gatewayShop.api_token, body: { title: 't', price_amount: 5, currencies } }), 400, 'PARAMETERS_INVALID', currencies[0]);
    }
    const link = await createLink({ title: 'Any currency', price_amount: 5 }, gatewayShop);
    expectError(await call('POST', `/v1/links/${link.link_id}`, { token: gatewayShop.api_token, body: { currencies: ['ALIPAY'] } }), 400, 'PARAMETERS_INVALID', 'ALIPAY');
    const owner = (await signedInUser(api.url, origin, gatewayShop.user_id, 'owner')).browser;
    const refused = await owner.call('POST', '/v1/portal/links', { body: { title: 't', price_amount: '5', currencies: ['ALIPAY'] } });
    expect(refused.body).toMatchObject({ status: 400, error_code: 'INVALID_INPUT', error: expect.stringContaining('ALIPAY') });
    expect((await call('GET', `/v1/links/${link.link_id}`, { token: gatewayShop.api_token })).body.link.currencies).toBeNull();
  });

  it(`bounds a link's stock at ${MAX_LINK_QUANTITY} units: at create, change and in the portal`, async () => {
    const link = await createLink({ title: 'Big batch', price_amount: 5, quantity: MAX_LINK_QUANTITY });
    expect(link).toMatchObject({ quantity: MAX_LINK_QUANTITY, units_left: MAX_LINK_QUANTITY });
    expectError(await call('POST', `/v1/links/${link.link_id}`, { token: shop.api_token, body: { quantity: MAX_LINK_QUANTITY + 1 } }), 400, 'PARAMETERS_INVALID', 'quantity');
    const owner = (await signedInUser(api.url, origin, shop.user_id, 'owner')).browser;
    for (const path of ['/v1/portal/links', `/v1/portal/links/${link.link_id}`]) {
      const refused = await owner.call('POST', path, { body: { ...(path.endsWith('links') ? { title: 't', price_amount: '5' } : {}), quantity: 1_000_000 } });
      // The request schema's bound: refused before the service, as the API's.
      expect(refused.body, path).toMatchObject({ status: 400, error_code: 'PARAMETERS_INVALID', error: expect.stringContaining('quantity') });
    }
    expect((await call('GET', `/v1/links/${link.link_id}`, { token: shop.api_token })).body.link.quantity).toBe(MAX_LINK_QUANTITY);
  });

  it('changes a link: disable, enable, more units, remove the expiry; refuses a quantity below what is held and bad fields', async () => {
    const link = await createLink({ title: 'Seats', price_amount: 10, quantity: 2, expires_at: new Date(Date.now() + 3_600_000).toISOString() });
    const disabled = await call('POST', `/v1/links/${link.link_id}`, { token: shop.api_token, body: { enabled: false } });
    expect(disabled.body.link).toMatchObject({ enabled: false, state: 'DISABLED' });
    const enabled = await call('POST', `/v1/links/${link.link_id}`, { token: shop.api_token, body: { enabled: true, quantity: 3, remove: ['expires_at'] } });
    expect(enabled.body.link).toMatchObject({ enabled: true, state: 'OPEN', quantity: 3, units_left: 3, expires_at: null });
    expect((await buy(link.link_id, { pay_currency: 'BTC' })).status).toBe(201);
    expect((await buy(link.link_id, { pay_currency: 'BTC' })).status).toBe(201);
    expectError(await call('POST', `/v1/links/${link.link_id}`, { token: shop.api_token, body: { quantity: 1 } }), 400, 'PARAMETERS_INVALID', 'quantity');
    expectError(await call('POST', `/v1/links/${link.link_id}`, { token: shop.api_token, body: {} }), 400, 'PARAMETERS_INVALID');
    expectError(await call('POST', `/v1/links/${link.link_id}`, { token: shop.api_token, body: { price_amount: 1 } }), 400, 'PARAMETERS_INVALID', 'price_amount');
    expectError(await call('POST', `/v1/links/${link.link_id}`, { token: shop.api_token, body: { quantity: 5, remove: ['quantity'] } }), 400, 'PARAMETERS_INVALID', 'quantity');
    expectError(await call('POST', `/v1/links/${link.link_id}`, { token: shop.api_token, body: { remove: ['title'] } }), 400, 'PARAMETERS_INVALID', 'remove');
  });
});

describe('the link page', () => {
  it('opening a link makes no order; picking a currency makes an ordinary order named after the link', async () => {
    const link = await createLink({
      title: 'Workshop',
      description: 'Saturday',
      price_amount: '12',
      currencies: ['BTC', 'LTC'],
      success_url: 'https://shop.example/ok',
      callback_url: 'https://shop.example/hook',
    });
    const before = await orderCount();
    const page = await call('GET', `/v1/pay/links/${link.link_id}`);
    expect(page.status).toBe(200);
    expect(page.body).toEqual({
      status: 200,
      link: {
        link_id: link.link_id,
        title: 'Workshop',
        description: 'Saturday',
        price_currency: 'USD',
        price_amount: '12',
        min_amount: null,
        max_amount: null,
        units_left: null,
        expires_at: null,
        ask_email: false,
        state: 'OPEN',
        merchant_name: 'Link Shop',
        sandbox: true,
      },
      currencies: ['BTC', 'LTC'],
    });
    expect(page.text).not.toContain('shop.example/hook');
    expect(await orderCount()).toBe(before);

    expectError(await buy(link.link_id, { pay_currency: 'ETH' }), 400, 'PAYMENT_NOT_AVAILABLE', 'BTC, LTC');
    expectError(await buy(link.link_id, { pay_currency: 'BTC', email: 'a@b.co' }), 400, 'PARAMETERS_INVALID', 'email');
    expectError(await buy(link.link_id, {}), 400, 'PARAMETERS_MISSING', 'pay_currency');
    expect(await orderCount()).toBe(before);

    const bought = await buy(link.link_id, { pay_currency: 'BTC' });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body.payment_url).toContain(`?id=${bought.body.order_id}`);
    const order = (await call('GET', `/v1/orders/${bought.body.order_id}`, { token: shop.api_token })).body;
    expect(order.order).toMatchObject({
      title: 'Workshop',
      price_amount: 12,
      price_currency: 'USD',
      pay_currency: 'BTC',
      status: 'NEW',
      success_url: 'https://shop.example/ok',
      callback_url: 'https://shop.example/hook',
    });
    expect(order.order.merchant_order_id).toMatch(new RegExp(`^link_${link.link_id}_[0-9a-f-]{36}$`));
    expect(order.invoice.payment_address).toBeTruthy();
    expect((await call('GET', `/v1/links/${link.link_id}`, { token: shop.api_token })).body.link.order_count).toBe(1);
  });

  it("buyer-chosen amounts within bounds, and the email when the link asks (kept as the order's email)", async () => {
    const link = await createLink({ title: 'Tip jar', min_amount: '2', max_amount: '50', ask_email: true });
    expectError(await buy(link.link_id, { pay_currency: 'BTC', email: 'buyer@example.com' }), 400, 'PARAMETERS_MISSING', 'amount');
    expectError(await buy(link.link_id, { pay_currency: 'BTC', amount: '1.99', email: 'buyer@example.com' }), 400, 'PARAMETERS_INVALID', 'amount');
    expectError(await buy(link.link_id, { pay_currency: 'BTC', amount: 50.01, email: 'buyer@example.com' }), 400, 'PARAMETERS_INVALID', 'amount');
    expectError(await buy(link.link_id, { pay_currency: 'BTC', amount: '2.001', email: 'buyer@example.com' }), 400, 'PARAMETERS_INVALID', 'amount');
    expectError(await buy(link.link_id, { pay_currency: 'BTC', amount: '5' }), 400, 'PARAMETERS_MISSING', 'email');
    expectError(await buy(link.link_id, { pay_currency: 'BTC', amount: '5', email: 'not-an-address' }), 400, 'PARAMETERS_INVALID', 'email');
    const bought = await buy(link.link_id, { pay_currency: 'LTC', amount: 7.25, email: 'buyer@example.com' });
    expect(bought.status, bought.text).toBe(201);
    const order = (await call('GET', `/v1/orders/${bought.body.order_id}`, { token: shop.api_token })).body.order;
    // The hook for the buyer's receipt: the order carries the email.
    expect(order).toMatchObject({ price_amount: 7.25, email: 'buyer@example.com' });
  });

  it('a disabled, expired, unknown link says so; enabling it again takes orders', async () => {
    const link = await createLink({ title: 'Pop-up', price_amount: 3 });
    await call('POST', `/v1/links/${link.link_id}`, { token: shop.api_token, body: { enabled: false } });
    const page = await call('GET', `/v1/pay/links/${link.link_id}`);
    expect(page.body.link.state).toBe('DISABLED');
    expect(page.body.currencies).toEqual([]);
    expectError(await buy(link.link_id, { pay_currency: 'BTC' }), 409, 'LINK_DISABLED');
    await call('POST', `/v1/links/${link.link_id}`, { token: shop.api_token, body: { enabled: true } });
    expect((await buy(link.link_id, { pay_currency: 'BTC' })).status).toBe(201);

    const soon = await createLink({ title: 'Flash sale', price_amount: 3, expires_at: new Date(Date.now() + 1_500).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    expect((await call('GET', `/v1/pay/links/${soon.link_id}`)).body.link.state).toBe('EXPIRED');
    expectError(await buy(soon.link_id, { pay_currency: 'BTC' }), 409, 'LINK_EXPIRED');

    expectError(await call('GET', '/v1/pay/links/00000000-0000-4000-8000-000000000000'), 404, 'LINK_NOT_FOUND');
    expectError(await call('GET', '/v1/pay/links/..%2F..%2Fx'), 404, 'LINK_NOT_FOUND');
  });

  it('single use: the second buyer finds it sold out until the first order is canceled, which gives the unit back', async () => {
    const link = await createLink({ title: 'One-off', price_amount: 9, single_use: true });
    expect(link.quantity).toBe(1);
    const first = await buy(link.link_id, { pay_currency: 'BTC' });
    expect(first.status).toBe(201);
    expectError(await buy(link.link_id, { pay_currency: 'BTC' }), 409, 'LINK_SOLD_OUT');
    expect((await call('GET', `/v1/pay/links/${link.link_id}`)).body.link).toMatchObject({ state: 'SOLD_OUT', units_left: 0 });

    expect((await call('POST', `/v1/pay/${first.body.order_id}/cancel`)).status).toBe(200);
    // The page counts the unit that comes back (reading only); the next buyer's order takes it.
    expect((await call('GET', `/v1/pay/links/${link.link_id}`)).body.link).toMatchObject({ state: 'OPEN', units_left: 1 });
    const again = await buy(link.link_id, { pay_currency: 'LTC' });
    expect(again.status, again.text).toBe(201);
    // Paid: the unit is sold for good, and a cancel is no longer possible.
    expect((await call('POST', `/v1/pay/${again.body.order_id}/sandbox-pay`)).body.order.status).toBe('PAID');
    expectError(await buy(link.link_id, { pay_currency: 'BTC' }), 409, 'LINK_SOLD_OUT');
    expect((await call('GET', `/v1/links/${link.link_id}`, { token: shop.api_token })).body.link).toMatchObject({ order_count: 2, units_left: 0, state: 'SOLD_OUT' });
  });
});

describe('concurrent buyers', () => {
  it.each([1, 4])('a link of %i unit(s): of 24 buyers at once, exactly that many get an order, the others LINK_SOLD_OUT', async (quantity) => {
    const link = await createLink({ title: `Drop of ${quantity}`, price_amount: 20, quantity });
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => buy(link.link_id, { pay_currency: i % 2 ? 'BTC' : 'LTC' })));
    const created = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(created).toHaveLength(quantity);
    for (const answer of refused) expectError(answer, 409, 'LINK_SOLD_OUT');
    // Each order exists, is the merchant's, and names the link; the link's counts agree.
    const orders = await Promise.all(created.map((answer) => call('GET', `/v1/orders/${answer.body.order_id}`, { token: shop.api_token })));
    expect(new Set(orders.map((order) => order.body.order.merchant_order_id)).size).toBe(quantity);
    for (const order of orders) expect(order.body.order.merchant_order_id.startsWith(`link_${link.link_id}_`)).toBe(true);
    expect((await call('GET', `/v1/links/${link.link_id}`, { token: shop.api_token })).body.link).toMatchObject({ order_count: quantity, units_left: 0 });
  });

  it('an expiring link under concurrent buyers: no order is made after its expiry', async () => {
    const expiresAt = Date.now() + 1_000;
    const link = await createLink({ title: 'Until the bell', price_amount: 1, expires_at: new Date(expiresAt).toISOString() });
    const waves = [0, 500, 1_200, 1_500];
    const answers = await Promise.all(
      waves.flatMap((delay) =>
        Array.from({ length: 5 }, () => new Promise((resolve) => setTimeout(resolve, delay)).then(async () => ({ sent: Date.now(), answer: await buy(link.link_id, { pay_currency: 'BTC' }) }))),
      ),
    );
    for (const { sent, answer } of answers) {
      if (answer.status === 201) {
        const order = (await call('GET', `/v1/orders/${answer.body.order_id}`, { token: shop.api_token })).body.order;
        expect(Date.parse(order.created_at)).toBeLessThan(expiresAt);
      } else {
        expectError(answer, 409, 'LINK_EXPIRED');
        expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
        expect(sent).toBeGreaterThan(expiresAt - 1_000);
      }
    }
    expect(answers.filter(({ answer }) => answer.status === 201).length).toBeGreaterThanOrEqual(5);
    expect(answers.filter(({ answer }) => answer.status === 409).length).toBeGreaterThanOrEqual(5);
  });
});

describe('the portal', () => {
  it("owners create and disable links; viewers read them with their figures and orders but change nothing; another merchant's link is missing", async () => {
    const owner = (await signedInUser(api.url, origin, shop.user_id, 'owner')).browser;
    const viewer = (await signedInUser(api.url, origin, shop.user_id, 'viewer')).browser;
    const stranger = (await signedInUser(api.url, origin, other.user_id, 'owner')).browser;

    const created = await owner.call('POST', '/v1/portal/links', { body: { title: 'Portal link', price_amount: '8', quantity: 3 } });
    expect(created.status, created.text).toBe(200);
    const linkId = created.body.link.link_id;
    expect(created.body.link).toMatchObject({ paid_count: 0, paid_total: '0', units_left: 3 });
    const refused = await owner.call('POST', '/v1/portal/links', { body: { title: 'Bad', min_amount: '9', max_amount: '1' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error_code: 'INVALID_INPUT', error: expect.stringContaining('min_amount') });

    const paid = await buy(linkId, { pay_currency: 'BTC' });
    expect((await call('POST', `/v1/pay/${paid.body.order_id}/sandbox-pay`)).body.order.status).toBe('PAID');
    await buy(linkId, { pay_currency: 'LTC' });

    const page = await viewer.call('GET', `/v1/portal/links/${linkId}`);
    expect(page.status).toBe(200);
    expect(page.body.link).toMatchObject({ link_id: linkId, order_count: 2, paid_count: 1, paid_total: '8', units_left: 1 });
    expect(page.body.orders.map((order: Json) => order.status).sort()).toEqual(['NEW', 'PAID']);
    const listed = await viewer.call('GET', '/v1/portal/links');
    expect(listed.body.links.find((link: Json) => link.link_id === linkId)).toMatchObject({ paid_count: 1, paid_total: '8' });

    expect((await viewer.call('POST', '/v1/portal/links', { body: { title: 'No', price_amount: 1 } })).body.error_code).toBe('ROLE_REFUSED');
    expect((await viewer.call('POST', `/v1/portal/links/${linkId}`, { body: { enabled: false } })).body.error_code).toBe('ROLE_REFUSED');
    expect((await stranger.call('GET', `/v1/portal/links/${linkId}`)).status).toBe(404);
    expect((await stranger.call('POST', `/v1/portal/links/${linkId}`, { body: { enabled: false } })).status).toBe(404);
    expect((await stranger.call('GET', '/v1/portal/links')).body.links.some((link: Json) => link.link_id === linkId)).toBe(false);

    const disabled = await owner.call('POST', `/v1/portal/links/${linkId}`, { body: { enabled: false } });
    expect(disabled.body.link).toMatchObject({ enabled: false, state: 'DISABLED' });
    expectError(await buy(linkId, { pay_currency: 'BTC' }), 409, 'LINK_DISABLED');
  });
});
