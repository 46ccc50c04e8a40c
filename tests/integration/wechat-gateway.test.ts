import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LiveGatewayHarness, rsaKeys, startLiveGatewayHarness } from '../support/live-gateway';
import { startFakeWechat, type FakeWechat } from '../support/wechat-server';

/**
 * WECHAT for live merchants through the API and its notification endpoint, against a local
 * server speaking WeChat Pay API v3 (wechatpay-axios-plugin's crypto, a platform certificate
 * made by openssl, keys made here): Native and H5 checkout, signed answers, notifications
 * (genuine, forged, tampered, stale, wrong key, other merchant, replayed), the expiry sweep's
 * query, and refunds confirmed at once or later by notification. Own table.
 */
const TABLE = `wechat-${process.pid}`;

let h: LiveGatewayHarness;
let m: LiveGatewayHarness['m'];
let api: LiveGatewayHarness['api'];
let call: LiveGatewayHarness['call'];
let wechat: FakeWechat;
let token: string;

beforeAll(async () => {
  const merchantKeys = rsaKeys();
  const merchantSerial = randomBytes(20).toString('hex').toUpperCase();
  wechat = await startFakeWechat({ mchid: '1900000109', appid: 'wxd678efh567hg6787', merchantSerial, merchantPublicKey: merchantKeys.publicKey });
  h = await startLiveGatewayHarness(TABLE);
  ({ m, api, call } = h);
  h.setEnv({
    WECHAT_CREDENTIALS: JSON.stringify({
      mchid: wechat.mchid,
      appid: wechat.appid,
      merchant_serial_no: merchantSerial,
      private_key: merchantKeys.privateKey,
      api_v3_key: wechat.apiV3Key,
      platform_certificates: [wechat.platformCertificate],
      base_url: wechat.url,
    }),
  });
  token = (await m.merchants.createMerchant({ name: 'Live WeChat Shop', sandbox: false, gateways: ['WECHAT'] })).api_token;
});

afterAll(async () => {
  await h?.close();
  await wechat?.close();
});

type Json = Record<string, any>;
async function newOrder(extra: Json = {}): Promise<{ order: Json; invoice: Json }> {
  const created = await call('POST', '/v1/orders', { token, body: { price_amount: 9.99, price_currency: 'USD', title: 'Monthly x 1', pay_currency: 'WECHAT', ...extra } });
  expect(created.body.status, created.text).toBe(201);
  const read = await call('GET', `/v1/orders/${created.body.order.order_id}`, { token });
  return { order: read.body.order, invoice: read.body.invoice };
}

const hex = (id: string) => id.replace(/-/g, '');
const stored = async (orderId: string) => (await m.orders.findOrderWithInvoice(orderId))!;
const NO_CONTENT = { status: 204, body: '' };
const refusedJson = (answer: { status: number; body: string }) => {
  expect(answer.status).toBe(400);
  expect(JSON.parse(answer.body)).toEqual({ code: 'FAIL', message: expect.any(String) });
};

describe('checkout', () => {
  it('on a PC is Native pay: code_url as the QR, a signed request with the amount in fen, expiry, attach and notify URL', async () => {
    const { order, invoice } = await newOrder();
    const trade = wechat.trades.get(hex(invoice.invoice_id))!;
    expect(trade.kind).toBe('native');
    expect(invoice.payment_uri).toMatch(/^weixin:\/\/wxpay\/bizpayurl\?pr=/);
    const request = wechat.calls.filter((entry) => entry.path === '/v3/pay/transactions/native').at(-1)!;
    expect(request.signatureValid).toBe(true);
    expect(request.skewSeconds).toBeLessThan(120);
    expect(trade.total).toBe(Math.round(invoice.pay_amount * 100));
    expect(trade.attach).toBe(order.order_id);
    expect(trade.notify_url).toBe(`${api.url}/v1/gateways/wechat/notify`);
    expect(trade.time_expire).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+08:00$/);
    expect(new Date(trade.time_expire).getTime()).toBeLessThanOrEqual(invoice.expired_at_t);
    expect(invoice.expired_at_t - new Date(trade.time_expire).getTime()).toBeLessThan(1000);
  });

  it('on a phone is H5 pay: h5_url as the link', async () => {
    const { invoice } = await newOrder({ mobile: true });
    expect(invoice.payment_uri).toMatch(/^https:\/\/wx\.tenpay\.test\/cgi-bin\/mmpayweb-bin\/checkmweb\?prepay_id=/);
    const trade = wechat.trades.get(hex(invoice.invoice_id))!;
    expect(trade.kind).toBe('h5');
    expect(trade.payer_client_ip).toMatch(/^[0-9a-f.:]+$/);
  });

  it('fails closed when the answer is not signed by WeChat Pay', async () => {
    wechat.badSignatureNext('/v3/pay/transactions/native', 1);
    const created = await call('POST', '/v1/orders', { token, body: { price_amount: 5, pay_currency: 'WECHAT' } });
    expect(created.status).toBe(400);
    expect(created.body.error_code).toBe('PAYMENT_NOT_AVAILABLE');
  });
});

