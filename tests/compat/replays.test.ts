/**
 * MugglePay's published clients, replayed against this service as they are (issue 11): each
 * request exactly as that client encodes and sends it (tests/compat/support/encoders.ts,
 * checked against the real PHP and Python in encoders.test.ts), each answer checked for the
 * fields and types that client reads, each plugin's callback check run on the callback this
 * service really sends (the whole pipeline: stream, queue, delivery over loopback), and each
 * plugin's reply counted as delivered.
 *
 * Sources read (public repositories): MugglePay/mugglepay-nodejs-sdk (mugglepay.js, test.js,
 * callback_server.js), ruofeixu/mugglepay-python-sdk (mugglepay.py, callback_server.py),
 * MugglePay/mugglepay-php-sdk (Core.php, example.php, callback.php), admpub/mugglepay
 * (mugglepay.go, the structs folder, utils/http.go), MugglePay/MugglePayForWooCommerce
 * (class-mpwp-gateway.php, class-mugglepay-request.php), MugglePay/MugglePayForWHMCS
 * (bitpayx/class.php, bitpayxForCrypto.php, bitpayxForAlipay.php and their notify.php),
 * QENCloud/Mugglepay-Xboard-Payment-Plugin (Plugin.php), MugglePay/MugglePay API/ (CreateOrder,
 * GetOrder, CheckoutOrder, CancelOrder, PaymentCallback, SupportedTokens).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../support/pipeline';
import { MerchantEndpoint, type ReceivedCallback } from '../support/merchant-endpoint';
import { rawClient, type FuzzRequest, type RawResponse } from '../support/fuzz';
import { Float, goJsonMarshal, phpJsonEncode, pythonJsonDumps } from './support/encoders';
import { md5Token, wcOrderKey, wpCheckPassword, wpHashPassword } from './support/clients';

const TABLE = `compat-${process.pid}`;
let stopAll: () => Promise<void>;
let http: ReturnType<typeof rawClient>;
/** A sandbox merchant with the default callback setting (PAID only), as a migrating shop gets. */
let shop: { user_id: number; api_token: string; callback_secret: string };
const endpoints: MerchantEndpoint[] = [];
let counter = 0;
const unique = (prefix: string) => `${prefix}${process.pid}${Date.now() % 100000}${(counter += 1)}`;

beforeAll(async () => {
  const started = await startPipeline(TABLE, { CALLBACK_TIMEOUT_MS: '3000' });
  stopAll = started.stop;
  http = rawClient(started.api.url);
  shop = await started.support.newMerchant(true, 'Migrating Shop');
}, 60_000);

afterAll(async () => {
  http?.close();
  await stopAll?.();
  for (const started of endpoints) await started.stop();
});

/** The merchant site of a plugin: answers each callback with what that plugin's code answers. */
async function site(handle: (callback: ReceivedCallback) => { status: number; contentType: string; body: string }) {
  const started = await new MerchantEndpoint((callback) => {
    const answer = handle(callback);
    return { status: answer.status, headers: { 'content-type': answer.contentType }, body: answer.body };
  }).start();
  endpoints.push(started);
  return started;
}

const base = () => new URL(endpoints.at(-1)!.url).origin;

function send(request: FuzzRequest): Promise<RawResponse> {
  return http.send(request);
}

/** Pays the order's current invoice in the sandbox (what a chain watcher would report). */
async function pay(orderId: string): Promise<void> {
  const paid = await send({ method: 'POST', path: `/v1/sandbox/orders/${orderId}/pay`, headers: { token: shop.api_token }, body: '{}' });
  expect(paid.status, paid.text).toBe(200);
  expect(paid.json.order.status).toBe('PAID');
}

