import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { client, newMerchant, startApi, type ApiResponse } from '../support/api';
import { createMerchant } from '#shared/services/merchants';
import { findOrderWithInvoice } from '#shared/store/orders';
import { validateAddress } from '#shared/payments/addresses/index';

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let token: string;
let otherToken: string;

beforeAll(async () => {
  api = await startApi();
  call = client(api.url);
  // Hears every status change: these tests follow the callbacks of CANCELED, EXPIRED and the rest.
  token = (await newMerchant(true, 'Test Shop', { callbackStatuses: 'all' })).api_token;
  otherToken = (await newMerchant()).api_token;
});

afterAll(async () => {
  await api.close();
});

function expectError(response: ApiResponse, status: number, code: string) {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toMatchObject({ status, error_code: code });
}

async function checkedOut(payCurrency = 'BTC', as = token, price = 65): Promise<{ id: string; invoice: any }> {
  const created = await call('POST', '/v1/orders', { token: as, body: { price_amount: price, price_currency: 'USD' } });
  const id = created.body.order.order_id;
  const checkout = await call('POST', `/v1/orders/${id}/checkout`, { token: as, body: { pay_currency: payCurrency } });
  expect(checkout.status, checkout.text).toBe(200);
  return { id, invoice: checkout.body.invoice };
}

const pay = (id: string, body: Record<string, unknown> = {}, as = token) => call('POST', `/v1/sandbox/orders/${id}/pay`, { token: as, body });
const action = (id: string, name: string, as = token, body: unknown = {}) => call('POST', `/v1/orders/${id}/${name}`, { token: as, body });
const stored = async (id: string) => (await findOrderWithInvoice(id))!;

