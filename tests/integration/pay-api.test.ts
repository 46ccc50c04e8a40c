import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMerchant, type MerchantCredentials } from '#shared/services/merchants';
import { client, newMerchant, startApi, type ApiResponse } from '../support/api';
import { SANDBOX_CURRENCIES } from '../support/pay-currencies';

/**
 * The payment page's public endpoints (/v1/pay/...) against the real handlers and DynamoDB
 * Local: their shapes, that nothing of the merchant's leaks into them, and what each one does.
 */

type Json = Record<string, any>;

const ORDER_KEYS = ['order_id', 'title', 'description', 'price_amount', 'price_currency', 'status', 'success_url', 'cancel_url', 'created_at', 'merchant_name', 'sandbox'];
const INVOICE_KEYS = ['pay_amount', 'pay_currency', 'payment_address', 'payment_uri', 'expired_at', 'expired_at_t', 'status'];
const NOT_FOUND = { status: 404, error: 'Order not found', error_code: 'ORDER_NOT_FOUND' };

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let shop: MerchantCredentials;
let live: MerchantCredentials;
/** Every public answer of this file, to search for secrets at the end. */
const answers: ApiResponse[] = [];
/** The merchant-side values that must never appear in a public answer. */
const secrets = new Set<string>();

beforeAll(async () => {
  // Gateways with platform credentials, as the stack lists them for every function.
  process.env.LIVE_GATEWAYS = 'ALIPAY';
  api = await startApi();
  const raw = client(api.url);
  call = async (method, path, options) => {
    const response = await raw(method, path, options);
    if (path.startsWith('/v1/pay/')) answers.push(response);
    return response;
  };
  shop = await newMerchant(true, 'Page Test Shop');
  live = await createMerchant({ name: 'Live Page Shop', sandbox: false, gateways: ['ALIPAY'] });
  for (const merchant of [shop, live]) {
    secrets.add(merchant.api_token);
    secrets.add(merchant.callback_secret);
  }
});

afterAll(async () => {
  await api.close();
});