/** The callback log of an order once its PAID callback is settled. */
async function deliveredLog(orderId: string): Promise<{ status: string; state: string; attempts: { http_status?: number }[] }[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const log = await send({ method: 'GET', path: `/v1/orders/${orderId}/callbacks`, headers: { token: shop.api_token } });
    const callbacks = log.json.callbacks as { status: string; state: string; attempts: { http_status?: number }[] }[];
    if (callbacks.length && callbacks.every((c) => c.state !== 'PENDING')) return callbacks;
    if (Date.now() > deadline) throw new Error(`callbacks not settled: ${log.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** JSON types as a decoder sees them. */
const jsonType = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * What Go's json.Unmarshal needs of the fields present (absent ones are zero values): the
 * admpub/mugglepay structs. A field of another JSON type fails the whole decode.
 */
const GO_ORDER = {
  order_id: 'string',
  user_id: 'number',
  merchant_order_id: 'string',
  title: 'string',
  description: 'string',
  callback_url: 'string',
  cancel_url: 'string',
  success_url: 'string',
  price_amount: 'number',
  price_currency: 'string',
  status: 'string',
  notified: 'string',
  created_at: 'string',
  updated_at: 'string',
  pay_amount: 'number',
  pay_currency: 'string',
  is_self: 'boolean',
  mobile: 'boolean',
  fast: 'boolean',
  token: 'string',
  paid_at: 'string',
  receive_currency: 'string',
} as const;
const GO_INVOICE = {
  invoice_id: 'string',
  order_id: 'string',
  pay_amount: 'number',
  pay_currency: 'string',
  status: 'string',
  created_at: 'string',
  created_at_t: 'number',
  expired_at: 'string',
  expired_at_t: 'number',
  merchant_order_id: 'string',
  receive_amount: 'number',
  receive_currency: 'string',
  qrcode: 'string',
  qrcodeLg: 'string',
  address: 'string',
  memo: 'string',
} as const;
const GO_CALLBACK = {
  merchant_order_id: 'string',
  order_id: 'string',
  status: 'string',
  price_amount: 'number',
  price_currency: 'string',
  pay_amount: 'number',
  pay_currency: 'string',
  created_at: 'string',
  created_at_t: 'number',
  token: 'string',
  meta: 'object',
} as const;
const GO_META = { payment: 'string', total_amount: 'string', trade_no: 'string', out_trade_no: 'string' } as const;

function expectGoDecodes(value: Record<string, unknown>, struct: Record<string, string>, where: string): void {
  for (const [field, type] of Object.entries(struct)) {
    if (value[field] === undefined) continue;
    // Go decodes null into any field as its zero value.
    if (value[field] !== null) expect(jsonType(value[field]), `${where}.${field}`).toBe(type);
    if (type === 'number' && (field.endsWith('_t') || field === 'user_id')) expect(Number.isInteger(value[field]), `${where}.${field} is an integer`).toBe(true);
  }
}

function expectGoServerOrder(body: any): void {
  expect(jsonType(body.status)).toBe('number'); // ServerOrder.Status int
  if (body.order !== undefined) expectGoDecodes(body.order, GO_ORDER, 'order');
  if (body.invoice !== undefined) expectGoDecodes(body.invoice, GO_INVOICE, 'invoice');
  for (const field of ['payment_url', 'permission', 'error', 'error_code']) if (body[field] !== undefined) expect(jsonType(body[field]), field).toBe('string');
}

// ---------------------------------------------------------------------------------------------

describe('MugglePay/mugglepay-nodejs-sdk (request with json: true)', () => {
  const headers = () => ({ token: shop.api_token, 'content-type': 'application/json', accept: 'application/json' });

  it("create_order with test.js's fields, get_order, get_orders; its reads (body.order.order_id)", async () => {
    const order = {
      merchant_order_id: unique('node-'),
      title: 'Monthly Program x 2',
      description: 'test python',
      price_amount: 0.01,
      price_currency: 'USD',
      pay_currency: 'BTC',
      callback_url: 'https://shop.example/mugglepay_callback_api',
      cancel_url: 'https://shop.example/mugglepay?status=cancel',
      success_url: 'https://shop.example/mugglepay?status=cancel',
      mobile: false,
      fast: false,
      token: 'test12345',
    };
    const created = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: JSON.stringify(order) });
    expect(created.status, created.text).toBe(200);
    expect(jsonType(created.json.order.order_id)).toBe('string');
    const orderId = created.json.order.order_id as string;
    const got = await send({ method: 'GET', path: `/v1/orders/${orderId}`, headers: headers() });
    expect(got.status).toBe(200);
    expect(got.json.order).toMatchObject({ order_id: orderId, token: 'test12345', pay_currency: 'BTC' });
    // qs: { status, limit, offset } through querystring.stringify.
    const listed = await send({ method: 'GET', path: '/v1/orders?status=NEW&limit=10&offset=0', headers: headers() });
    expect(listed.status).toBe(200);
    expect(listed.json.orders.map((o: { order_id: string }) => o.order_id)).toContain(orderId);
  });

  it("test.js's own pay_currency 'CNY' (a price currency, no pay currency) gets a 400 naming pay_currency", async () => {
    const body = JSON.stringify({ merchant_order_id: unique('node-'), price_amount: 0.01, price_currency: 'USD', pay_currency: 'CNY' });
    const created = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body });
    expect(created.status).toBe(400);
    expect(created.json).toMatchObject({ error_code: 'PARAMETERS_INVALID' });
    expect(created.json.error).toContain('pay_currency');
  });

  it("checkout_order builds its URL from this.order_id (undefined): the contract's 422, as MugglePay would answer", async () => {
    const response = await send({ method: 'POST', path: '/v1/orders/undefined/checkout', headers: headers(), body: JSON.stringify({ pay_currency: 'BTC' }) });
    expect(response.status).toBe(422);
    expect(response.text).toBe('{"error":"Order does not exist","status":422}');
  });

  it("callback_server.js's reply ('callback done', text/html) counts as delivered", async () => {
    const merchant = await site(() => ({ status: 200, contentType: 'text/html; charset=utf-8', body: 'callback done' }));
    const created = await send({
      method: 'POST',
      path: '/v1/orders',
      headers: headers(),
      body: JSON.stringify({
        merchant_order_id: unique('node-'),
        price_amount: 9.99,
        price_currency: 'USD',
        pay_currency: 'BTC',
        callback_url: `${base()}/mugglepay_callback_api`,
        token: 'test12345',
      }),
    });
    await pay(created.json.order.order_id);
    const [callback] = await deliveredLog(created.json.order.order_id);
    expect(callback).toMatchObject({ status: 'PAID', state: 'DELIVERED' });
    expect(merchant.for(created.json.order.order_id)[0]!.json.token).toBe('test12345');
  });
});

describe('ruofeixu/mugglepay-python-sdk (requests, json=)', () => {
  const headers = () => ({ 'content-type': 'application/json', token: shop.api_token, 'user-agent': 'python-requests/2.31.0', accept: '*/*' });
  const data = (overrides: Record<string, unknown>) => ({
    merchat_order_id: 'your_order_id', // sic: the SDK's spelling, so the service never sees a merchant_order_id
    price_amount: new Float(0.01),
    price_currency: 'USD',
    pay_currency: 'BTC',
    title: 'Monthly Program x 2',
    description: 'test python',
    callback_url: 'https://shop.example/mugglepay_callback_api',
    cancel_url: 'https://shop.example/mugglepay?status=cancel',
    success_url: 'https://shop.example/mugglepay?status=success',
    mobile: false,
    fast: false,
    token: 'test12345',
    ...overrides,
  });

  it('create_order (merchat_order_id ignored), get_order, get_orders, checkout_order; its reads (res[order][order_id])', async () => {
    const body = pythonJsonDumps(data({ pay_currency: '' }));
    expect(body).toContain('"merchat_order_id": "your_order_id", "price_amount": 0.01');
    const created = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body });
    expect(created.status, created.text).toBe(200);
    expect(created.json.order).toMatchObject({ merchant_order_id: '', pay_currency: 'USD', price_amount: 0.01 });
    const orderId = created.json.order.order_id as string;
    // The same call again is a second order: the Python SDK's merchant reference never arrives.
    const again = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body });
    expect(again.status).toBe(200);
    expect(again.json.order.order_id).not.toBe(orderId);
    const got = await send({ method: 'GET', path: `/v1/orders/${orderId}`, headers: headers() });
    expect(got.json.order.order_id).toBe(orderId);
    const listed = await send({ method: 'GET', path: '/v1/orders?status=NEW&limit=2&offset=0', headers: headers() });
    expect(listed.status).toBe(200);
    expect(listed.json.orders).toHaveLength(2);
    const checkout = await send({
      method: 'POST',
      path: `/v1/orders/${orderId}/checkout`,
      headers: headers(),
      body: pythonJsonDumps({ order_id: orderId, pay_currency: 'BTC' }),
    });
    expect(checkout.status, checkout.text).toBe(200);
    expect(checkout.json.invoice).toMatchObject({ pay_currency: 'BTC', pay_amount: 0.00000016 });
  });

  it("callback_server.py echoes the callback's JSON back (Flask): counted as delivered", async () => {
    await site((callback) => ({ status: 200, contentType: 'application/json', body: JSON.stringify(callback.json) }));
    const created = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: pythonJsonDumps(data({ callback_url: `${base()}/muggle_callback_api` })) });
    expect(created.status, created.text).toBe(200);
    await pay(created.json.order.order_id);
    expect((await deliveredLog(created.json.order.order_id))[0]).toMatchObject({ status: 'PAID', state: 'DELIVERED' });
  });
});

describe('MugglePay/mugglepay-php-sdk (curl, json_encode, md5 token)', () => {
  const headers = () => ({ 'content-type': 'application/json', token: shop.api_token, accept: '*/*' });

  it("example.php: create (array_filter'd fields, (double) price in CNY), payment_url .= '&lang=zh', query; callback.php accepts the PAID callback and answers success", async () => {
    let verdict = '';
    const merchant = await site((callback) => {
      // callback.php: verify(prepareSignId($inputJSON['merchant_order_id']), $inputJSON['token']) && status === 'PAID'
      const secret = shop.api_token; // the SDK signs with its app secret, the API token
      const verified = md5Token(secret, callback.json.merchant_order_id) === callback.json.token;
      verdict = verified && callback.json.status === 'PAID' ? 'success' : 'fail';
      return { status: 200, contentType: 'text/html; charset=UTF-8', body: verdict };
    });
    const orderId = unique('');
    const host = base();
    // $data['pay_currency'] = '', $data['mobile'] = '', $data['fast'] = '' are removed by array_filter.
    const data: Record<string, unknown> = {
      merchant_order_id: orderId,
      price_amount: new Float(10.99),
      price_currency: 'CNY',
      title: 'here is the title',
      description: 'here is the description',
      callback_url: `${host}/callback.php?order_id=${orderId}`,
      success_url: `${host}/success.php?order_id=${orderId}`,
      cancel_url: `${host}/cancel.php?order_id=${orderId}`,
    };
    data.token = md5Token(shop.api_token, orderId);
    const body = phpJsonEncode(data);
    expect(body).toContain('"callback_url":"http:\\/\\/127.0.0.1:');
    const created = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body });
    expect(created.status, created.text).toBe(200);
    expect(created.json.status === 200 || created.json.status === 201).toBe(true);
    const paymentUrl = new URL(`${created.json.payment_url}&lang=zh`);
    expect(paymentUrl.searchParams.get('id')).toBe(created.json.order.order_id);
    const mugglepayOrderId = created.json.order.order_id as string;
    // query(): GET orders/<id> with the same headers; reads $binfo['order']['status'].
    const binfo = await send({ method: 'GET', path: `/v1/orders/${mugglepayOrderId}`, headers: headers() });
    expect(binfo.json.order.status).toBe('NEW');
    await send({ method: 'POST', path: `/v1/orders/${mugglepayOrderId}/checkout`, headers: headers(), body: phpJsonEncode({ pay_currency: 'BTC' }) });
    await pay(mugglepayOrderId);
    expect((await deliveredLog(mugglepayOrderId))[0]).toMatchObject({ status: 'PAID', state: 'DELIVERED' });
    expect(merchant.for(mugglepayOrderId)).toHaveLength(1);
    expect(verdict).toBe('success');
  });
});

describe('admpub/mugglepay (Go: resty, json.Marshal of the whole Order struct)', () => {
  const appKey = () => shop.api_token;
  const headers = () => ({ 'content-type': 'application/json', accept: 'application/json', token: appKey(), 'user-agent': 'go-resty/2.7.0 (https://github.com/go-resty/resty)' });
  /** structs.Order with every field, in declaration order, as CreateOrder sends it after Sign(). */
  const goOrder = (merchantOrderId: string, callbackUrl: string, payCurrency: string) => ({
    order_id: '',
    user_id: 0,
    merchant_order_id: merchantOrderId,
    title: '订单标题',
    description: '订单描述',
    callback_url: callbackUrl,
    cancel_url: 'https://www.example.com/user/code/return?a=1&b=2',
    success_url: 'https://www.example.com/user/code/return?a=1&b=2',
    price_amount: new Float(12.5),
    price_currency: 'CNY',
    status: '',
    notified: '',
    created_at: '',
    updated_at: '',
    pay_amount: new Float(0),
    pay_currency: payCurrency,
    is_self: false,
    mobile: false,
    fast: false,
    token: md5Token(appKey(), merchantOrderId, { type: 'FIAT', encoder: 'go' }),
    paid_at: '',
    receive_currency: '',
  });

  it('CreateOrder, GetOrder, CheckOut(ETH_ERC20) decode into its structs; Invoice.Address is the address', async () => {
    const body = goJsonMarshal(goOrder(unique('go-'), 'https://www.example.com/payment/notify', ''));
    expect(body).toContain('"cancel_url":"https://www.example.com/user/code/return?a=1\\u0026b=2"');
    const created = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body });
    expect(created.status, created.text).toBe(200);
    expectGoServerOrder(created.json);
    expect(created.json.order).toMatchObject({ pay_currency: 'CNY', price_amount: 12.5, status: 'NEW' });
    const orderId = created.json.order.order_id as string;
    const got = await send({ method: 'GET', path: `/v1/orders/${orderId}`, headers: headers() });
    expectGoServerOrder(got.json);
    // map[string]string marshals with sorted keys.
    const checkout = await send({ method: 'POST', path: `/v1/orders/${orderId}/checkout`, headers: headers(), body: goJsonMarshal({ order_id: orderId, pay_currency: 'ETH_ERC20' }) });
    expect(checkout.status, checkout.text).toBe(200);
    expectGoServerOrder(checkout.json);
    expect(checkout.json.invoice.pay_currency).toBe('ETH');
    expect(checkout.json.invoice.address).toBe(checkout.json.invoice.payment_address);
    expect(checkout.json.invoice.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(checkout.json.invoice.memo).toBe('');
    // CancelOrder posts emptyBody (map[string]interface{}{}): {}.
    const canceled = await send({ method: 'POST', path: `/v1/orders/${orderId}/cancel`, headers: headers(), body: '{}' });
    expect(canceled.status).toBe(200);
    expectGoServerOrder(canceled.json);
    expect(canceled.json.order.status).toBe('CANCELED');
  });

  it('VerifyOrder accepts the PAID callback (md5 with type=FIAT over url.Values.Encode); the callback decodes into structs.Callback; its {"status":200} counts as delivered', async () => {
    let verified = false;
    let received: Record<string, any> = {};
    await site((callback) => {
      received = callback.json;
      verified = md5Token(appKey(), callback.json.merchant_order_id, { type: 'FIAT', encoder: 'go' }) === callback.json.token && callback.json.status === 'PAID';
      return { status: 200, contentType: 'application/json; charset=utf-8', body: verified ? '{"status":200}' : '{"status":400}' };
    });
    const created = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: goJsonMarshal(goOrder(unique('go-'), `${base()}/payment/notify`, 'BTC')) });
    expect(created.status, created.text).toBe(200);
    await pay(created.json.order.order_id);
    expect((await deliveredLog(created.json.order.order_id))[0]).toMatchObject({ status: 'PAID', state: 'DELIVERED' });
    expect(verified).toBe(true);
    expectGoDecodes(received, GO_CALLBACK, 'callback');
    expectGoDecodes(received.meta, GO_META, 'callback.meta');
  });
});

describe('MugglePay/MugglePayForWooCommerce (wp_remote_request, json_encode, phpass token)', () => {
  const headers = () => ({ 'content-type': 'application/json', token: shop.api_token, 'user-agent': 'WordPress/6.5; https://shop.example' });
  const args = (orderKey: string, wcOrderId: number, callbackUrl: string, payCurrency: string) => ({
    merchant_order_id: orderKey,
    price_amount: '19.90', // $order->get_total(): a string
    price_currency: 'USD',
    pay_currency: payCurrency, // '' for the generic MugglePay method
    title: `Payment order #${wcOrderId}`,
    description: 'T-Shirt x 2, 咖啡豆 x 1',
    callback_url: callbackUrl,
    cancel_url: `https://shop.example/cart/?cancel_order=true&order=${orderKey}&order_id=${wcOrderId}&redirect&_wpnonce=5c0e2a9f1b`,
    success_url: `https://shop.example/checkout/order-received/${wcOrderId}/?key=${orderKey}`,
    mobile: false,
    token: wpHashPassword(orderKey),
  });

  it('process_payment: created, then the retried checkout gets the same payment_url from ORDER_MERCHANTID_EXIST; check_response marks it paid on the callback; refund with []', async () => {
    const orderKey = wcOrderKey();
    let paidWith: unknown;
    await site((callback) => {
      // check_response(): merchant_order_id and token present, order found by key, wp_check_password.
      const posted = callback.json;
      if (!posted?.merchant_order_id || !posted.token || posted.merchant_order_id !== orderKey || !wpCheckPassword(orderKey, posted.token)) {
        return { status: 500, contentType: 'application/json; charset=UTF-8', body: '{"message":"Checking IPN response is valid","status":500}' };
      }
      paidWith = posted.order_id; // $order->payment_complete(); set_transaction_id($posted['order_id'])
      return { status: 200, contentType: 'application/json; charset=UTF-8', body: '{"status":200}' };
    });
    const body = phpJsonEncode(args(orderKey, 123, `${base()}/?wc-api=WC_Gateway_MPWP`, ''));
    expect(body).toContain('"price_amount":"19.90"');
    expect(body).toContain('\\u5496\\u5561\\u8c46');
    const first = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body });
    expect(first.status, first.text).toBe(200);
    expect(first.json.status === 200 || first.json.status === 201).toBe(true);
    expect(first.json.order.price_amount).toBe(19.9);
    const paymentUrl = first.json.payment_url as string;
    const transactionId = first.json.order.order_id as string;
    // The buyer comes back and checks out again: same order key, a new phpass hash.
    const again = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: phpJsonEncode(args(orderKey, 123, `${base()}/?wc-api=WC_Gateway_MPWP`, '')) });
    expect(again.json.status).toBe(400);
    expect(again.json.error_code).toBe('ORDER_MERCHANTID_EXIST');
    expect(again.json.payment_url).toBe(paymentUrl);
    expect(again.json.order.order_id).toBe(transactionId);
    await send({ method: 'POST', path: `/v1/orders/${transactionId}/checkout`, headers: headers(), body: phpJsonEncode({ pay_currency: 'LTC' }) });
    await pay(transactionId);
    expect((await deliveredLog(transactionId))[0]).toMatchObject({ status: 'PAID', state: 'DELIVERED' });
    expect(paidWith).toBe(transactionId);
    // process_refund(): POST /orders/<transaction id>/refund with json_encode(array()) = "[]".
    const refund = await send({ method: 'POST', path: `/v1/orders/${transactionId}/refund`, headers: headers(), body: '[]' });
    expect(refund.json.status).toBe(200);
    expect(refund.json.order.status).toBe('REFUND_PENDING');
  });

  it('a method this service cannot take (P2P_BTC) gets PAYMENT_NOT_AVAILABLE, which get_error_str knows', async () => {
    const response = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: phpJsonEncode(args(wcOrderKey(), 124, 'https://shop.example/?wc-api=WC_Gateway_MPWP', 'P2P_BTC')) });
    expect(response.json).toMatchObject({ status: 400, error_code: 'PAYMENT_NOT_AVAILABLE' });
  });
});

