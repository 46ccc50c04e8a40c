import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { client, expectError, expectReferenceTaken, newMerchant, startApi } from '../support/api';
import { validateAddress } from '#shared/payments/addresses/index';
import { SandboxLightningNode } from '#shared/payments/lightning/index';
import { SANDBOX_EOS_ACCOUNT } from '#shared/payments/payment-methods';
import { readInvoice } from '../support/bolt11';

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let token: string;
let userId: number;
let otherToken: string;

beforeAll(async () => {
  api = await startApi();
  call = client(api.url);
  const merchant = await newMerchant();
  token = merchant.api_token;
  userId = merchant.user_id;
  otherToken = (await newMerchant(true, 'Other Shop')).api_token;
});

afterAll(async () => {
  await api.close();
});

const create = (body: unknown, as = token) => call('POST', '/v1/orders', { token: as, body });

async function createOk(body: Record<string, unknown> = {}): Promise<any> {
  const response = await create({ price_amount: 10, price_currency: 'USD', ...body });
  expect(response.status, response.text).toBe(200);
  return response.body.order;
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Create Order', () => {
  it('answers HTTP 200 with body status 201, the order without token, and its payment_url', async () => {
    const response = await create({
      merchant_order_id: 'shop-1',
      price_amount: 9.99,
      price_currency: 'USD',
      title: 'Monthly Program x 1',
      description: 'Game Pass',
      callback_url: 'https://shop.example/callback',
      cancel_url: 'https://shop.example/cancel',
      success_url: 'https://shop.example/success',
      token: 'merchant-callback-token',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(Object.keys(response.body)).toEqual(['status', 'order', 'payment_url']);
    expect(response.body.status).toBe(201);
    const order = response.body.order;
    expect(Object.keys(order)).toEqual([
      'order_id',
      'user_id',
      'merchant_order_id',
      'title',
      'description',
      'callback_url',
      'cancel_url',
      'success_url',
      'email',
      'price_amount',
      'price_currency',
      'pay_amount',
      'pay_currency',
      'status',
      'created_at',
      'updated_at',
    ]);
    expect(order).toMatchObject({
      user_id: userId,
      merchant_order_id: 'shop-1',
      title: 'Monthly Program x 1',
      description: 'Game Pass',
      price_amount: 9.99,
      price_currency: 'USD',
      pay_amount: 9.99,
      pay_currency: 'USD',
      status: 'NEW',
    });
    expect(order.order_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(order.created_at).toMatch(ISO_MS);
    expect(order.updated_at).toBe(order.created_at);
    expect(response.body.payment_url).toBe(`http://pay.test/pay/?id=${order.order_id}`);
    expect(response.text).not.toContain('merchant-callback-token');
  });

  it('defaults price_currency to USD and answers omitted strings as empty strings', async () => {
    const order = await createOk({ price_currency: undefined });
    expect(order).toMatchObject({ price_currency: 'USD', pay_currency: 'USD', merchant_order_id: '', title: '', callback_url: '' });
  });

  it('accepts a numeric merchant_order_id (as in the origin API example) and stores it as a string', async () => {
    const id = Math.floor(Math.random() * 1e9);
    const order = await createOk({ merchant_order_id: id });
    expect(order.merchant_order_id).toBe(String(id));
  });

  it('refuses a second order with the same merchant_order_id for one merchant, not for another', async () => {
    const reference = `dup-${randomUUID()}`;
    const first = await createOk({ merchant_order_id: reference });
    expectReferenceTaken(await create({ price_amount: 1, merchant_order_id: reference }), { ...first, status: 'NEW' });
    const other = await create({ price_amount: 1, merchant_order_id: reference }, otherToken);
    expect(other.status).toBe(200);
  });

  it('keeps a merchant_order_id unique when the first order was checked out at creation, and under a race', async () => {
    const reference = `dup-pay-${randomUUID()}`;
    const first = await createOk({ merchant_order_id: reference, pay_currency: 'BTC' });
    expectReferenceTaken(await create({ price_amount: 1, merchant_order_id: reference, pay_currency: 'LTC' }), first);
    expectReferenceTaken(await create({ price_amount: 1, merchant_order_id: reference }), first);
    const raced = `race-${randomUUID()}`;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create({ price_amount: 1 + i, merchant_order_id: raced, ...(i % 2 ? { pay_currency: 'BTC' } : {}) })));
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).toHaveLength(1);
    for (const answer of answers.filter((answer) => answer.status !== 200)) {
      expectReferenceTaken(answer, winners[0]!.body.order);
    }
    const listed = await call('GET', '/v1/orders/?limit=50', { token });
    expect(listed.body.orders.filter((order: any) => order.merchant_order_id === raced)).toHaveLength(1);
  });

  it("derives the order id from the reference under the merchant's secret key (same reference, other merchant: other id)", async () => {
    const reference = `derived-${randomUUID()}`;
    const mine = await createOk({ merchant_order_id: reference });
    const theirs = (await create({ price_amount: 10, merchant_order_id: reference }, otherToken)).body.order;
    const { findMerchant } = await import('#shared/store/merchants');
    const { orderIdFor } = await import('#shared/domain/ids');
    const merchant = await findMerchant(userId);
    expect(mine.order_id).toBe(orderIdFor(merchant!.order_id_key!, userId, reference));
    expect(theirs.order_id).not.toBe(mine.order_id);
  });

  it('keeps references unique with a guard item for a merchant made before order-id keys existed', async () => {
    const legacy = await newMerchant(true, 'Legacy Shop');
    const { UpdateCommand, GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { db, tableName } = await import('#shared/store/client');
    const { apiTokenKey, merchantKey, merchantOrderIdKey } = await import('#shared/store/keys');
    const { apiTokenHash } = await import('#shared/services/api-tokens');
    await db().send(new UpdateCommand({ TableName: tableName(), Key: merchantKey(legacy.user_id), UpdateExpression: 'REMOVE order_id_key' }));
    await db().send(new UpdateCommand({ TableName: tableName(), Key: apiTokenKey(await apiTokenHash(legacy.api_token)), UpdateExpression: 'REMOVE merchant.order_id_key' }));
    const reference = `legacy-${randomUUID()}`;
    const first = await create({ price_amount: 5, merchant_order_id: reference }, legacy.api_token);
    expect(first.status, first.text).toBe(200);
    expectReferenceTaken(await create({ price_amount: 6, merchant_order_id: reference }, legacy.api_token), first.body.order);
    const guard = await db().send(new GetCommand({ TableName: tableName(), Key: merchantOrderIdKey(legacy.user_id, reference) }));
    expect(guard.Item?.order_id).toBe(first.body.order.order_id);
  });

  it.each([
    ['zero', 0],
    ['negative', -5],
    ['a string that is not a decimal', 'ten'],
    ['a string with an exponent', '1e2'],
    ['a string with a sign', '-10'],
    ['an empty string', ''],
    ['null', null],
    ['a boolean', true],
    ['an object', { amount: 1 }],
    ['a float artefact (0.1 + 0.2)', 0.1 + 0.2],
    ['more decimals than USD has', 1.005],
    ['one trillion', 1e12],
    ['17 significant digits', 1234567890123.4567],
  ])('answers an invalid price (%s) with the contract body', async (_, price) => {
    const response = await create({ price_amount: price, price_currency: 'USD' });
    expect(response.status).toBe(400);
    expect(response.text).toBe('{"status":400,"error":"Price is not valid"}');
  });

  it('treats a non-finite price (1e999 parses to Infinity) as invalid', async () => {
    const response = await call('POST', '/v1/orders', { token, rawBody: '{"price_amount":1e999}' });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ status: 400, error: 'Price is not valid' });
  });

  it('names a missing price', async () => {
    expectError(await create({ title: 'no price' }), 400, 'PARAMETERS_MISSING', 'price_amount');
  });

  it('counts title and description limits in characters, not bytes', async () => {
    const emoji = '😀'; // 4 bytes in UTF-8, 2 UTF-16 units, 1 character
    expect((await createOk({ title: emoji.repeat(200), description: '付'.repeat(800) })).title).toBe(emoji.repeat(200));
    expectError(await create({ price_amount: 1, title: 'x'.repeat(201) }), 400, 'PARAMETERS_INVALID', 'title');
    expectError(await create({ price_amount: 1, description: '付'.repeat(801) }), 400, 'PARAMETERS_INVALID', 'description');
  });

  it.each([
    ['a wrong type', { price_amount: 1, title: 42 }, 'title'],
    ['an unknown currency', { price_amount: 1, price_currency: 'XYZ' }, 'price_currency'],
    ['an unknown pay currency', { price_amount: 1, pay_currency: 'DOGE' }, 'pay_currency'],
    ['a non-http callback_url', { price_amount: 1, callback_url: 'ftp://example.com/x' }, 'callback_url'],
    ['a relative success_url', { price_amount: 1, success_url: '/thanks' }, 'success_url'],
    ['a callback_url over 2048 characters', { price_amount: 1, callback_url: `https://a.example/${'x'.repeat(2040)}` }, 'callback_url'],
    ['mobile as a string', { price_amount: 1, mobile: 'yes' }, 'mobile'],
  ])('refuses %s with a 400 naming the field', async (_, body, field) => {
    expectError(await create(body), 400, 'PARAMETERS_INVALID', field);
  });

  it.each([
    ['malformed JSON', '{"price_amount": 1,', 'INVALID_JSON'],
    ['a JSON array', '[1,2]', 'PARAMETERS_INVALID'],
    ['a JSON string', '"hello"', 'PARAMETERS_INVALID'],
    ['JSON null', 'null', 'PARAMETERS_INVALID'],
  ])('refuses %s with a JSON 400', async (_, rawBody, code) => {
    expectError(await call('POST', '/v1/orders', { token, rawBody }), 400, code);
  });

  it('refuses a 1 MB body with a JSON 413', async () => {
    const rawBody = JSON.stringify({ price_amount: 1, description: 'x'.repeat(1024 * 1024) });
    expectError(await call('POST', '/v1/orders', { token, rawBody }), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('parses JSON even when the client forgets the content-type', async () => {
    const response = await call('POST', '/v1/orders', { token, rawBody: '{"price_amount":3}', headers: { 'content-type': 'text/plain' } });
    expect(response.status).toBe(200);
    expect(response.body.order.price_amount).toBe(3);
  });

  it('checks out at creation when pay_currency is given', async () => {
    const order = await createOk({ price_amount: 65, price_currency: 'USD', pay_currency: 'BTC' });
    expect(order).toMatchObject({ pay_amount: 0.001, pay_currency: 'BTC', price_amount: 65 });
    const got = await call('GET', `/v1/orders/${order.order_id}`, { token });
    expect(got.body.invoice).toMatchObject({ pay_amount: 0.001, pay_currency: 'BTC', status: 'NEW' });
    expect(validateAddress('BTC', got.body.invoice.payment_address)).toBe(true);
  });

  it('creates 20 orders concurrently, each once', async () => {
    const merchant = await newMerchant();
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => create({ price_amount: i + 1, merchant_order_id: `c-${i}` }, merchant.api_token)));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    const ids = new Set(responses.map((r) => r.body.order.order_id));
    expect(ids.size).toBe(20);
    const listed = await call('GET', '/v1/orders?limit=50', { token: merchant.api_token });
    expect(listed.body.orders).toHaveLength(20);
    expect(new Set(listed.body.orders.map((o: any) => o.order_id))).toEqual(ids);
  });
});

