import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '#shared/services/merchants';
import { client, expectError, newMerchant, startApi } from '../support/api';

/**
 * A subscription's own callbacks against the real handlers and DynamoDB Local: a plan with an
 * events_url gets subscription.created, .renewed, .past_due and .canceled, each written with the
 * subscription's change (one per change, whatever the retries), while the period orders keep
 * their usual callbacks at callback_url; each event is delivered by the callback job, signed
 * (checked with the standardwebhooks library as the merchant's oracle).
 */

type Json = Record<string, any>;

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let shop: MerchantCredentials;
let site: Server;
let eventsUrl: string;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
let m: {
  deliveries: typeof import('#shared/store/deliveries');
  job: typeof import('#shared/callbacks/delivery-job');
};

beforeAll(async () => {
  // The merchant's site is on loopback here; set before the modules read it.
  process.env.CALLBACK_ALLOW_LOOPBACK = 'true';
  site = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  eventsUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/subscription-events`;
  api = await startApi();
  call = client(api.url);
  shop = await newMerchant(true, 'Hosting Co');
  m = { deliveries: await import('#shared/store/deliveries'), job: await import('#shared/callbacks/delivery-job') };
});

afterAll(async () => {
  await api?.close();
  await new Promise<void>((resolve) => site?.close(() => resolve()));
});

const MONTHLY = { name: 'Hosting, small', price_amount: '12.5', price_currency: 'USD', interval_unit: 'month', grace_days: 5, invoice_days_before: 3 };
const advance = async (id: string, days: number) => (await call('POST', `/v1/sandbox/subscriptions/${id}/advance`, { token: shop.api_token, body: { days } })).body.subscription as Json;

async function payInSandbox(orderId: string): Promise<void> {
  expect((await call('POST', `/v1/orders/${orderId}/checkout`, { token: shop.api_token, body: { pay_currency: 'USDT_TRC20' } })).status).toBe(200);
  expect((await call('POST', `/v1/sandbox/orders/${orderId}/pay`, { token: shop.api_token, body: {} })).body.order.status).toBe('PAID');
}

describe("a subscription's events", () => {
  it("are written with each change (created, renewed, past_due, canceled), apart from the period orders' callbacks, and delivered signed", async () => {
    const plan = (await call('POST', '/v1/plans', { token: shop.api_token, body: { ...MONTHLY, callback_url: 'https://shop.example/orders', events_url: eventsUrl } })).body.plan;
    expect(plan.events_url).toBe(eventsUrl);
    const started = (await call('POST', '/v1/subscriptions', { token: shop.api_token, body: { plan_id: plan.plan_id, customer_id: 'cus_7' } })).body.subscription;
    const firstOrder = started.period_order_id;
    await payInSandbox(firstOrder);
    const active = await advance(started.subscription_id, 0.001);
    expect(active.status).toBe('active');
    // Unpaid second period: past due at its due date, canceled when the grace period ends.
    await advance(started.subscription_id, (Date.parse(active.period_due_at) - Date.parse(active.clock)) / 86_400_000 + 0.5);
    const ended = await advance(started.subscription_id, 6);
    expect(ended).toMatchObject({ status: 'canceled', cancel_reason: 'grace_ended' });

    const events = await m.deliveries.deliveriesOf({ subscription_id: started.subscription_id });
    expect(events.map((event) => event.status)).toEqual(['subscription.created', 'subscription.renewed', 'subscription.past_due', 'subscription.canceled']);
    for (const event of events) {
      expect(event).toMatchObject({ subscription_id: started.subscription_id, callback_url: eventsUrl, state: 'PENDING' });
      expect(event.event_id).toBe(`evt_sub_${started.subscription_id.replaceAll('-', '')}_${event.version}`);
      const body = JSON.parse(event.payload);
      expect(body).toMatchObject({ type: event.status, event_id: event.event_id, subscription: { subscription_id: started.subscription_id, customer_id: 'cus_7' } });
    }
    const bodies = events.map((event) => JSON.parse(event.payload));
    expect(bodies[0].subscription).toMatchObject({ status: 'incomplete', periods_paid: 0 });
    expect(bodies[1]).toMatchObject({ period: 1, order_id: firstOrder, subscription: { status: 'active', period: 2, periods_paid: 1 } });
    expect(bodies[2].subscription).toMatchObject({ status: 'past_due', period: 2 });
    expect(bodies[3].subscription).toMatchObject({ status: 'canceled', cancel_reason: 'grace_ended' });
    // The period order's own callbacks are its usual ones, to callback_url, with no subscription field.
    const orderCallbacks = await m.deliveries.listDeliveries(firstOrder);
    expect(orderCallbacks.map((callback) => [callback.status, callback.callback_url])).toEqual([['PAID', 'https://shop.example/orders']]);
    expect(JSON.parse(orderCallbacks[0]!.payload)).not.toHaveProperty('subscription');

    // Delivered by the callback job, as deliver-callback runs it, and signed with the merchant's secret.
    const created = events[0]!;
    expect(await m.job.processDeliveryJob({ subscription_id: started.subscription_id, version: created.version, event_id: created.event_id, attempt: 0 }, 'receipt', new Date())).toBe('done');
    expect(received).toHaveLength(1);
    expect(received[0]!.body).toBe(created.payload);
    const verified = new Webhook(shop.callback_secret).verify(received[0]!.body, received[0]!.headers as Record<string, string>);
    expect(verified).toMatchObject({ type: 'subscription.created', event_id: created.event_id });
    expect((await m.deliveries.findDelivery({ subscription_id: started.subscription_id }, created.version))?.state).toBe('DELIVERED');
    // The same job again (a replayed message) is stale: nothing posted twice.
    expect(await m.job.processDeliveryJob({ subscription_id: started.subscription_id, version: created.version, event_id: created.event_id, attempt: 0 }, 'receipt', new Date())).toBe('done');
    expect(received).toHaveLength(1);
  });

  it('are none without an events_url, and an events_url aimed inside is refused as a callback_url is', async () => {
    const plan = (await call('POST', '/v1/plans', { token: shop.api_token, body: MONTHLY })).body.plan;
    expect(plan.events_url).toBe('');
    const started = (await call('POST', '/v1/subscriptions', { token: shop.api_token, body: { plan_id: plan.plan_id } })).body.subscription;
    await call('POST', `/v1/subscriptions/${started.subscription_id}/cancel`, { token: shop.api_token, body: {} });
    expect(await m.deliveries.deliveriesOf({ subscription_id: started.subscription_id })).toEqual([]);
    expectError(await call('POST', '/v1/plans', { token: shop.api_token, body: { ...MONTHLY, events_url: 'http://169.254.169.254/latest' } }), 400, 'PARAMETERS_INVALID', 'events_url');
    expectError(await call('POST', `/v1/plans/${plan.plan_id}`, { token: shop.api_token, body: { events_url: 'http://10.0.0.1/x' } }), 400, 'PARAMETERS_INVALID', 'events_url');
  });
});
