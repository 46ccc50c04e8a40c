import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveGatewayHarness, rsaKeys, startLiveGatewayHarness } from '../support/live-gateway';
import { startFakeAlipay, type FakeAlipay } from '../support/alipay-server';
import { reportHealthy } from '../support/source-health';

/**
 * ALIPAY and ALIGLOBAL for live merchants, end to end through the API and the notification
 * endpoints, against local servers speaking Alipay OpenAPI with real RSA2 keys made here:
 * checkout (QR and phone link), verified notifications (genuine, forged, tampered, replayed,
 * out of order, late), the expiry sweep's query, and refunds. Own table: the expiry sweep
 * runs over every due order of it.
 */
const TABLE = `alipay-${process.pid}`;
const SANDBOX_XPUB = 'xpub6C1HVMz946r433QEjZGpYYWYcspxXXBPys5PBGkmQboRXE6RLfFiStEkKbWKCZaPgDrzZh9nUEunxuiuy6MNdw23du2Ek7GoKYMJVH8eK5E';

type Json = Record<string, any>;
let h: LiveGatewayHarness;
let m: LiveGatewayHarness['m'];
let api: LiveGatewayHarness['api'];
let call: LiveGatewayHarness['call'];
let alipay: FakeAlipay;
let global: FakeAlipay;
let token: string;

beforeAll(async () => {
  const app = rsaKeys();
  const globalApp = rsaKeys();
  alipay = await startFakeAlipay({ appId: '2021000000000001', appPublicKey: app.publicKey });
  global = await startFakeAlipay({ appId: '2021000000000002', appPublicKey: globalApp.publicKey });
  h = await startLiveGatewayHarness(TABLE);
  ({ m, api, call } = h);
  h.setEnv({
    // BTC has a chain source configured (nothing polls it here), so a live BTC checkout is allowed.
    BTC_ESPLORA_URL: 'http://127.0.0.1:9/',
    // Keys made for this run only; the bare base64 private key is the form Alipay's key tool prints.
    ALIPAY_CREDENTIALS: JSON.stringify({
      app_id: alipay.appId,
      private_key: app.privateKey.replace(/-----[^-]+-----|\s/g, ''),
      alipay_public_key: alipay.alipayPublicKey,
      gateway_url: alipay.url,
    }),
    ALIGLOBAL_CREDENTIALS: JSON.stringify({
      app_id: global.appId,
      private_key: globalApp.privateKey,
      alipay_public_key: global.alipayPublicKey,
      gateway_url: global.url,
      settle_currency: 'USD',
    }),
  });
  const merchant = await m.merchants.createMerchant({
    name: 'Live Alipay Shop',
    sandbox: false,
    gateways: ['ALIPAY', 'ALIGLOBAL', 'WECHAT'],
    xpubs: { BTC: SANDBOX_XPUB },
  });
  token = merchant.api_token;
  // A live BTC checkout needs its source reported healthy, as its watcher would.
  await reportHealthy('BTC', 'esplora');
});

afterAll(async () => {
  await h?.close();
  await alipay?.close();
  await global?.close();
});

let counter = 0;
async function newOrder(payCurrency = 'ALIPAY', extra: Json = {}): Promise<{ order: Json; invoice: Json; paymentUrl: string }> {
  counter += 1;
  const created = await call('POST', '/v1/orders', {
    token,
    body: { merchant_order_id: `ali-${process.pid}-${counter}`, price_amount: 9.99, price_currency: 'USD', title: '月度会员 x 1', pay_currency: payCurrency, ...extra },
  });
  expect(created.body.status, created.text).toBe(201);
  const read = await call('GET', `/v1/orders/${created.body.order.order_id}`, { token });
  return { order: read.body.order, invoice: read.body.invoice, paymentUrl: created.body.payment_url };
}

const hex = (id: string) => id.replace(/-/g, '');
const outTradeNo = (order: Json, invoice: Json) => `${hex(order.order_id)}${hex(invoice.invoice_id)}`;
const stored = async (orderId: string) => (await m.orders.findOrderWithInvoice(orderId))!;
const notifyUrl = (code: string) => `${api.url}/v1/gateways/${code}/notify`;

