import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { client, newMerchant, startApi } from '../support/api';
import { profileOf, type MerchantProfile } from '#shared/domain/merchant';
import { findMerchant } from '#shared/store/merchants';
import { findOrderWithInvoice } from '#shared/store/orders';
import { findRefund, listRefunds } from '#shared/store/refunds';
import { listDeliveries } from '#shared/store/deliveries';
import { askRefund, recordRefundPayment, setRefundAddress } from '#shared/services/refunds';

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
    expect(asked.refund).toMatchObject({ status: 'AWAITING_ADDRESS', currency: 'BTC', amount: payAmount, address: null });
    const secret = secretOf(asked.refund!.refund_url);

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
    expect(JSON.parse(refunded.payload).refunds).toEqual([
      expect.objectContaining({ refund_id: addressed.refund_id, status: 'SENT', amount: payAmount, address, txid: 'tx', refund_url: null }),
    ]);
    const pending = deliveries.find((delivery) => delivery.status === 'REFUND_PENDING')!;
    expect(JSON.parse(pending.payload).refunds[0].refund_url).toBe(asked.refund!.refund_url);
  });

  it('partial refunds add up and never exceed what was paid, however many race', async () => {
    const { id } = await paidOrder('BTC');
    const found = (await findOrderWithInvoice(id))!;
    const paid = found.invoice!.pay_amount; // 0.001 BTC at the sandbox's 65000 USD
    expect(paid).toBe('0.001');
    const attempts = await Promise.allSettled(
      Array.from({ length: 6 }, () => askRefund(merchant, id, { basis: 'custom', amount: '0.0003' }, actor, new Date())),
    );
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