/** A merchant order with every merchant-only field set to a recognisable value. */
async function createOrder(merchant = shop, extra: Json = {}): Promise<Json> {
  const callbackToken = `cb-token-${randomUUID()}`;
  const merchantOrderId = `moid-${randomUUID()}`;
  const callbackUrl = `https://shop.example/callback/${randomUUID()}`;
  for (const value of [callbackToken, merchantOrderId, callbackUrl]) secrets.add(value);
  const response = await call('POST', '/v1/orders', {
    token: merchant.api_token,
    body: {
      merchant_order_id: merchantOrderId,
      price_amount: 9.99,
      price_currency: 'USD',
      title: 'Monthly Program x 1',
      description: 'Game Pass',
      callback_url: callbackUrl,
      success_url: 'https://shop.example/thanks',
      cancel_url: 'https://shop.example/cart',
      token: callbackToken,
      ...extra,
    },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.order;
}

const merchantView = async (orderId: string, merchant = shop) => (await call('GET', `/v1/orders/${orderId}`, { token: merchant.api_token })).body as Json;

describe('GET /v1/pay/{order_id}', () => {
  it('answers the buyer-safe order, {} as invoice before checkout, and every currency for a sandbox merchant', async () => {
    const order = await createOrder();
    const response = await call('GET', `/v1/pay/${order.order_id}`);
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['status', 'order', 'invoice', 'currencies']);
    expect(response.body.status).toBe(200);
    expect(Object.keys(response.body.order)).toEqual(ORDER_KEYS);
    expect(response.body.order).toEqual({
      order_id: order.order_id,
      title: 'Monthly Program x 1',
      description: 'Game Pass',
      price_amount: 9.99,
      price_currency: 'USD',
      status: 'NEW',
      success_url: 'https://shop.example/thanks',
      cancel_url: 'https://shop.example/cart',
      created_at: order.created_at,
      merchant_name: 'Page Test Shop',
      sandbox: true,
    });
    expect(response.body.invoice).toEqual({});
    expect(response.body.currencies).toEqual(SANDBOX_CURRENCIES);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('offers a live merchant only its own gateways the platform has credentials for, and no chain currency it cannot be paid in (no key, source, node or EOS watcher here)', async () => {
    const order = await createOrder(live);
    const response = await call('GET', `/v1/pay/${order.order_id}`);
    expect(response.body.order).toMatchObject({ merchant_name: 'Live Page Shop', sandbox: false });
    expect(response.body.currencies).toEqual(['ALIPAY']);
  });

  it('needs no token, and a token changes nothing', async () => {
    const order = await createOrder();
    const anonymous = await call('GET', `/v1/pay/${order.order_id}`);
    const withOtherToken = await call('GET', `/v1/pay/${order.order_id}`, { token: live.api_token });
    const withBadToken = await call('GET', `/v1/pay/${order.order_id}`, { token: 'not-a-token' });
    expect(withOtherToken.body).toEqual(anonymous.body);
    expect(withBadToken.body).toEqual(anonymous.body);
  });

  it.each([
    ['an unknown order id', () => randomUUID()],
    ['a malformed id', () => 'not-an-order-id'],
    ['an upper-case uuid', () => randomUUID().toUpperCase()],
    ['a very long id', () => 'a'.repeat(2000)],
  ])('%s: 404 ORDER_NOT_FOUND on every page route', async (_, id) => {
    const orderId = id();
    for (const [method, path, body] of [
      ['GET', `/v1/pay/${orderId}`, undefined],
      ['POST', `/v1/pay/${orderId}/checkout`, { pay_currency: 'BTC' }],
      ['POST', `/v1/pay/${orderId}/cancel`, undefined],
      ['POST', `/v1/pay/${orderId}/sandbox-pay`, undefined],
    ] as const) {
      const response = await call(method, path, { body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body, `${method} ${path}`).toEqual(NOT_FOUND);
    }
  });
});

describe('POST /v1/pay/{order_id}/checkout', () => {
  it('checks out as the merchant: the invoice the merchant sees, in the buyer-safe shape', async () => {
    const order = await createOrder();
    const response = await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'BTC' } });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body)).toEqual(['status', 'order', 'invoice', 'currencies']);
    expect(Object.keys(response.body.order)).toEqual(ORDER_KEYS);
    expect(Object.keys(response.body.invoice)).toEqual(INVOICE_KEYS);
    const merchant = await merchantView(order.order_id);
    expect(response.body.invoice).toEqual({
      pay_amount: merchant.invoice.pay_amount,
      pay_currency: 'BTC',
      payment_address: merchant.invoice.payment_address,
      payment_uri: merchant.invoice.payment_uri,
      expired_at: merchant.invoice.expired_at,
      expired_at_t: merchant.invoice.expired_at_t,
      status: 'NEW',
    });
    expect(response.body.invoice.payment_uri).toBe(`bitcoin:${merchant.invoice.payment_address}?amount=${merchant.invoice.pay_amount.toFixed(8)}`);
    // GET answers the same invoice.
    expect((await call('GET', `/v1/pay/${order.order_id}`)).body).toEqual(response.body);
  });

  it('switches the currency: a new invoice at a new address replaces the old one', async () => {
    const order = await createOrder();
    const btc = (await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'BTC' } })).body;
    const eth = (await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'ETH' } })).body;
    expect(eth.invoice.pay_currency).toBe('ETH');
    expect(eth.invoice.payment_address).not.toBe(btc.invoice.payment_address);
    expect(eth.invoice.payment_uri).toMatch(/^ethereum:0x[0-9a-fA-F]{40}@1\?value=\d+$/);
    expect((await merchantView(order.order_id)).invoice.payment_address).toBe(eth.invoice.payment_address);

    const eos = (await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'EOS' } })).body;
    expect(Object.keys(eos.invoice)).toEqual([...INVOICE_KEYS, 'memo']);
    expect(eos.invoice.payment_uri).toBe(`eos:${eos.invoice.payment_address}?quantity=${eos.invoice.pay_amount.toFixed(4)}%20EOS&memo=${eos.invoice.memo}`);

    const lightning = (await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'LBTC' } })).body;
    expect(lightning.invoice.payment_uri).toBe(`lightning:${lightning.invoice.payment_address.toLowerCase()}`);

    const gateway = (await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'WECHAT' } })).body;
    expect(gateway.invoice.payment_uri).toMatch(/^http:\/\/pay\.test\/pay\/sandbox-gateway\/wechat\?invoice=[0-9a-f-]{36}&amount=[\d.]+&mode=qr$/);
  });

  it('refuses a bad body, a gateway the merchant lacks, and an order no longer NEW', async () => {
    const order = await createOrder(live);
    const missing = await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: {} });
    expect([missing.status, missing.body.error_code]).toEqual([400, 'PARAMETERS_MISSING']);
    const unknownField = await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'BTC', order_id: order.order_id } });
    expect([unknownField.status, unknownField.body.error_code]).toEqual([400, 'PARAMETERS_INVALID']);
    const badCurrency = await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'DOGE' } });
    expect([badCurrency.status, badCurrency.body.error_code]).toEqual([400, 'PARAMETERS_INVALID']);
    const malformed = await call('POST', `/v1/pay/${order.order_id}/checkout`, { rawBody: '{"pay_currency":' });
    expect([malformed.status, malformed.body.error_code]).toEqual([400, 'INVALID_JSON']);
    const wechat = await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'WECHAT' } });
    expect([wechat.status, wechat.body.error_code]).toEqual([400, 'PAYMENT_NOT_AVAILABLE']);
    // No real Lightning node or watched EOS account in the tests: the live buyer gets neither sandbox.
    for (const pay_currency of ['LBTC', 'EOS']) {
      const unavailable = await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency } });
      expect([unavailable.status, unavailable.body.error_code]).toEqual([400, 'PAYMENT_NOT_AVAILABLE']);
    }
    expect((await merchantView(order.order_id, live)).invoice).toEqual({});

    await call('POST', `/v1/pay/${order.order_id}/cancel`);
    const late = await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'EOS' } });
    expect([late.status, late.body.error_code]).toEqual([400, 'ORDER_NOT_NEW']);
  });
});