describe('checkout', () => {
  it('on a PC is the QR code of alipay.trade.precreate, signed as Alipay checks it (China time, notify URL, amount, timeout)', async () => {
    const { order, invoice } = await newOrder();
    const trade = alipay.trades.get(outTradeNo(order, invoice))!;
    expect(trade).toBeDefined();
    expect(invoice.payment_uri).toBe(`https://qr.alipay.test/${outTradeNo(order, invoice)}`);
    expect(invoice.payment_address).toBe(invoice.payment_uri);
    expect(invoice.pay_currency).toBe('ALIPAY');
    const precreate = alipay.calls.filter((entry) => entry.method === 'alipay.trade.precreate').at(-1)!;
    expect(precreate.signatureValid).toBe(true);
    expect(precreate.timestampSkewSeconds).toBeLessThan(120);
    expect(precreate.params.notify_url).toBe(notifyUrl('alipay'));
    expect(precreate.biz.total_amount).toBe(invoice.pay_amount.toFixed(2));
    expect(precreate.biz.subject).toBe('月度会员 x 1');
    // Alipay closes the trade no later than the invoice expires (3 h, whole minutes).
    const minutes = Number(/^(\d+)m$/.exec(precreate.biz.timeout_express!)![1]);
    expect(minutes).toBeLessThanOrEqual(180);
    expect(minutes).toBeGreaterThanOrEqual(178);
    expect(precreate.biz.settle_currency).toBeUndefined();
  });

  it('on a phone is a signed alipay.trade.wap.pay link that Alipay accepts, returning to the payment page', async () => {
    const { order, invoice, paymentUrl } = await newOrder('ALIPAY', { mobile: true, fast: true });
    expect(invoice.payment_uri.startsWith(`${alipay.url}?`)).toBe(true);
    // `fast`: payment_url is Alipay's own link.
    expect(paymentUrl).toBe(invoice.payment_uri);
    const opened = await alipay.open(invoice.payment_uri);
    expect(opened.status, opened.body).toBe(200);
    const wap = alipay.calls.at(-1)!;
    expect(wap.method).toBe('alipay.trade.wap.pay');
    expect(wap.signatureValid).toBe(true);
    expect(wap.params.return_url).toBe(`http://pay.test/pay/?id=${order.order_id}`);
    expect(wap.biz.product_code).toBe('QUICK_WAP_WAY');
    // A link changed after signing is refused by Alipay.
    const tampered = invoice.payment_uri.replace(encodeURIComponent(`"total_amount":"${invoice.pay_amount.toFixed(2)}"`), encodeURIComponent('"total_amount":"0.01"'));
    expect(tampered).not.toBe(invoice.payment_uri);
    expect((await alipay.open(tampered)).status).toBe(400);
  });

  it('fails closed when the answer is not signed by Alipay', async () => {
    alipay.failNext('alipay.trade.precreate', { badSignature: true });
    const created = await call('POST', '/v1/orders', { token, body: { price_amount: 5, pay_currency: 'ALIPAY' } });
    expect(created.status).toBe(400);
    expect(created.body.error_code).toBe('PAYMENT_NOT_AVAILABLE');
  });

  it('fails closed for a gateway without credentials (WECHAT here)', async () => {
    const created = await call('POST', '/v1/orders', { token, body: { price_amount: 5, pay_currency: 'WECHAT' } });
    expect(created.status).toBe(400);
    expect(created.body.error_code).toBe('PAYMENT_NOT_AVAILABLE');
  });
});

