import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { client, newMerchant, startApi } from '../support/api';
import { profileOf, type MerchantProfile } from '#shared/domain/merchant';
import { findMerchant } from '#shared/store/merchants';
import { findOrderWithInvoice } from '#shared/store/orders';
import { findRefund, listRefunds, listWaitingRefunds, waitingRefundsCensus } from '#shared/store/refunds';
import { listAuditEntries } from '#shared/store/audit';
import { listDeliveries } from '#shared/store/deliveries';
import { add, formatDecimal, parseDecimal } from '#shared/domain/money';
import { askRefund } from '#shared/services/refunds/ask';
import { refundUrl, setRefundAddress } from '#shared/services/refunds/buyer-link';
import { recordRefundPayment } from '#shared/services/refunds/payments';

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let token: string;
let merchant: MerchantProfile;
let other: MerchantProfile;
const actor = { who: 'test', from: '127.0.0.1' };

beforeAll(async () => {
  api = await startApi();
  call = client(api.url);
  const shop = await newMerchant(true, 'Refund Shop', { callbackStatuses: 'all' });
  token = shop.api_token;
  merchant = profileOf((await findMerchant(shop.user_id))!);
  other = profileOf((await findMerchant((await newMerchant()).user_id))!);
});

afterAll(async () => {
  await api.close();
});

/** A sandbox order checked out in `payCurrency` and paid (in full, or `amount`). */
async function paidOrder(payCurrency = 'BTC', amount?: string): Promise<{ id: string; payAmount: string }> {
  const created = await call('POST', '/v1/orders', { token, body: { price_amount: 65, price_currency: 'USD', callback_url: 'https://shop.example/callback' } });
  const id = created.body.order.order_id as string;
  const checkout = await call('POST', `/v1/orders/${id}/checkout`, { token, body: { pay_currency: payCurrency } });
  expect(checkout.status, checkout.text).toBe(200);
  const paid = await call('POST', `/v1/sandbox/orders/${id}/pay`, { token, body: amount === undefined ? {} : { amount } });
  expect(paid.status, paid.text).toBe(200);
  return { id, payAmount: String(checkout.body.invoice.pay_amount) };
}

const secretOf = (url: string | null | undefined): string => new URL(url!).hash.slice('#refund='.length);