describe('notifications', () => {
  it('a verified, decrypted TRANSACTION.SUCCESS makes the order PAID (204); a replay changes nothing', async () => {
    const { order, invoice } = await newOrder();
    const paidAt = new Date(Date.now() - 3000);
    const trade = wechat.pay(hex(invoice.invoice_id), paidAt);
    expect(await wechat.notifyPaid(trade.out_trade_no)).toEqual(NO_CONTENT);
    const after = await stored(order.order_id);
    expect(after.order.status).toBe('PAID');
    expect(after.invoice!.payments).toEqual([
      { txid: trade.transaction_id, amount: expect.any(String), confirmations: 1, seen_at: new Date(Math.floor(paidAt.getTime() / 1000) * 1000).toISOString() },
    ]);
    expect(Number(after.invoice!.payments![0]!.amount)).toBe(invoice.pay_amount);
    expect(await wechat.notifyPaid(trade.out_trade_no)).toEqual(NO_CONTENT);
    expect((await stored(order.order_id)).order).toEqual(after.order);
  });

  it('forged, tampered, stale, unknown-serial, wrongly encrypted and foreign ones are refused with JSON FAIL and nothing changed', async () => {
    const { order, invoice } = await newOrder();
    const trade = wechat.pay(hex(invoice.invoice_id));
    const before = await stored(order.order_id);
    refusedJson(await wechat.notifyPaid(trade.out_trade_no, { signer: 'forged' }));
    refusedJson(await wechat.notifyPaid(trade.out_trade_no, { tamper: (body) => body.replace('"TRANSACTION.SUCCESS"', '"TRANSACTION.SUCCESS" ') }));
    refusedJson(await wechat.notifyPaid(trade.out_trade_no, { timestamp: Math.floor(Date.now() / 1000) - 600 }));
    refusedJson(await wechat.notifyPaid(trade.out_trade_no, { serial: 'ABCDEF0123456789' }));
    refusedJson(await wechat.notifyPaid(trade.out_trade_no, { wrongKey: true }));
    refusedJson(await wechat.notifyPaid(trade.out_trade_no, { resource: { mchid: '1900000999' } }));
    const unsigned = await fetch(`${api.url}/v1/gateways/wechat/notify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"event_type":"TRANSACTION.SUCCESS"}' });
    refusedJson({ status: unsigned.status, body: await unsigned.text() });
    expect((await stored(order.order_id)).order).toEqual(before.order);
    expect(await wechat.notifyPaid(trade.out_trade_no)).toEqual(NO_CONTENT);
    expect((await stored(order.order_id)).order.status).toBe('PAID');
  });
});

describe('the expiry sweep asks WeChat Pay first', () => {
  it('records a paid trade whose notification never came; an unpaid one expires', async () => {
    const paid = await newOrder();
    const unpaid = await newOrder();
    wechat.pay(hex(paid.invoice.invoice_id), new Date(Date.now() - 1000));
    const due = new Date(paid.invoice.expired_at).getTime();
    await m.expiry.expireDueOrders(new Date(due + 60_000), {}, m.gateways.settleBeforeExpiry);
    expect((await stored(paid.order.order_id)).order.status).toBe('PAID');
    expect((await stored(unpaid.order.order_id)).order.status).toBe('EXPIRED');
    const queries = wechat.calls.filter((entry) => entry.method === 'GET' && entry.signatureValid).map((entry) => entry.path);
    expect(queries).toEqual(expect.arrayContaining([`/v3/pay/transactions/out-trade-no/${hex(paid.invoice.invoice_id)}`]));
  });
});

describe('refunds at /v3/refund/domestic/refunds', () => {
  async function paidOrder() {
    const { order, invoice } = await newOrder();
    wechat.pay(hex(invoice.invoice_id));
    expect(await wechat.notifyPaid(hex(invoice.invoice_id))).toEqual(NO_CONTENT);
    return { order, invoice };
  }

  it('a refund WeChat Pay confirms at once makes the order REFUNDED', async () => {
    const { order, invoice } = await paidOrder();
    const refunded = await call('POST', `/v1/orders/${order.order_id}/refund`, { token, body: {} });
    expect(refunded.body.order.status).toBe('REFUNDED');
    const refund = wechat.trades.get(hex(invoice.invoice_id))!.refunds[0]!;
    expect(refund).toMatchObject({ out_refund_no: `${hex(order.order_id)}${hex(invoice.invoice_id)}`, refund: Math.round(invoice.pay_amount * 100), total: Math.round(invoice.pay_amount * 100) });
    expect((await stored(order.order_id)).invoice!.refund_txid).toBe(refund.out_refund_no);
  });

  it('a refund still PROCESSING stays REFUND_PENDING until its REFUND.SUCCESS notification; the replay changes nothing', async () => {
    const { order, invoice } = await paidOrder();
    wechat.processRefundsLater(1);
    const pending = await call('POST', `/v1/orders/${order.order_id}/refund`, { token, body: {} });
    expect(pending.body.order.status).toBe('REFUND_PENDING');
    const refundNo = `${hex(order.order_id)}${hex(invoice.invoice_id)}`;
    refusedJson(await wechat.notifyRefund(refundNo, { signer: 'forged' }));
    expect((await stored(order.order_id)).order.status).toBe('REFUND_PENDING');
    expect(await wechat.notifyRefund(refundNo)).toEqual(NO_CONTENT);
    const done = await stored(order.order_id);
    expect(done.order.status).toBe('REFUNDED');
    expect(done.invoice!.refund_txid).toBe(refundNo);
    expect(await wechat.notifyRefund(refundNo)).toEqual(NO_CONTENT);
    expect((await stored(order.order_id)).order).toEqual(done.order);
  });
});