describe('POST /v1/pay/{order_id}/cancel', () => {
  it('cancels a NEW order (the merchant sees CANCELED) and refuses a second cancel', async () => {
    const order = await createOrder();
    await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'LTC' } });
    const response = await call('POST', `/v1/pay/${order.order_id}/cancel`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.order.status).toBe('CANCELED');
    expect(response.body.invoice.status).toBe('CANCELED');
    expect((await merchantView(order.order_id)).order.status).toBe('CANCELED');

    const again = await call('POST', `/v1/pay/${order.order_id}/cancel`);
    expect([again.status, again.body.error_code]).toEqual([400, 'ORDER_CANCELED_FAIILED']);
  });

  it('cancels an order never checked out', async () => {
    const order = await createOrder(live);
    const response = await call('POST', `/v1/pay/${order.order_id}/cancel`, { body: {} });
    expect(response.body.order.status).toBe('CANCELED');
    expect(response.body.invoice).toEqual({});
  });
});

describe('POST /v1/pay/{order_id}/sandbox-pay', () => {
  it('pays a sandbox order in full (PAID for the merchant too); repeating it is the same single payment', async () => {
    const order = await createOrder();
    const before = await call('POST', `/v1/pay/${order.order_id}/sandbox-pay`);
    expect([before.status, before.body.error_code]).toEqual([400, 'INVOICE_NOT_EXIST']);

    await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'BTC' } });
    const paid = await call('POST', `/v1/pay/${order.order_id}/sandbox-pay`);
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.order.status).toBe('PAID');
    expect(paid.body.invoice.status).toBe('PAID');
    expect((await merchantView(order.order_id)).order).toMatchObject({ status: 'PAID', receive_currency: 'USD' });

    // A double click: no second payment, so never OVERPAID.
    const repeated = await call('POST', `/v1/pay/${order.order_id}/sandbox-pay`);
    expect(repeated.status).toBe(200);
    expect(repeated.body.order.status).toBe('PAID');
    expect((await merchantView(order.order_id)).order.status).toBe('PAID');
  });

  it('refuses an order that is not NEW', async () => {
    const order = await createOrder();
    await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'BTC' } });
    await call('POST', `/v1/pay/${order.order_id}/cancel`);
    const response = await call('POST', `/v1/pay/${order.order_id}/sandbox-pay`);
    expect([response.status, response.body.error_code]).toEqual([400, 'ORDER_NOT_NEW']);
  });

  it('is for sandbox orders only: 403 SANDBOX_ONLY, and the order is unchanged', async () => {
    const order = await createOrder(live);
    const response = await call('POST', `/v1/pay/${order.order_id}/sandbox-pay`);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ status: 403, error: 'Only sandbox merchants can simulate payments.', error_code: 'SANDBOX_ONLY' });
    expect((await merchantView(order.order_id, live)).order.status).toBe('NEW');
  });
});

describe('what the page learns about the payment', () => {
  it('shows PENDING, then UNRESOLVED with its reason (underpaid), as the merchant moves them', async () => {
    const order = await createOrder();
    const checkout = await call('POST', `/v1/pay/${order.order_id}/checkout`, { body: { pay_currency: 'BTC' } });
    const half = Number((checkout.body.invoice.pay_amount / 2).toFixed(8));
    await call('POST', `/v1/sandbox/orders/${order.order_id}/pay`, { token: shop.api_token, body: { amount: half, confirmations: 0, txid: 'half-1' } });
    const pending = await call('GET', `/v1/pay/${order.order_id}`);
    expect(pending.body.order.status).toBe('PENDING');
    expect(pending.body.order).not.toHaveProperty('unresolved_reason');

    await call('POST', `/v1/sandbox/orders/${order.order_id}/pay`, { token: shop.api_token, body: { amount: half, confirmations: 6, txid: 'half-1' } });
    const unresolved = await call('GET', `/v1/pay/${order.order_id}`);
    expect(unresolved.body.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    expect(Object.keys(unresolved.body.order)).toEqual([...ORDER_KEYS, 'unresolved_reason']);
    expect(Object.keys(unresolved.body.invoice)).toEqual(INVOICE_KEYS);
  });
});

describe('secrets', () => {
  it('no public answer of this file carries a merchant-only field or value', () => {
    expect(answers.length).toBeGreaterThan(40);
    const forbiddenKeys = [
      'token',
      'callback_url',
      'user_id',
      'merchant_order_id',
      'invoice_id',
      'rate',
      'payments',
      'receive_amount',
      'receive_currency',
      'api_token',
      'callback_secret',
      'token_hash',
      'xpubs',
      'gateway_url',
      'version',
      'due_at',
    ];
    for (const answer of answers) {
      const keys = new Set<string>();
      JSON.stringify(answer.body, (key, value: unknown) => {
        keys.add(key);
        return value;
      });
      for (const key of forbiddenKeys) expect(keys.has(key), `${key} in ${answer.text}`).toBe(false);
      for (const secret of secrets) expect(answer.text.includes(secret), `a secret in ${answer.text}`).toBe(false);
    }
  });
});