describe('authentication', () => {
  it.each([
    ['no token', undefined],
    ['an unknown token', 'x'.repeat(43)],
    ['a too short token', 'abc'],
    ['an empty token', ''],
  ])('answers %s with 401 AUTHENTICATION_FAILED on every endpoint', async (_, badToken) => {
    const id = randomUUID();
    for (const [method, path, body] of [
      ['POST', '/v1/orders', { price_amount: 1 }],
      ['GET', `/v1/orders/${id}`, undefined],
      ['POST', `/v1/orders/${id}/checkout`, { pay_currency: 'BTC' }],
      ['GET', '/v1/orders/', undefined],
      ['GET', '/v1/orders', undefined],
    ] as const) {
      expectError(await call(method, path, { token: badToken, body }), 401, 'AUTHENTICATION_FAILED');
    }
  });
});

describe('Get Order', () => {
  it('answers the order with token, receive_currency and deleted, and {} as invoice before checkout', async () => {
    const created = await createOk({ token: 'cb-token', title: 'T' });
    const response = await call('GET', `/v1/orders/${created.order_id}`, { token });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['status', 'order', 'invoice']);
    expect(response.body.status).toBe(200);
    expect(Object.keys(response.body.order)).toEqual([
      'order_id',
      'user_id',
      'merchant_order_id',
      'title',
      'description',
      'callback_url',
      'cancel_url',
      'success_url',
      'token',
      'email',
      'price_amount',
      'price_currency',
      'pay_amount',
      'pay_currency',
      'receive_currency',
      'status',
      'created_at',
      'updated_at',
      'deleted',
    ]);
    expect(response.body.order).toMatchObject({ token: 'cb-token', receive_currency: '', deleted: 0, status: 'NEW' });
    expect(response.body.invoice).toEqual({});
  });

  it.each([
    ['an unknown id', () => randomUUID()],
    ['a malformed id', () => 'not-an-id'],
    ['an id with odd characters', () => encodeURIComponent("'; DROP TABLE orders;--")],
    ['an uppercase id', () => randomUUID().toUpperCase()],
  ])('answers %s with the contract 404 body', async (_, id) => {
    const response = await call('GET', `/v1/orders/${id()}`, { token });
    expect(response.status).toBe(404);
    expect(response.text).toBe('{"eror":"Order not found","status":"404"}');
  });

  it("answers another merchant's order exactly like a missing one", async () => {
    const order = await createOk();
    const theirs = await call('GET', `/v1/orders/${order.order_id}`, { token: otherToken });
    const missing = await call('GET', `/v1/orders/${randomUUID()}`, { token: otherToken });
    expect(theirs.status).toBe(404);
    expect(theirs.text).toBe(missing.text);
  });
});