describe('payments', () => {
  it('a full, confirmed sandbox payment makes the order PAID and fixes its receive_currency', async () => {
    const { id } = await checkedOut();
    const response = await pay(id);
    expect(response.status, response.text).toBe(200);
    expect(response.body.order).toMatchObject({ status: 'PAID', receive_currency: 'USD' });
    expect(response.body.invoice.status).toBe('PAID');
    const paid = await call('GET', '/v1/orders/?status=PAID&limit=50', { token });
    expect(paid.body.orders.map((o: any) => o.order_id)).toContain(id);
    const fresh = await call('GET', '/v1/orders/?status=NEW&limit=50', { token });
    expect(fresh.body.orders.map((o: any) => o.order_id)).not.toContain(id);
  });

  it('goes PENDING under the required confirmations, then PAID with the same txid confirmed', async () => {
    const { id } = await checkedOut('BTC');
    const txid = `tx-${randomUUID()}`;
    expect((await pay(id, { txid, confirmations: 1 })).body.order.status).toBe('PENDING');
    const versionPending = (await stored(id)).order.version;
    // The same report again changes nothing.
    expect((await pay(id, { txid, confirmations: 1 })).body.order.status).toBe('PENDING');
    expect((await stored(id)).order.version).toBe(versionPending);
    expect((await pay(id, { txid, confirmations: 2 })).body.order.status).toBe('PAID');
    expect((await stored(id)).order.version).toBe(versionPending + 1);
  });

  it('a payment reported twice at once is one transition', async () => {
    const { id } = await checkedOut('LTC');
    const before = (await stored(id)).order.version;
    const txid = `tx-${randomUUID()}`;
    const responses = await Promise.all([pay(id, { txid }), pay(id, { txid }), pay(id, { txid })]);
    for (const response of responses) expect(response.body.order?.status, response.text).toBe('PAID');
    const after = await stored(id);
    expect(after.order.version).toBe(before + 1);
    expect(after.invoice!.payments).toHaveLength(1);
  });

  it('underpaid and overpaid orders become UNRESOLVED with the reason; resolve closes them', async () => {
    const under = await checkedOut('BTC');
    const underpaid = await pay(under.id, { amount: 0.0005 });
    expect(underpaid.body.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    const over = await checkedOut('BTC');
    expect((await pay(over.id, { amount: 0.00100001 })).body.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'OVERPAID' });
    const resolved = await action(under.id, 'resolve');
    expect(resolved.status).toBe(200);
    expect(resolved.body.order.status).toBe('RESOLVED');
    expect(resolved.body.invoice.status).toBe('RESOLVED');
    expectError(await action(under.id, 'resolve'), 400, 'ORDER_RESOLVE_FAILED');
  });

  it("pays within the merchant's tolerance", async () => {
    const lenient = await createMerchant({ name: 'Lenient', sandbox: true, tolerancePercent: '1' });
    const { id } = await checkedOut('BTC', lenient.api_token);
    const response = await pay(id, { amount: 0.000995 }, lenient.api_token);
    expect(response.body.order.status).toBe('PAID');
  });

  it('sums several payments to one invoice', async () => {
    const { id } = await checkedOut('ETH', token, 30); // 0.01 ETH
    expect((await pay(id, { amount: 0.004, txid: `a-${randomUUID()}` })).body.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'UNDERPAID' });
    const split = await checkedOut('ETH', token, 30);
    const first = `b-${randomUUID()}`;
    expect((await pay(split.id, { amount: 0.004, confirmations: 0, txid: first })).body.order.status).toBe('PENDING');
    expect((await pay(split.id, { amount: 0.006, txid: `c-${randomUUID()}` })).body.order.status).toBe('PENDING');
    // The first payment confirms: the confirmed sum is the price.
    expect((await pay(split.id, { amount: 0.004, txid: first })).body.order.status).toBe('PAID');
  });

  it('does not let a stray unconfirmed payment hold back an order paid in full', async () => {
    const { id } = await checkedOut('ETH', token, 30); // 0.01 ETH
    expect((await pay(id, { amount: 0.00001, confirmations: 0, txid: `dust-${randomUUID()}` })).body.order.status).toBe('PENDING');
    expect((await pay(id, { amount: 0.01, txid: `full-${randomUUID()}` })).body.order.status).toBe('PAID');
  });

  it('refuses simulated payments for live merchants, orders without invoice, and odd amounts', async () => {
    const live = await newMerchant(false, 'Live');
    const order = (await call('POST', '/v1/orders', { token: live.api_token, body: { price_amount: 1 } })).body.order;
    expectError(await pay(order.order_id, {}, live.api_token), 403, 'SANDBOX_ONLY');
    const unchecked = (await call('POST', '/v1/orders', { token, body: { price_amount: 1 } })).body.order;
    expectError(await pay(unchecked.order_id), 400, 'INVOICE_NOT_EXIST');
    const { id } = await checkedOut('BTC');
    expectError(await pay(id, { amount: 0.000000001 }), 400, 'PARAMETERS_INVALID');
    expectError(await pay(id, { amount: -1 }), 400, 'PARAMETERS_INVALID');
    expectError(await pay(id, { confirmations: 1.5 }), 400, 'PARAMETERS_INVALID');
    expectError(await pay(id, { txid: 'bad id with spaces' }), 400, 'PARAMETERS_INVALID');
    expectError(await pay(randomUUID()), 404, 'ORDER_NOT_FOUND');
    expectError(await pay(id, {}, otherToken), 404, 'ORDER_NOT_FOUND');
  });

  it('a paid order can no longer be checked out', async () => {
    const { id } = await checkedOut();
    await pay(id);
    expectError(await call('POST', `/v1/orders/${id}/checkout`, { token, body: { pay_currency: 'ETH' } }), 400, 'ORDER_NOT_NEW');
  });
});