describe('MugglePay/MugglePayForWHMCS (curl, json_encode, md5 token with type=FIAT)', () => {
  const headers = () => ({ 'content-type': 'application/json', token: shop.api_token, accept: '*/*' });
  const payData = (invoiceId: number, systemUrl: string, payCurrency: string, gateway: string) => {
    const data: Record<string, unknown> = {
      merchant_order_id: `WHMCS_${invoiceId}`,
      price_amount: '19.90', // $params['amount'], "xxx.xx"
      price_currency: 'CNY',
      pay_currency: payCurrency,
      title: `支付单号：${invoiceId}`,
      description: '充值：19.90 元',
      callback_url: `${systemUrl}modules/gateways/${gateway}/notify.php`,
      success_url: `${systemUrl}viewinvoice.php?id=${invoiceId}`,
      cancel_url: `${systemUrl}viewinvoice.php?id=${invoiceId}`,
    };
    data.token = md5Token(shop.api_token, String(data.merchant_order_id), { type: 'FIAT' });
    return phpJsonEncode(data);
  };

  it('bitpayxForAlipay: every invoice view re-creates the order; the duplicate answer gives order.order_id and order.status (NEW, then PAID); notify.php verifies and answers {"status":200}', async () => {
    const invoiceId = 40_000 + (counter += 1) + (process.pid % 1000) * 100;
    let paymentAmount: unknown;
    let invoiceSeen = '';
    await site((callback) => {
      const input = callback.json;
      if (md5Token(shop.api_token, input.merchant_order_id, { type: 'FIAT' }) !== input.token) {
        return { status: 200, contentType: 'text/html; charset=UTF-8', body: '{"status":400,"error":"Error"}' };
      }
      if (input.status !== 'PAID') return { status: 200, contentType: 'text/html; charset=UTF-8', body: '{"status":400,"error":"Error: not paid "}' };
      invoiceSeen = input.merchant_order_id.slice(6); // substr($merchantinvoiceId, 6)
      paymentAmount = input.pay_amount;
      return { status: 200, contentType: 'text/html; charset=UTF-8', body: '{"status":200}' };
    });
    const systemUrl = `${base()}/`;
    const first = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: payData(invoiceId, systemUrl, 'ALIGLOBAL', 'bitpayxForAlipay') });
    expect(first.status, first.text).toBe(200);
    expect(first.json.status).toBe(201);
    expect(first.json.payment_url).toContain(first.json.order.order_id);
    const view = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: payData(invoiceId, systemUrl, 'ALIGLOBAL', 'bitpayxForAlipay') });
    expect(view.json).toMatchObject({ status: 400, error_code: 'ORDER_MERCHANTID_EXIST', order: { order_id: first.json.order.order_id, status: 'NEW' } });
    await pay(first.json.order.order_id);
    expect((await deliveredLog(first.json.order.order_id))[0]).toMatchObject({ status: 'PAID', state: 'DELIVERED' });
    expect(jsonType(paymentAmount)).toBe('number');
    expect(invoiceSeen).toBe(String(invoiceId));
    const paidView = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: payData(invoiceId, systemUrl, 'ALIGLOBAL', 'bitpayxForAlipay') });
    expect(paidView.json.order.status).toBe('PAID');
  });

  it('bitpayxForCrypto sends pay_currency USDT: checked out in USDT_ERC20 (plain USDT is Tether on Ethereum here), an Ethereum address to pay', async () => {
    const invoiceId = 50_000 + (counter += 1) + (process.pid % 1000) * 100;
    const created = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: payData(invoiceId, 'https://whmcs.example/', 'USDT', 'bitpayxForCrypto') });
    expect(created.status, created.text).toBe(200);
    expect(created.json).toMatchObject({ status: 201, order: { pay_currency: 'USDT_ERC20', price_currency: 'CNY', price_amount: 19.9 } });
    const got = await send({ method: 'GET', path: `/v1/orders/${created.json.order.order_id}`, headers: headers() });
    expect(got.json.invoice.pay_currency).toBe('USDT_ERC20');
    expect(got.json.invoice.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const view = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: payData(invoiceId, 'https://whmcs.example/', 'USDT', 'bitpayxForCrypto') });
    expect(view.json).toMatchObject({ status: 400, error_code: 'ORDER_MERCHANTID_EXIST', order: { order_id: created.json.order.order_id, status: 'NEW' } });
  });
});