describe('notifications', () => {
  it('a verified one makes the order PAID with the trade as its payment; replays and later statuses change nothing', async () => {
    const { order, invoice } = await newOrder();
    const paidAt = new Date(Date.now() - 5000);
    const trade = alipay.pay(outTradeNo(order, invoice), paidAt);
    expect(await alipay.notify(trade.out_trade_no)).toEqual({ status: 200, body: 'success' });
    const after = await stored(order.order_id);
    expect(after.order.status).toBe('PAID');
    expect(after.order.receive_currency).toBe('USD');
    expect(after.invoice!.payments).toEqual([{ txid: trade.trade_no, amount: expect.any(String), confirmations: 1, seen_at: new Date(Math.floor(paidAt.getTime() / 1000) * 1000).toISOString() }]);
    expect(Number(after.invoice!.payments![0]!.amount)).toBe(invoice.pay_amount);
    for (const status of ['TRADE_SUCCESS', 'TRADE_FINISHED'] as const) {
      expect(await alipay.notify(trade.out_trade_no, { trade_status: status })).toEqual({ status: 200, body: 'success' });
    }
    expect((await stored(order.order_id)).order.version).toBe(after.order.version);
  });

  it('forged, tampered, unsigned, SHA-1-labelled, foreign and misdirected ones are refused with nothing changed', async () => {
    const { order, invoice } = await newOrder();
    const trade = alipay.pay(outTradeNo(order, invoice));
    const before = await stored(order.order_id);
    const refused = [
      await alipay.notify(trade.out_trade_no, { signer: 'forged' }),
      await alipay.notify(trade.out_trade_no, { signer: 'none' }),
      await alipay.notify(trade.out_trade_no, { tamper: { total_amount: '0.01' } }),
      await alipay.notify(trade.out_trade_no, { tamper: { sign_type: 'RSA' } }),
      await alipay.notify(trade.out_trade_no, { fields: { app_id: '2021000000009999' } }),
      // Alipay's genuine notification, posted to the Alipay Global endpoint (another key).
      await alipay.notify(trade.out_trade_no, { to: notifyUrl('aliglobal') }),
    ];
    for (const answer of refused) expect(answer).toEqual({ status: 400, body: 'fail' });
    const garbage = await fetch(notifyUrl('alipay'), { method: 'POST', body: '{"trade_status":"TRADE_SUCCESS"}' });
    expect([garbage.status, await garbage.text()]).toEqual([400, 'fail']);
    expect((await stored(order.order_id)).order).toEqual(before.order);
    expect(await alipay.notify(trade.out_trade_no)).toEqual({ status: 200, body: 'success' });
    expect((await stored(order.order_id)).order.status).toBe('PAID');
  });

  it('out of order: TRADE_FINISHED before TRADE_SUCCESS is one payment; WAIT_BUYER_PAY and TRADE_CLOSED move nothing', async () => {
    const { order, invoice } = await newOrder();
    const otn = outTradeNo(order, invoice);
    expect(await alipay.notify(otn, { trade_status: 'WAIT_BUYER_PAY' })).toEqual({ status: 200, body: 'success' });
    expect((await stored(order.order_id)).order.status).toBe('NEW');
    alipay.pay(otn);
    expect(await alipay.notify(otn, { trade_status: 'TRADE_FINISHED' })).toEqual({ status: 200, body: 'success' });
    const paid = await stored(order.order_id);
    expect(paid.order.status).toBe('PAID');
    expect(await alipay.notify(otn, { trade_status: 'TRADE_SUCCESS' })).toEqual({ status: 200, body: 'success' });
    expect(await alipay.notify(otn, { trade_status: 'TRADE_CLOSED' })).toEqual({ status: 200, body: 'success' });
    const after = await stored(order.order_id);
    expect(after.order.version).toBe(paid.order.version);
    expect(after.invoice!.payments).toHaveLength(1);
  });

  it('a replaced invoice the buyer still paid: recorded on it, the order UNRESOLVED (PAID_TO_REPLACED_INVOICE)', async () => {
    const { order, invoice } = await newOrder();
    const switched = await call('POST', `/v1/orders/${order.order_id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    expect(switched.body.invoice.pay_currency).toBe('BTC');
    alipay.pay(outTradeNo(order, invoice));
    expect(await alipay.notify(outTradeNo(order, invoice))).toEqual({ status: 200, body: 'success' });
    const after = await stored(order.order_id);
    expect(after.order.status).toBe('UNRESOLVED');
    expect(after.order.unresolved_reason).toBe('PAID_TO_REPLACED_INVOICE');
    expect(after.order.pay_currency).toBe('BTC');
    const paidInvoice = await (await import('#shared/store/invoices')).findInvoice(order.order_id, invoice.invoice_id);
    expect(Number(paidInvoice!.payments![0]!.amount)).toBe(invoice.pay_amount);
    // A repeat of the notification changes nothing.
    expect(await alipay.notify(outTradeNo(order, invoice))).toEqual({ status: 200, body: 'success' });
    expect((await stored(order.order_id)).order.version).toBe(after.order.version);
  });

  it('a payment Alipay took after the invoice expired is UNRESOLVED (PAID_LATE)', async () => {
    const { order, invoice } = await newOrder();
    const due = new Date(invoice.expired_at);
    expect(await m.expiry.expireDueOrders(new Date(due.getTime() + 60_000), {}, m.gateways.settleBeforeExpiry)).toBeGreaterThanOrEqual(1);
    expect((await stored(order.order_id)).order.status).toBe('EXPIRED');
    alipay.pay(outTradeNo(order, invoice), new Date(due.getTime() + 120_000));
    expect(await alipay.notify(outTradeNo(order, invoice))).toEqual({ status: 200, body: 'success' });
    const after = await stored(order.order_id);
    expect(after.order.status).toBe('UNRESOLVED');
    expect(after.order.unresolved_reason).toBe('PAID_LATE');
  });
});

describe('the expiry sweep asks Alipay first', () => {
  it('records a payment whose notification never came instead of expiring the order; an unpaid one expires', async () => {
    const paid = await newOrder();
    const unpaid = await newOrder();
    alipay.pay(outTradeNo(paid.order, paid.invoice), new Date(Date.now() - 1000));
    const due = new Date(paid.invoice.expired_at);
    await m.expiry.expireDueOrders(new Date(due.getTime() + 60_000), {}, m.gateways.settleBeforeExpiry);
    expect((await stored(paid.order.order_id)).order.status).toBe('PAID');
    expect((await stored(unpaid.order.order_id)).order.status).toBe('EXPIRED');
    const queries = alipay.calls.filter((entry) => entry.method === 'alipay.trade.query' && entry.signatureValid);
    expect(queries.map((entry) => entry.biz.out_trade_no)).toEqual(expect.arrayContaining([outTradeNo(paid.order, paid.invoice), outTradeNo(unpaid.order, unpaid.invoice)]));
    // The notification arrives at last: one payment, nothing more.
    const version = (await stored(paid.order.order_id)).order.version;
    expect(await alipay.notify(outTradeNo(paid.order, paid.invoice))).toEqual({ status: 200, body: 'success' });
    expect((await stored(paid.order.order_id)).order.version).toBe(version);
  });

  it('keeps an order NEW while Alipay cannot be asked, for up to an hour past due, then expires it', async () => {
    const { order, invoice } = await newOrder();
    const due = new Date(invoice.expired_at).getTime();
    alipay.failNext('alipay.trade.query', { badSignature: true, times: 100 });
    try {
      await m.expiry.expireDueOrders(new Date(due + 60_000), {}, m.gateways.settleBeforeExpiry);
      expect((await stored(order.order_id)).order.status).toBe('NEW');
      await m.expiry.expireDueOrders(new Date(due + 3_700_000), {}, m.gateways.settleBeforeExpiry);
      expect((await stored(order.order_id)).order.status).toBe('EXPIRED');
    } finally {
      alipay.failNext('alipay.trade.query', { badSignature: true, times: 0 });
    }
  });
});

describe('refunds', () => {
  async function paidOrder() {
    const { order, invoice } = await newOrder();
    alipay.pay(outTradeNo(order, invoice));
    expect(await alipay.notify(outTradeNo(order, invoice))).toEqual({ status: 200, body: 'success' });
    return { order, invoice };
  }

  it('alipay.trade.refund turns the refund into REFUNDED when Alipay confirms', async () => {
    const { order, invoice } = await paidOrder();
    const refunded = await call('POST', `/v1/orders/${order.order_id}/refund`, { token, body: {} });
    expect(refunded.status, refunded.text).toBe(200);
    expect(refunded.body.order.status).toBe('REFUNDED');
    const trade = alipay.trades.get(outTradeNo(order, invoice))!;
    expect(trade.refunds).toEqual([{ out_request_no: `R${hex(invoice.invoice_id)}`, refund_amount: invoice.pay_amount.toFixed(2) }]);
    const done = await stored(order.order_id);
    expect(done.invoice!.refund_txid).toBe(`R${hex(invoice.invoice_id)}`);
    // Alipay's refund notification afterwards changes nothing.
    expect(await alipay.notify(trade.out_trade_no, { fields: { out_biz_no: `R${hex(invoice.invoice_id)}`, refund_fee: trade.total_amount } })).toEqual({
      status: 200,
      body: 'success',
    });
    expect((await stored(order.order_id)).order).toEqual(done.order);
  });

  it('a refund Alipay refuses stays REFUND_PENDING; asking again sends the same refund and completes it', async () => {
    const { order, invoice } = await paidOrder();
    alipay.failNext('alipay.trade.refund', { subCode: 'ACQ.SYSTEM_ERROR' });
    const first = await call('POST', `/v1/orders/${order.order_id}/refund`, { token, body: {} });
    expect(first.body.order.status).toBe('REFUND_PENDING');
    expect(alipay.trades.get(outTradeNo(order, invoice))!.refunds).toEqual([]);
    const second = await call('POST', `/v1/orders/${order.order_id}/refund`, { token, body: {} });
    expect(second.body.order.status).toBe('REFUNDED');
    expect(alipay.trades.get(outTradeNo(order, invoice))!.refunds).toHaveLength(1);
    const third = await call('POST', `/v1/orders/${order.order_id}/refund`, { token, body: {} });
    expect(third.status).toBe(400);
    expect(third.body.error_code).toBe('ORDER_REFUND_FAILED');
  });
});

describe('ALIGLOBAL', () => {
  it('uses the global gateway, its application and settlement currency, and its own notification endpoint', async () => {
    const { order, invoice } = await newOrder('ALIGLOBAL');
    const precreate = global.calls.filter((entry) => entry.method === 'alipay.trade.precreate').at(-1)!;
    expect(precreate.signatureValid).toBe(true);
    expect(precreate.params.app_id).toBe(global.appId);
    expect(precreate.biz.settle_currency).toBe('USD');
    expect(precreate.params.notify_url).toBe(notifyUrl('aliglobal'));
    const otn = outTradeNo(order, invoice);
    expect(alipay.trades.has(otn)).toBe(false);
    global.pay(otn);
    // Its notification at Alipay's endpoint is refused (Alipay's key does not verify it).
    expect(await global.notify(otn, { to: notifyUrl('alipay') })).toEqual({ status: 400, body: 'fail' });
    expect(await global.notify(otn)).toEqual({ status: 200, body: 'success' });
    expect((await stored(order.order_id)).order.status).toBe('PAID');
  });
});