describe('cancel, refund', () => {
  it('cancels a NEW order once; a canceled order cannot be checked out or paid', async () => {
    const { id } = await checkedOut();
    const canceled = await action(id, 'cancel', token, { order_id: id });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body.order.status).toBe('CANCELED');
    expectError(await action(id, 'cancel'), 400, 'ORDER_CANCELED_FAIILED');
    expectError(await call('POST', `/v1/orders/${id}/checkout`, { token, body: { pay_currency: 'BTC' } }), 400, 'ORDER_NOT_NEW');
    const payment = await pay(id);
    expect(payment.body.order.status).toBe('CANCELED');
  });

  it('refunds a PAID order: REFUND_PENDING, then REFUNDED when the refund is sent', async () => {
    const { id } = await checkedOut();
    expectError(await action(id, 'refund'), 400, 'ORDER_REFUND_FAILED');
    await pay(id);
    const pending = await action(id, 'refund');
    expect(pending.body.order.status).toBe('REFUND_PENDING');
    expectError(await action(id, 'cancel'), 400, 'ORDER_CANCELED_FAIILED');
    const txid = `refund-${randomUUID()}`;
    const done = await call('POST', `/v1/sandbox/orders/${id}/complete-refund`, { token, body: { txid } });
    expect(done.body.order.status).toBe('REFUNDED');
    const again = await call('POST', `/v1/sandbox/orders/${id}/complete-refund`, { token, body: { txid } });
    expect(again.status).toBe(200);
    expect((await stored(id)).order.status).toBe('REFUNDED');
    expectError(await action(id, 'refund'), 400, 'ORDER_REFUND_FAILED');
  });

  it("answers another merchant's order and unknown ids as not found", async () => {
    const { id } = await checkedOut();
    for (const name of ['cancel', 'refund', 'resolve']) {
      expectError(await action(id, name, otherToken), 404, 'ORDER_NOT_FOUND');
      expectError(await action(randomUUID(), name), 404, 'ORDER_NOT_FOUND');
      expectError(await action('nope', name), 404, 'ORDER_NOT_FOUND');
    }
    expect((await stored(id)).order.status).toBe('NEW');
    expectError(await action(id, 'cancel', token, { order_id: randomUUID() }), 400, 'PARAMETERS_INVALID');
  });

  it('a cancel racing a payment: exactly one of them wins', async () => {
    const { id } = await checkedOut();
    const [canceled, paid] = await Promise.all([action(id, 'cancel'), pay(id)]);
    const final = (await stored(id)).order.status;
    expect(['CANCELED', 'PAID']).toContain(final);
    if (final === 'CANCELED') expect(canceled.status).toBe(200);
    else {
      expect(paid.body.order.status).toBe('PAID');
      expectError(canceled, 400, 'ORDER_CANCELED_FAIILED');
    }
  });
});

describe('addresses', () => {
  it('gives every checkout a fresh, valid address (100 checkouts over the API)', async () => {
    const merchant = await newMerchant();
    // 25 orders x 4 currencies: 100 invoices (a currency checked out again shows its invoice again).
    const orders = await Promise.all(Array.from({ length: 25 }, async () => (await call('POST', '/v1/orders', { token: merchant.api_token, body: { price_amount: 5 } })).body.order.order_id));
    const currencies = ['BTC', 'LTC', 'BCH', 'ETH'] as const;
    const addresses: string[] = [];
    for (let round = 0; round < currencies.length; round += 1) {
      const batch = await Promise.all(
        orders.map(async (id, i) => {
          const currency = currencies[(round + i) % currencies.length]!;
          const response = await call('POST', `/v1/orders/${id}/checkout`, { token: merchant.api_token, body: { pay_currency: currency } });
          expect(response.status, response.text).toBe(200);
          expect(validateAddress(currency, response.body.invoice.payment_address)).toBe(true);
          return `${currency}:${response.body.invoice.payment_address}`;
        }),
      );
      addresses.push(...batch);
    }
    expect(new Set(addresses).size).toBe(100);
    // Hundreds of store calls: on a loaded shared machine they can take longer than the default.
  }, 120_000);

  it('1,000 invoices get 1,000 distinct addresses from the atomic index counter', async () => {
    const { paymentMethods } = await import('#shared/payments/providers');
    const merchant = { user_id: 1, name: 'x', sandbox: true, receive_currency: 'USD', gateways: [], created_at: '' };
    const addresses = new Set<string>();
    for (let batch = 0; batch < 50; batch += 1) {
      const details = await Promise.all(
        Array.from({ length: 20 }, () =>
          paymentMethods().paymentDetails({
            merchant,
            orderId: randomUUID(),
            invoiceId: randomUUID(),
            currency: 'BCH',
            amount: { units: 1n, scale: 3 },
            description: 'x',
            expiresAt: new Date(Date.now() + 60_000),
            mobile: false,
            fast: false,
            now: new Date(),
          }),
        ),
      );
      for (const detail of details) {
        expect(validateAddress('BCH', detail.payment_address)).toBe(true);
        addresses.add(detail.payment_address);
      }
    }
    expect(addresses.size).toBe(1000);
  }, 120_000);
});