describe('QENCloud/Mugglepay-Xboard-Payment-Plugin (curl, json_encode, number_format)', () => {
  it("pay(): number_format price in CNY, reads payment_url; notify(): md5 check, PAID, Xboard answers 'success'", async () => {
    let handled = false;
    await site((callback) => {
      const data = callback.json;
      if (md5Token(shop.api_token, data.merchant_order_id, { type: 'FIAT' }) !== data.token) return { status: 400, contentType: 'text/html', body: '签名验证失败' };
      if (data.status !== 'PAID') return { status: 200, contentType: 'text/html', body: 'pending' };
      handled = true; // ['trade_no' => merchant_order_id, 'callback_no' => order_id]
      return { status: 200, contentType: 'text/html; charset=UTF-8', body: 'success' };
    });
    const tradeNo = unique('2026112');
    const totalAmount = 1250; // cents
    const params: Record<string, unknown> = {
      merchant_order_id: tradeNo,
      price_amount: (totalAmount / 100).toFixed(2), // number_format($total / 100, 2, '.', '')
      price_currency: 'CNY',
      title: `充值订单 ${tradeNo}`,
      description: `VPS 充值 ${totalAmount / 100} 元`,
      callback_url: `${base()}/api/v1/guest/payment/notify/mugglepay/abc123`,
      success_url: 'https://xboard.example/#/order/' + tradeNo,
      cancel_url: 'https://xboard.example/#/order/' + tradeNo,
    };
    params.token = md5Token(shop.api_token, tradeNo, { type: 'FIAT' });
    const created = await send({ method: 'POST', path: '/v1/orders', headers: { 'content-type': 'application/json', token: shop.api_token }, body: phpJsonEncode(params) });
    expect(created.status, created.text).toBe(200);
    expect(typeof created.json.payment_url).toBe('string');
    expect(created.json.order.price_amount).toBe(12.5);
    await send({ method: 'POST', path: `/v1/orders/${created.json.order.order_id}/checkout`, headers: { token: shop.api_token }, body: '{"pay_currency":"BTC"}' });
    await pay(created.json.order.order_id);
    expect((await deliveredLog(created.json.order.order_id))[0]).toMatchObject({ status: 'PAID', state: 'DELIVERED' });
    expect(handled).toBe(true);
  });
});