describe('Checkout Order', () => {
  it('answers status 200 with the order and an invoice carrying payment_address and payment_uri', async () => {
    const created = await createOk({ price_amount: 30, price_currency: 'USD', merchant_order_id: `co-${randomUUID()}` });
    const response = await call('POST', `/v1/orders/${created.order_id}/checkout`, {
      token,
      body: { order_id: created.order_id, pay_currency: 'ETH' },
    });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body)).toEqual(['status', 'order', 'invoice']);
    const { order, invoice } = response.body;
    expect(order).toMatchObject({ order_id: created.order_id, status: 'NEW', pay_amount: 0.01, pay_currency: 'ETH', deleted: 0 });
    expect(Object.keys(invoice)).toEqual([
      'invoice_id',
      'order_id',
      'merchant_order_id',
      'pay_amount',
      'pay_currency',
      'receive_amount',
      'receive_currency',
      'status',
      'created_at',
      'created_at_t',
      'expired_at',
      'expired_at_t',
      'payment_address',
      'payment_uri',
      'payment_memo',
      'address',
      'memo',
      'qrcode',
    ]);
    expect(invoice).toMatchObject({
      order_id: created.order_id,
      merchant_order_id: created.merchant_order_id,
      pay_amount: 0.01,
      pay_currency: 'ETH',
      receive_amount: 30,
      receive_currency: 'USD',
      status: 'NEW',
    });
    expect(invoice.created_at_t).toBe(Date.parse(invoice.created_at));
    expect(invoice.expired_at_t).toBe(Date.parse(invoice.expired_at));
    expect(invoice.expired_at_t - invoice.created_at_t).toBe(3600 * 1000);
    expect(validateAddress('ETH', invoice.payment_address)).toBe(true);
    expect(invoice.payment_uri).toBe(`ethereum:${invoice.payment_address}@1?value=10000000000000000`);
    // MugglePay's names for the same things (its GetOrder; the Go SDK reads Invoice.Address).
    expect(invoice).toMatchObject({ address: invoice.payment_address, memo: '', qrcode: invoice.payment_uri });
  });

  it('gives gateway invoices three hours and Lightning a signed BOLT11 for the exact amount', async () => {
    const created = await createOk({ price_amount: 13, price_currency: 'USD' });
    const gateway = await call('POST', `/v1/orders/${created.order_id}/checkout`, { token, body: { pay_currency: 'ALIPAY' } });
    expect(gateway.status, gateway.text).toBe(200);
    expect(gateway.body.invoice.expired_at_t - gateway.body.invoice.created_at_t).toBe(3 * 3600 * 1000);
    const lightning = await call('POST', `/v1/orders/${created.order_id}/checkout`, { token, body: { pay_currency: 'LBTC' } });
    expect(lightning.status, lightning.text).toBe(200);
    expect(lightning.body.invoice.pay_amount).toBe(0.0002);
    const decoded = readInvoice(lightning.body.invoice.payment_address);
    expect(decoded.amountMsat).toBe(20_000_000n);
    expect(decoded.signatureValid).toBe(true);
    expect(lightning.body.invoice.payment_uri).toBe(`lightning:${lightning.body.invoice.payment_address}`);
  });

  it('switches currency with a new invoice, and back to the still-valid one it had', async () => {
    const created = await createOk();
    const first = await call('POST', `/v1/orders/${created.order_id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    const second = await call('POST', `/v1/orders/${created.order_id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    const third = await call('POST', `/v1/orders/${created.order_id}/checkout`, { token, body: { pay_currency: 'LTC' } });
    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    // The same currency again is the same invoice (same address, same amount), not a new one.
    expect(second.body.invoice).toEqual(first.body.invoice);
    expect(validateAddress('LTC', third.body.invoice.payment_address)).toBe(true);
    const got = await call('GET', `/v1/orders/${created.order_id}`, { token });
    expect(got.body.invoice.invoice_id).toBe(third.body.invoice.invoice_id);
    expect(got.body.order).toMatchObject({ pay_currency: 'LTC', pay_amount: third.body.invoice.pay_amount });
    // Back to BTC: the BTC invoice is current again, and Get Order reads it.
    const back = await call('POST', `/v1/orders/${created.order_id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    expect(back.body.invoice).toEqual(first.body.invoice);
    expect(back.body.order).toMatchObject({ pay_currency: 'BTC', pay_amount: first.body.invoice.pay_amount });
    expect((await call('GET', `/v1/orders/${created.order_id}`, { token })).body.invoice).toEqual(first.body.invoice);
  });

  it('leaves exactly one current invoice after concurrent checkouts of one order', async () => {
    const created = await createOk();
    const responses = await Promise.all(['BTC', 'LTC', 'ETH', 'BCH', 'EOS', 'BTC'].map((pay_currency) => call('POST', `/v1/orders/${created.order_id}/checkout`, { token, body: { pay_currency } })));
    for (const response of responses) expect([200, 409], response.text).toContain(response.status);
    const winners = responses.filter((r) => r.status === 200);
    expect(winners.length).toBeGreaterThan(0);
    const got = await call('GET', `/v1/orders/${created.order_id}`, { token });
    expect(winners.map((r) => r.body.invoice.invoice_id)).toContain(got.body.invoice.invoice_id);
    expect(got.body.order.pay_currency).toBe(got.body.invoice.pay_currency);
  });

  it('reads the invoice the order names when a later one was left by a checkout that lost its race', async () => {
    const created = await createOk();
    const first = await call('POST', `/v1/orders/${created.order_id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    expect(first.status, first.text).toBe(200);
    const { PutCommand, QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const { db, tableName } = await import('#shared/store/client');
    const { invoiceKey, orderKey } = await import('#shared/store/keys');
    const { newTimeOrderedId } = await import('#shared/domain/ids');
    const stored = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :invoice)',
        ExpressionAttributeValues: { ':pk': orderKey(created.order_id).PK, ':invoice': 'INVOICE#' },
      }),
    );
    expect(stored.Items).toHaveLength(1);
    // What a losing checkout leaves: a newer invoice item the order does not point at.
    const orphanId = newTimeOrderedId(Date.now() + 60_000);
    const orphan = { ...stored.Items![0]!, ...invoiceKey(created.order_id, orphanId), invoice_id: orphanId, pay_currency: 'LTC', payment_address: 'ltc1orphan' };
    await db().send(new PutCommand({ TableName: tableName(), Item: orphan }));
    const got = await call('GET', `/v1/orders/${created.order_id}`, { token });
    expect(got.body.invoice.invoice_id).toBe(first.body.invoice.invoice_id);
    expect(got.body.invoice.pay_currency).toBe('BTC');
    expect(got.body.invoice.payment_address).toBe(first.body.invoice.payment_address);
  });

  it('keeps every invoice of an order in its partition, the order naming the current one', async () => {
    const created = await createOk();
    const ids: string[] = [];
    for (const pay_currency of ['BTC', 'LTC', 'ETH']) {
      const response = await call('POST', `/v1/orders/${created.order_id}/checkout`, { token, body: { pay_currency } });
      expect(response.status, response.text).toBe(200);
      ids.push(response.body.invoice.invoice_id);
    }
    expect([...ids].sort()).toEqual(ids); // time-ordered ids: the latest sorts last
    const got = await call('GET', `/v1/orders/${created.order_id}`, { token });
    expect(got.body.invoice.invoice_id).toBe(ids[2]);
    expect(got.body.invoice.pay_currency).toBe('ETH');
  });

  it.each([
    ['an unknown id', () => randomUUID()],
    ['a malformed id', () => 'zzz'],
  ])('answers %s with the contract 422 body', async (_, id) => {
    const response = await call('POST', `/v1/orders/${id()}/checkout`, { token, body: { pay_currency: 'BTC' } });
    expect(response.status).toBe(422);
    expect(response.text).toBe('{"error":"Order does not exist","status":422}');
  });

  it("answers another merchant's order exactly like a missing one", async () => {
    const order = await createOk();
    const response = await call('POST', `/v1/orders/${order.order_id}/checkout`, { token: otherToken, body: { pay_currency: 'BTC' } });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ error: 'Order does not exist', status: 422 });
    const mine = await call('GET', `/v1/orders/${order.order_id}`, { token });
    expect(mine.body.invoice).toEqual({});
  });

  it.each([
    ['no pay_currency', {}, 'PARAMETERS_MISSING'],
    ['an unknown pay_currency', { pay_currency: 'XRP' }, 'PARAMETERS_INVALID'],
    ['a lowercase pay_currency', { pay_currency: 'btc' }, 'PARAMETERS_INVALID'],
  ])('refuses %s', async (_, body, code) => {
    const order = await createOk();
    expectError(await call('POST', `/v1/orders/${order.order_id}/checkout`, { token, body }), 400, code);
  });

  it('refuses a body order_id that differs from the path', async () => {
    const order = await createOk();
    const response = await call('POST', `/v1/orders/${order.order_id}/checkout`, {
      token,
      body: { order_id: randomUUID(), pay_currency: 'BTC' },
    });
    expectError(response, 400, 'PARAMETERS_INVALID', 'order_id');
  });

  it('refuses a gateway the merchant has not enabled (non-sandbox)', async () => {
    const live = await newMerchant(false, 'Live Shop');
    const order = (await create({ price_amount: 5 }, live.api_token)).body.order;
    const response = await call('POST', `/v1/orders/${order.order_id}/checkout`, { token: live.api_token, body: { pay_currency: 'WECHAT' } });
    expectError(response, 400, 'PAYMENT_NOT_AVAILABLE', 'WECHAT');
  });

  it('fails closed for a live merchant in LBTC and EOS while no real provider is configured, storing nothing', async () => {
    // The test environment configures no Lightning node and no watched EOS account: a live
    // buyer must never be handed the sandbox node's invoice or the sandbox account.
    const live = await newMerchant(false, 'Live Shop');
    const order = (await create({ price_amount: 5 }, live.api_token)).body.order;
    for (const pay_currency of ['LBTC', 'EOS']) {
      const response = await call('POST', `/v1/orders/${order.order_id}/checkout`, { token: live.api_token, body: { pay_currency } });
      expectError(response, 400, 'PAYMENT_NOT_AVAILABLE', pay_currency);
      const created = await create({ price_amount: 5, pay_currency }, live.api_token);
      expectError(created, 400, 'PAYMENT_NOT_AVAILABLE', pay_currency);
    }
    const got = await call('GET', `/v1/orders/${order.order_id}`, { token: live.api_token });
    expect(got.body.order).toMatchObject({ status: 'NEW', pay_currency: 'USD', updated_at: order.updated_at });
    expect(got.body.invoice).toEqual({});
    // The same checkouts for a sandbox merchant get the sandbox node and account.
    const sandboxOrder = (await create({ price_amount: 5 })).body.order;
    const lightning = await call('POST', `/v1/orders/${sandboxOrder.order_id}/checkout`, { token, body: { pay_currency: 'LBTC' } });
    expect(lightning.status, lightning.text).toBe(200);
    expect(readInvoice(lightning.body.invoice.payment_address).payeeNodeKey).toBe(new SandboxLightningNode().nodeId);
    const eos = await call('POST', `/v1/orders/${sandboxOrder.order_id}/checkout`, { token, body: { pay_currency: 'EOS' } });
    expect(eos.body.invoice.payment_address).toBe(SANDBOX_EOS_ACCOUNT);
  });
});