describe('gateways and settlement', () => {
  const create = (body: Record<string, unknown>, as = token) => call('POST', '/v1/orders', { token: as, body: { price_amount: 72, price_currency: 'CNY', ...body } });

  it('fast on ALIPAY makes payment_url the gateway link; mobile picks the app link over the QR page', async () => {
    const fastApp = await create({ pay_currency: 'ALIPAY', fast: true, mobile: true });
    expect(fastApp.status, fastApp.text).toBe(200);
    const url = new URL(fastApp.body.payment_url);
    expect(url.pathname).toBe('/pay/sandbox-gateway/alipay');
    expect(url.searchParams.get('mode')).toBe('app');
    expect(url.searchParams.get('amount')).toBe('72');
    const qr = await create({ pay_currency: 'ALIGLOBAL', fast: true });
    expect(new URL(qr.body.payment_url).searchParams.get('mode')).toBe('qr');
    const got = await call('GET', `/v1/orders/${qr.body.order.order_id}`, { token });
    expect(got.body.invoice.payment_uri).toBe(qr.body.payment_url);
    expect(got.body.invoice.expired_at_t - got.body.invoice.created_at_t).toBe(3 * 3600 * 1000);
  });

  it('fails closed for a live merchant whose enabled gateway has no adapter configured', async () => {
    const live = await createMerchant({ name: 'Live gateway', sandbox: false, gateways: ['ALIPAY'] });
    const response = await create({ pay_currency: 'ALIPAY' }, live.api_token);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error_code: 'PAYMENT_NOT_AVAILABLE' });
    expect(response.body.error).toContain('not configured');
  });

  it('ignores fast on WECHAT and on crypto: payment_url stays the hosted page', async () => {
    for (const pay_currency of ['WECHAT', 'BTC']) {
      const response = await create({ pay_currency, fast: true, mobile: true });
      expect(response.status, response.text).toBe(200);
      expect(response.body.payment_url).toBe(`http://pay.test/pay/?id=${response.body.order.order_id}`);
    }
  });

  it('prices gateways in CNY and settles in the merchant currency', async () => {
    const response = await create({ pay_currency: 'WECHAT' });
    expect(response.body.order).toMatchObject({ pay_amount: 72, pay_currency: 'WECHAT' });
    const got = await call('GET', `/v1/orders/${response.body.order.order_id}`, { token });
    // 72 CNY at 0.1389 USD/CNY = 10.0008 USD, settled down to the cent.
    expect(got.body.invoice).toMatchObject({ receive_amount: 10, receive_currency: 'USD' });
  });

  it('settles in a stable coin when the merchant chose one; the order shows it once paid', async () => {
    const stable = await createMerchant({ name: 'Stable', sandbox: true, receiveCurrency: 'USDT' });
    const order = (await create({ pay_currency: 'BTC' }, stable.api_token)).body.order;
    const before = await call('GET', `/v1/orders/${order.order_id}`, { token: stable.api_token });
    expect(before.body.order.receive_currency).toBe('');
    expect(before.body.invoice).toMatchObject({ receive_amount: 10.0008, receive_currency: 'USDT' });
    const paid = await pay(order.order_id, {}, stable.api_token);
    expect(paid.body.order).toMatchObject({ status: 'PAID', receive_currency: 'USDT' });
  });
});