describe('the refund model (the contract with the watchers)', () => {
  it('asks, addresses and sends a refund: PAID -> REFUND_PENDING -> REFUNDED with the refund in the callback', async () => {
    const { id, payAmount } = await paidOrder('BTC');
    const asked = await askRefund(merchant, id, {}, actor, new Date());
    expect(asked.found.order.status).toBe('REFUND_PENDING');
    expect(asked.refund).toMatchObject({ status: 'AWAITING_ADDRESS', currency: 'BTC', amount: payAmount });
    expect(asked.refund!.address).toBeUndefined();
    const link = await refundUrl(asked.refund!);
    const secret = secretOf(link);

    const address = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
    const addressed = await setRefundAddress({ secret, address, now: new Date() });
    expect(addressed).toMatchObject({ status: 'AWAITING_PAYMENT', address });
    expect(addressed.link_hash).toBeUndefined();
    await expect(setRefundAddress({ secret, address, now: new Date() })).rejects.toMatchObject({ code: 'REFUND_LINK_INVALID' });

    const report = { userId: merchant.user_id, orderId: id, refundId: addressed.refund_id, key: `tx-${randomUUID()}:0`, txid: 'tx', amount: payAmount, now: new Date() };
    expect(await recordRefundPayment({ ...report, final: false })).toBe('IGNORED');
    expect(await recordRefundPayment({ ...report, amount: '0.00000001', key: 'short:1', final: true })).toBe('SHORT');
    expect((await findRefund(id, addressed.refund_id))!.short_payments).toHaveLength(1);
    expect(await recordRefundPayment({ ...report, final: true })).toBe('SENT');
    expect(await recordRefundPayment({ ...report, final: true })).toBe('SENT');
    expect(await recordRefundPayment({ ...report, userId: other.user_id, final: true })).toBe('IGNORED');

    const found = (await findOrderWithInvoice(id))!;
    expect(found.order.status).toBe('REFUNDED');
    const deliveries = await listDeliveries(id);
    const refunded = deliveries.find((delivery) => delivery.status === 'REFUNDED')!;
    expect(JSON.parse(refunded.payload).refunds).toEqual([expect.objectContaining({ refund_id: addressed.refund_id, status: 'SENT', amount: payAmount, address, txid: 'tx', refund_url: null })]);
    const pending = deliveries.find((delivery) => delivery.status === 'REFUND_PENDING')!;
    expect(JSON.parse(pending.payload).refunds[0].refund_url).toBe(link);
  });

  it('partial refunds add up and never exceed what was paid, however many race', async () => {
    const { id } = await paidOrder('BTC');
    const found = (await findOrderWithInvoice(id))!;
    const paid = found.invoice!.pay_amount; // 0.001 BTC at the sandbox's 65000 USD
    expect(paid).toBe('0.001');
    const attempts = await Promise.allSettled(Array.from({ length: 6 }, () => askRefund(merchant, id, { basis: 'custom', amount: '0.0003' }, actor, new Date())));
    const made = attempts.filter((attempt) => attempt.status === 'fulfilled');
    // At most three fit; a request that lost every retry to the others answers 409 (retry).
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(made.length).toBeLessThanOrEqual(3);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') expect((attempt.reason as { code: string }).code).toMatch(/ORDER_REFUND_FAILED|ORDER_CONFLICT/);
    }
    for (let more = made.length; more < 3; more += 1) await askRefund(merchant, id, { basis: 'custom', amount: '0.0003' }, actor, new Date());
    const refunds = await listRefunds(id);
    expect(refunds).toHaveLength(3);
    expect((await findOrderWithInvoice(id))!.order.refunds).toMatchObject({ count: 3, open: 3, amount: '0.0009', currency: 'BTC' });
    await expect(askRefund(merchant, id, { basis: 'custom', amount: '0.0002' }, actor, new Date())).rejects.toMatchObject({ code: 'ORDER_REFUND_FAILED' });
    const last = await askRefund(merchant, id, {}, actor, new Date());
    expect(last.refund!.amount).toBe('0.0001');
  });

  it("another merchant's order is missing; a gateway order is refunded at its gateway without a refund item", async () => {
    const { id } = await paidOrder('BTC');
    await expect(askRefund(other, id, {}, actor, new Date())).rejects.toMatchObject({ code: 'ORDER_NOT_FOUND' });
    const gateway = await paidOrder('ALIPAY');
    const asked = await askRefund(merchant, gateway.id, {}, actor, new Date());
    expect(asked.found.order.status).toBe('REFUND_PENDING');
    expect(asked.refund).toBeUndefined();
    await expect(askRefund(merchant, gateway.id, { basis: 'custom', amount: '1' }, actor, new Date())).rejects.toMatchObject({ code: 'PARAMETERS_INVALID' });
  });
});