describe("MugglePay's API docs (MugglePay/MugglePay API/)", () => {
  const headers = () => ({ 'content-type': 'application/json', token: shop.api_token });

  it("CreateOrder.md's curl example: a numeric merchant_order_id, the body as typed", async () => {
    const id = 100_000 + (counter += 1) + (process.pid % 1000) * 1000;
    const body = `{\n  "merchant_order_id": ${id},\n  "price_amount": 10,\n  "price_currency": "USD"\n}`;
    const response = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body });
    expect(response.status, response.text).toBe(200);
    expect(response.json.order).toMatchObject({ merchant_order_id: String(id), price_amount: 10, pay_amount: 10, pay_currency: 'USD', status: 'NEW' });
  });

  it("CreateOrder.md's POST body (1.00), its 2025 merchant_token and 2026 email; GetOrder.md's invoice fields; the callback carries both token names", async () => {
    const merchant = await site(() => ({ status: 200, contentType: 'application/json', body: '{"status":200}' }));
    const body = `{
  "merchant_order_id": "${unique('doc-')}",
  "price_amount": 1.00,
  "price_currency": "USD",
  "title": "Monthly Program x 1",
  "description": "Game Pass Friends and Family, up to four players can enjoy Game Pass",
  "callback_url": "${base()}/api/success",
  "cancel_url": "https://ecards.com/ecardstatus?status=cancel",
  "success_url": "https://ecards.com/ecardstatus?status=success",
  "merchant_token": "XI231SD02-SDFWE123D",
  "email": "buyer@ecards.com"
}`;
    const created = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body });
    expect(created.status, created.text).toBe(200);
    const orderId = created.json.order.order_id as string;
    const checkout = await send({ method: 'POST', path: `/v1/orders/${orderId}/checkout`, headers: headers(), body: '{"pay_currency":"EOS"}' });
    const got = await send({ method: 'GET', path: `/v1/orders/${orderId}`, headers: { token: shop.api_token } });
    expect(got.json.order).toMatchObject({ token: 'XI231SD02-SDFWE123D', email: 'buyer@ecards.com', price_amount: 1 });
    expect(got.json.invoice).toMatchObject({ address: checkout.json.invoice.payment_address, memo: checkout.json.invoice.memo, qrcode: checkout.json.invoice.payment_uri });
    expect(got.json.invoice.memo).not.toBe('');
    await pay(orderId);
    expect((await deliveredLog(orderId))[0]).toMatchObject({ status: 'PAID', state: 'DELIVERED' });
    expect(merchant.for(orderId)[0]!.json).toMatchObject({ token: 'XI231SD02-SDFWE123D', merchant_token: 'XI231SD02-SDFWE123D', status: 'PAID' });
  });

  it('SupportedTokens.md: ETH_ERC20 is taken as ETH; USDT_TON, TON and USDC_XLM are taken with a memo; P2P_BTC is known but not taken here', async () => {
    const eth = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: '{"price_amount":100.00,"price_currency":"USD","pay_currency":"ETH_ERC20","title":"Product Purchase"}' });
    expect(eth.status, eth.text).toBe(200);
    expect(eth.json.order.pay_currency).toBe('ETH');
    for (const code of ['USDT_TON', 'TON', 'USDC_XLM']) {
      const taken = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: `{"price_amount":100.00,"price_currency":"USD","pay_currency":"${code}","title":"Product Purchase"}` });
      expect(taken.status, taken.text).toBe(200);
      const got = await send({ method: 'GET', path: `/v1/orders/${taken.json.order.order_id}`, headers: headers() });
      expect(got.json.invoice).toMatchObject({ pay_currency: code, memo: expect.stringMatching(/^\d+$/) });
      expect(got.json.invoice.payment_memo).toBe(got.json.invoice.memo);
    }
    const p2p = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: '{"price_amount":100.00,"price_currency":"USD","pay_currency":"P2P_BTC","title":"Product Purchase"}' });
    expect(p2p.json).toMatchObject({ status: 400, error_code: 'PAYMENT_NOT_AVAILABLE' });
  });

  it('CancelOrder.md: POST with no body and no content-type; PaymentCallback.md\'s {"status":200} reply was used above', async () => {
    const created = await send({ method: 'POST', path: '/v1/orders', headers: headers(), body: '{"price_amount":10}' });
    const canceled = await send({ method: 'POST', path: `/v1/orders/${created.json.order.order_id}/cancel`, headers: { token: shop.api_token } });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.json.order.status).toBe('CANCELED');
  });
});