describe('changeOrder with a new invoice', () => {
  it('writes the callback a status change owes even when the change also brings a new invoice (one transaction)', async () => {
    const created = await call('POST', '/v1/orders', {
      token,
      body: { price_amount: 12, callback_url: 'https://shop.example/cb' },
    });
    const orderId = created.body.order.order_id;
    const { changeOrder } = await import('#shared/services/order-changes');
    const { moveTo } = await import('#shared/domain/order');
    const { newTimeOrderedId } = await import('#shared/domain/ids');
    const { findDelivery } = await import('#shared/store/deliveries');
    const now = new Date();
    const result = await changeOrder(
      orderId,
      undefined,
      () => new Error('missing'),
      (found) => {
        const invoice = {
          invoice_id: newTimeOrderedId(now.getTime()),
          order_id: orderId,
          user_id: found.order.user_id,
          merchant_order_id: '',
          pay_amount: '0.001',
          pay_currency: 'BTC',
          receive_amount: '12',
          receive_currency: 'USD',
          status: 'NEW' as const,
          created_at: now.toISOString(),
          expired_at: now.toISOString(),
          payment_address: `bc1qtest${randomUUID().slice(0, 8)}`,
          payment_uri: 'bitcoin:x',
          rate: { numerator: '1', denominator: '1', source: 'test', as_of: now.toISOString() },
        };
        const change = moveTo({ ...found, invoice }, 'CANCELED', now, { invoice });
        return { ...change, order: { ...change.order, invoice_id: invoice.invoice_id } };
      },
    );
    expect(result.order.status).toBe('CANCELED');
    const delivery = await findDelivery(orderId, result.order.version);
    expect(delivery?.status).toBe('CANCELED');
    expect(await addressIndexEntry('BTC', result.invoice!.payment_address)).toEqual({ orderId, invoiceId: result.invoice!.invoice_id });
    const stored = await findOrderWithInvoice(orderId);
    expect(stored?.invoice?.invoice_id).toBe(result.invoice!.invoice_id);
  });
});

/** The address index's entry for an address (and memo, for EOS), read as a chain watcher's lookup would. */
async function addressIndexEntry(currency: string, address: string, memo?: string) {
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { db, tableName } = await import('#shared/store/client');
  const { addressKey } = await import('#shared/store/keys');
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: addressKey(currency, address, memo) }));
  return Item && { orderId: String(Item.order_id), invoiceId: String(Item.invoice_id) };
}

describe('the address index', () => {
  it('tells apart the invoices of a shared account by memo (EOS), and finds replaced invoices too', async () => {
    const first = await checkedOut('EOS');
    const second = await checkedOut('EOS');
    expect(first.invoice.payment_address).toBe(second.invoice.payment_address);
    expect(await addressIndexEntry('EOS', first.invoice.payment_address, first.invoice.memo)).toEqual({
      orderId: first.id,
      invoiceId: first.invoice.invoice_id,
    });
    expect(await addressIndexEntry('EOS', second.invoice.payment_address, second.invoice.memo)).toEqual({
      orderId: second.id,
      invoiceId: second.invoice.invoice_id,
    });
    // A later checkout in BTC replaces the EOS invoice; its address still leads to it.
    const again = await call('POST', `/v1/orders/${first.id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    expect(again.status, again.text).toBe(200);
    expect((await addressIndexEntry('EOS', first.invoice.payment_address, first.invoice.memo))?.invoiceId).toBe(first.invoice.invoice_id);
    expect((await addressIndexEntry('BTC', again.body.invoice.payment_address))?.invoiceId).toBe(again.body.invoice.invoice_id);
  });
});