describe('Refund Order over HTTP', () => {
  it('refunds an UNRESOLVED order: the overpaid part, then the rest of the whole payment (UNRESOLVED -> REFUND_PENDING)', async () => {
    const created = await call('POST', '/v1/orders', { token, body: { price_amount: 65, price_currency: 'USD', callback_url: 'https://shop.example/callback' } });
    const id = created.body.order.order_id as string;
    const checkout = await call('POST', `/v1/orders/${id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    const payAmount = String(checkout.body.invoice.pay_amount);
    // Twice the amount: the overpaid part is exactly the invoice's amount.
    const twice = formatDecimal(add(parseDecimal(payAmount), parseDecimal(payAmount)));
    const overpay = await call('POST', `/v1/sandbox/orders/${id}/pay`, { token, rawBody: `{"amount":"${twice}"}` });
    expect(overpay.status, overpay.text).toBe(200);
    expect((await call('GET', `/v1/orders/${id}`, { token })).body.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'OVERPAID' });

    const overpaid = await call('POST', `/v1/orders/${id}/refund`, { token, body: { basis: 'overpaid' } });
    expect(overpaid.status, overpaid.text).toBe(200);
    expect(overpaid.body.order.status).toBe('REFUND_PENDING');
    expect(overpaid.body.refund).toMatchObject({ basis: 'overpaid', amount: payAmount, currency: 'BTC' });
    // No body: what is left of the whole payment.
    const rest = await call('POST', `/v1/orders/${id}/refund`, { token });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.refund).toMatchObject({ basis: 'crypto', amount: payAmount });
  });

  it("keeps MugglePay's bodies and answer ([] or none = all that is left), adds the refund; Get Order and the list carry it", async () => {
    const { id, payAmount } = await paidOrder('BTC');
    const asked = await call('POST', `/v1/orders/${id}/refund`, { token, rawBody: '[]' });
    expect(asked.status, asked.text).toBe(200);
    expect(Object.keys(asked.body).sort()).toEqual(['invoice', 'order', 'refund', 'status']);
    expect(asked.body).toMatchObject({ status: 200, order: { order_id: id, status: 'REFUND_PENDING' }, invoice: { pay_currency: 'BTC' } });
    expect(asked.body.refund).toMatchObject({ status: 'AWAITING_ADDRESS', amount: payAmount, currency: 'BTC', network: 'Bitcoin', basis: 'crypto' });
    const got = await call('GET', `/v1/orders/${id}`, { token });
    expect(got.body.refunds).toEqual([asked.body.refund]);
    expect((await call('GET', `/v1/orders/${id}/refunds`, { token })).body.refunds).toEqual([asked.body.refund]);
    // Nothing left: asked again (MugglePay's retry without a key) it is ORDER_REFUND_FAILED, as before.
    const again = await call('POST', `/v1/orders/${id}/refund`, { token, body: { order_id: id } });
    expect(again.body).toMatchObject({ status: 400, error_code: 'ORDER_REFUND_FAILED' });
  });

  it('one refund per Idempotency-Key; a fiat refund locks its rate; bad choices are 400 naming the field', async () => {
    const { id } = await paidOrder('ETH');
    const headers = { 'idempotency-key': `refund-${randomUUID()}` };
    const first = await call('POST', `/v1/orders/${id}/refund`, { token, headers, body: { basis: 'fiat', amount: '10.00', reason: 'late delivery' } });
    const second = await call('POST', `/v1/orders/${id}/refund`, { token, headers, body: { basis: 'fiat', amount: '10.00', reason: 'late delivery' } });
    expect(first.status, first.text).toBe(200);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await call('GET', `/v1/orders/${id}/refunds`, { token })).body.refunds).toHaveLength(1);
    expect(first.body.refund.rate).toMatchObject({ fiat_amount: '10', fiat_currency: 'USD', source: expect.any(String) });
    const custom = await call('POST', `/v1/orders/${id}/refund`, { token, body: { basis: 'custom' } });
    expect(custom.body).toMatchObject({ status: 400, error_code: 'PARAMETERS_INVALID' });
    expect(custom.body.error).toContain('amount');
    const basis = await call('POST', `/v1/orders/${id}/refund`, { token, body: { basis: 'all' } });
    expect(basis.body).toMatchObject({ status: 400, error_code: 'PARAMETERS_INVALID' });
  });

  it("refuses the merchant's own invoice address as a sandbox refund's, as a live one's (any of this service's invoice addresses)", async () => {
    for (const payCurrency of ['BTC', 'ETH']) {
      const { id } = await paidOrder(payCurrency);
      const own = (await findOrderWithInvoice(id))!.invoice!.payment_address!;
      // Another of the merchant's orders, not yet paid: its address receives payments too.
      const pending = await call('POST', '/v1/orders', { token, body: { price_amount: 5, price_currency: 'USD', callback_url: 'https://shop.example/callback' } });
      const open = await call('POST', `/v1/orders/${pending.body.order.order_id}/checkout`, { token, body: { pay_currency: payCurrency } });
      const asked = await call('POST', `/v1/orders/${id}/refund`, { token, body: {} });
      const secret = secretOf(asked.body.refund.refund_url);
      for (const address of [own, open.body.invoice.payment_address as string]) {
        const refused = await call('POST', '/v1/pay/refund/address', { body: { secret, address } });
        expect(refused.body, `${payCurrency} ${address}`).toMatchObject({ status: 400, error_code: 'REFUND_ADDRESS_INVALID' });
        expect(refused.text).toContain('receives payments to this service');
      }
      // The link still works for the buyer's own address.
      const buyers = payCurrency === 'BTC' ? 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' : '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
      const set = await call('POST', '/v1/pay/refund/address', { body: { secret, address: buyers } });
      expect(set.body.refund, set.text).toMatchObject({ status: 'AWAITING_PAYMENT', address: buyers });
    }
  });

  it("another merchant's refund is missing everywhere; the link is one-time through the public endpoints; a new link replaces it", async () => {
    const { id } = await paidOrder('BTC');
    const asked = await call('POST', `/v1/orders/${id}/refund`, { token, body: {} });
    const refund = asked.body.refund;
    const stranger = (await newMerchant()).api_token;
    for (const [path, body] of [
      [`/v1/orders/${id}/refund-txid`, { refund_id: refund.refund_id, txid: 'abc' }],
      [`/v1/orders/${id}/refund-link`, { refund_id: refund.refund_id }],
    ] as const) {
      const theirs = await call('POST', path, { token: stranger, body });
      const none = await call('POST', path.replace(id, randomUUID()), { token: stranger, body });
      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(none.body);
    }
    expect((await call('GET', `/v1/orders/${id}/refunds`, { token: stranger })).body).toMatchObject({ status: 404, error_code: 'ORDER_NOT_FOUND' });

    const secret = secretOf(refund.refund_url);
    const opened = await call('POST', '/v1/pay/refund', { body: { secret } });
    expect(opened.body).toMatchObject({ status: 200, refund: { amount: refund.amount, currency: 'BTC', asks: 'address' } });
    expect(opened.text).not.toContain(id);
    const wrong = await call('POST', '/v1/pay/refund/address', { body: { secret, address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' } });
    expect(wrong.body).toMatchObject({ status: 400, error_code: 'REFUND_ADDRESS_INVALID' });
    const renewed = await call('POST', `/v1/orders/${id}/refund-link`, { token, body: { refund_id: refund.refund_id } });
    expect(renewed.body.refund.refund_url).not.toBe(refund.refund_url);
    expect((await call('POST', '/v1/pay/refund', { body: { secret } })).body).toMatchObject({ status: 404, error_code: 'REFUND_LINK_INVALID' });
    const fresh = secretOf(renewed.body.refund.refund_url);
    const set = await call('POST', '/v1/pay/refund/address', { body: { secret: fresh, address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' } });
    expect(set.body.refund).toMatchObject({ status: 'AWAITING_PAYMENT', address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' });
    expect((await call('POST', '/v1/pay/refund/address', { body: { secret: fresh, address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq' } })).body.error_code).toBe('REFUND_LINK_INVALID');
    // The merchant's waiting list has it, oldest first; the census the minute sweep publishes
    // counts it. (Not the sweep itself here: on the run's shared table it would number and expire
    // every other file's orders, for up to 35 s. The sweep's count is checked on a table of its
    // own in tests/infra/bundling.test.ts.)
    const waiting = await listWaitingRefunds(merchant.user_id, 100);
    expect(waiting.refunds.map((one) => one.refund_id)).toContain(refund.refund_id);
    expect(waiting.refunds.map((one) => one.created_at)).toEqual([...waiting.refunds.map((one) => one.created_at)].sort());
    expect((await waitingRefundsCensus()).count).toBeGreaterThanOrEqual(1);
    // The sandbox completes it: REFUNDED, and no longer waiting.
    const done = await call('POST', `/v1/sandbox/orders/${id}/complete-refund`, { token, body: { txid: 'sandbox-tx' } });
    expect(done.body.order.status).toBe('REFUNDED');
    expect((await listWaitingRefunds(merchant.user_id, 100)).refunds.map((one) => one.refund_id)).not.toContain(refund.refund_id);
    const audit = (await listAuditEntries(merchant.user_id, 50)).filter((entry) => entry.details.refund_id === refund.refund_id).map((entry) => entry.action);
    expect(audit).toEqual(expect.arrayContaining(['refund.asked', 'refund.address_set', 'refund.link_renewed']));
  });
});