describe('money is exact', () => {
  it('keeps large prices and 8-decimal crypto prices exact', async () => {
    expect((await createOk({ price_amount: 999999999999.99 })).price_amount).toBe(999999999999.99);
    const btcPriced = await createOk({ price_amount: 0.00000001, price_currency: 'BTC' });
    expect(btcPriced.price_amount).toBe(0.00000001);
    const checkout = await call('POST', `/v1/orders/${btcPriced.order_id}/checkout`, { token, body: { pay_currency: 'LBTC' } });
    expect(checkout.body.invoice.pay_amount).toBe(0.00000001);
    expect(checkout.body.invoice.payment_uri).toMatch(/^lightning:lnbc10n1/);
  });

  it('converts 0.1 + 0.2 worth of value without float drift', async () => {
    // 0.30 USD in BTC at 65000 USD/BTC is 0.0000046153846..., rounded up to 0.00000462.
    const order = await createOk({ price_amount: 0.3 });
    const checkout = await call('POST', `/v1/orders/${order.order_id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    expect(checkout.body.invoice.pay_amount).toBe(0.00000462);
    expect(checkout.body.invoice.receive_amount).toBe(0.3);
    expect(checkout.body.invoice.payment_uri).toBe(`bitcoin:${checkout.body.invoice.payment_address}?amount=0.00000462`);
  });

  it('converts CNY prices to EOS at 4 decimals', async () => {
    // 100 CNY = 13.89 USD = 17.3625 EOS at 0.80 USD/EOS.
    const order = await createOk({ price_amount: 100, price_currency: 'CNY' });
    const checkout = await call('POST', `/v1/orders/${order.order_id}/checkout`, { token, body: { pay_currency: 'EOS' } });
    expect(checkout.body.invoice).toMatchObject({ pay_amount: 17.3625, receive_amount: 13.89, payment_address: 'sandboxpayio' });
    expect(checkout.body.invoice.memo).toBe(checkout.body.invoice.invoice_id);
  });
});

describe('Get Orders', () => {
  let merchantToken: string;
  const created: any[] = [];

  beforeAll(async () => {
    merchantToken = (await newMerchant()).api_token;
    for (let i = 0; i < 13; i += 1) {
      const response = await create({ price_amount: i + 1, merchant_order_id: `list-${i}` }, merchantToken);
      created.push(response.body.order);
    }
  });

  const list = (query = '', path = '/v1/orders/') => call('GET', `${path}${query}`, { token: merchantToken });

  it('answers newest first, 10 by default, with the fields of Get Order and no invoices', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['status', 'orders']);
    expect(response.body.status).toBe(200);
    expect(response.body.orders.map((o: any) => o.merchant_order_id)).toEqual(
      created
        .slice(3)
        .reverse()
        .map((o) => o.merchant_order_id),
    );
    expect(response.body.orders[0]).toHaveProperty('token', '');
    expect(response.body.orders[0]).toHaveProperty('deleted', 0);
    expect(response.body.orders[0]).not.toHaveProperty('invoice');
  });

  it('answers without the trailing slash too', async () => {
    const withSlash = await list('?limit=3');
    const without = await list('?limit=3', '/v1/orders');
    expect(without.status).toBe(200);
    expect(without.body).toEqual(withSlash.body);
  });

  it('pages with limit and offset', async () => {
    const page = await list('?limit=5&offset=10');
    expect(page.body.orders.map((o: any) => o.merchant_order_id)).toEqual(['list-2', 'list-1', 'list-0']);
    expect((await list('?limit=50')).body.orders).toHaveLength(13);
    expect((await list('?offset=13')).body.orders).toEqual([]);
  });

  it('answers any offset (an empty page past the last order); with status, offsets up to 1000', async () => {
    const deep = await list('?offset=1000001');
    expect(deep.status).toBe(200);
    expect(deep.body.orders).toEqual([]);
    expect((await list('?status=NEW&offset=1000')).body.orders).toEqual([]);
    expectError(await list('?status=NEW&offset=1001'), 400, 'PARAMETERS_INVALID', 'offset: with status, Get Orders serves offsets 0..1000');
  });

  it('filters by status', async () => {
    expect((await list('?status=NEW&limit=50')).body.orders).toHaveLength(13);
    expect((await list('?status=PAID')).body.orders).toEqual([]);
  });

  it("never lists another merchant's orders", async () => {
    const ids = new Set(created.map((o) => o.order_id));
    const theirs = await call('GET', '/v1/orders?limit=50', { token: otherToken });
    expect(theirs.body.orders.some((o: any) => ids.has(o.order_id))).toBe(false);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=51', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=ten', 'offset'],
    ['offset=9007199254740992', 'offset'],
    ['status=DONE', 'status'],
    ['status=paid', 'status'],
    ['limit=1&limit=2', 'limit'],
    ['limit=Infinity', 'limit'],
    ['offset=1e400', 'offset'],
    ['limit=0x10', 'limit'],
    ['limit=1e1', 'limit'],
    ['offset=%20', 'offset'],
  ])('refuses %s with a 400 naming the parameter', async (query, field) => {
    expectError(await list(`?${query}`), 400, 'PARAMETERS_INVALID', field);
  });
});

describe('routing', () => {
  it('answers unknown paths and methods with a JSON 404', async () => {
    expectError(await call('GET', '/v2/orders', { token }), 404, 'NOT_FOUND');
    expectError(await call('DELETE', '/v1/orders', { token }), 404, 'NOT_FOUND');
    expectError(await call('GET', `/v1/orders/${randomUUID()}/checkout`, { token }), 404, 'NOT_FOUND');
  });
});
