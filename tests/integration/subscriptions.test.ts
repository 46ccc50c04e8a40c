import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '#shared/services/merchants';
import { client, expectError, newMerchant, startApi } from '../support/api';

/**
 * Recurring billing against the real handlers and DynamoDB Local: plans (create, read, list,
 * change, archive; bad fields refused, another merchant's answered as missing), subscriptions
 * made by API, each period an ordinary order the sandbox pays, the test clock bringing the next
 * invoice, past_due and the cancellation after the grace period, month ends, and concurrent
 * steps and sweeps that make exactly one order a period and queue each due subscription once.
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
  [shop, other, live] = await Promise.all([newMerchant(true, 'Hosting Co'), newMerchant(true, 'Other Shop'), newMerchant(false, 'Live Hosting')]);
});

afterAll(async () => {
  await api?.close();
});

const MONTHLY = { name: 'Hosting, small', description: 'One VPS', price_amount: '12.5', price_currency: 'USD', interval_unit: 'month', grace_days: 5, invoice_days_before: 3 };

async function createPlan(body: Json, merchant = shop): Promise<Json> {
  const response = await call('POST', '/v1/plans', { token: merchant.api_token, body });
  expect(response.status, response.text).toBe(201);
  return response.body.plan;
}

async function subscribe(planId: string, merchant = shop, extra: Json = {}): Promise<Json> {
  const response = await call('POST', '/v1/subscriptions', { token: merchant.api_token, body: { plan_id: planId, customer_email: 'member@example.com', customer_id: 'cus_42', ...extra } });
  expect(response.status, response.text).toBe(201);
  return response.body.subscription;
}

const advance = (id: string, days: number, merchant = shop) => call('POST', `/v1/sandbox/subscriptions/${id}/advance`, { token: merchant.api_token, body: { days } });
const getOrder = async (id: string, merchant = shop) => (await call('GET', `/v1/orders/${id}`, { token: merchant.api_token })).body.order as Json;

async function payInSandbox(orderId: string, merchant = shop): Promise<void> {
  const checkout = await call('POST', `/v1/orders/${orderId}/checkout`, { token: merchant.api_token, body: { pay_currency: 'USDT_TRC20' } });
  expect(checkout.status, checkout.text).toBe(200);
  const paid = await call('POST', `/v1/sandbox/orders/${orderId}/pay`, { token: merchant.api_token, body: {} });
  expect(paid.status, paid.text).toBe(200);
  expect(paid.body.order.status).toBe('PAID');
}

describe('plans', () => {
  it("creates a plan with its defaults, reads it, lists it newest first by cursor, and answers another merchant's as missing", async () => {
    const plan = await createPlan({ name: 'Basic', price_amount: 9, interval_unit: 'week', interval_count: 2 });
    expect(plan).toMatchObject({
      name: 'Basic',
      description: '',
      price_amount: '9',
      price_currency: 'USD',
      interval_unit: 'week',
      interval_count: 2,
      trial_days: 0,
      grace_days: 7,
      invoice_days_before: 3,
      archived: false,
    });
    const second = await createPlan(MONTHLY);
    expect((await call('GET', `/v1/plans/${plan.plan_id}`, { token: shop.api_token })).body.plan).toEqual(plan);
    const first = await call('GET', '/v1/plans?limit=1', { token: shop.api_token });
    expect(first.body.plans.map((p: Json) => p.plan_id)).toEqual([second.plan_id]);
    const next = await call('GET', `/v1/plans?limit=1&cursor=${first.body.next_cursor}`, { token: shop.api_token });
    expect(next.body.plans.map((p: Json) => p.plan_id)).toEqual([plan.plan_id]);
    expectError(await call('GET', `/v1/plans/${plan.plan_id}`, { token: other.api_token }), 404, 'PLAN_NOT_FOUND');
    expectError(await call('GET', '/v1/plans/not-an-id', { token: shop.api_token }), 404, 'PLAN_NOT_FOUND');
  });

  it('refuses a bad price, interval or lead time with a 400 naming it, and an unknown field', async () => {
    const bad = (body: Json) => call('POST', '/v1/plans', { token: shop.api_token, body: { ...MONTHLY, ...body } });
    // The contract's invalid-price body, as Create Order answers it.
    expect((await bad({ price_amount: '-1' })).body).toEqual({ status: 400, error: 'Price is not valid' });
    expectError(await bad({ interval_unit: 'fortnight' }), 400, 'PARAMETERS_INVALID', 'interval_unit');
    expectError(await bad({ interval_unit: 'month', interval_count: 13 }), 400, 'PARAMETERS_INVALID', 'interval_count');
    expectError(await bad({ interval_unit: 'day', interval_count: 2, invoice_days_before: 3 }), 400, 'PARAMETERS_INVALID', 'invoice_days_before');
    expectError(await bad({ color: 'red' }), 400, 'PARAMETERS_INVALID', 'color');
  });

  it('archives a plan: no new subscriber, while an existing subscription goes on', async () => {
    const plan = await createPlan(MONTHLY);
    const kept = await subscribe(plan.plan_id);
    const archived = await call('POST', `/v1/plans/${plan.plan_id}`, { token: shop.api_token, body: { archived: true } });
    expect(archived.body.plan.archived).toBe(true);
    expectError(await call('POST', '/v1/subscriptions', { token: shop.api_token, body: { plan_id: plan.plan_id } }), 409, 'PLAN_ARCHIVED');
    const still = await call('GET', `/v1/subscriptions/${kept.subscription_id}`, { token: shop.api_token });
    expect(still.body.subscription.status).toBe('incomplete');
    expectError(await call('POST', '/v1/subscriptions', { token: other.api_token, body: { plan_id: plan.plan_id } }), 404, 'PLAN_NOT_FOUND');
  });

  it('a request key given back after a failed try, sent again for another customer, is refused; for the same one it goes on', async () => {
    const { createSubscription } = await import('#shared/services/subscriptions');
    const { findMerchant } = await import('#shared/store/merchants');
    const { profileOf } = await import('#shared/domain/merchant');
    const merchant = profileOf((await findMerchant(shop.user_id))!);
    const plan = await createPlan(MONTHLY);
    const requestKey = `key-${plan.plan_id}`;
    const body = { plan_id: plan.plan_id, customer_email: 'first@example.com', customer_id: 'cus_1' };
    const first = await createSubscription(merchant, body, new Date(), { requestKey });
    expect((await createSubscription(merchant, body, new Date(), { requestKey })).subscription.subscription_id).toBe(first.subscription.subscription_id);
    await expect(createSubscription(merchant, { ...body, customer_email: 'second@example.com' }, new Date(), { requestKey })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    await expect(createSubscription(merchant, { ...body, customer_id: 'cus_2' }, new Date(), { requestKey })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('keeps every change of changes sent at once: each writes only the fields it sends, on the version it read', async () => {
    const plan = await createPlan(MONTHLY);
    const changes = [{ name: 'Hosting, medium' }, { price_amount: '20' }, { description: 'Two VPS' }, { grace_days: 7 }, { invoice_days_before: 2 }, { success_url: 'https://shop.example/thanks' }];
    const answers = await Promise.all(changes.map((body) => call('POST', `/v1/plans/${plan.plan_id}`, { token: shop.api_token, body })));
    expect(answers.map((answer) => answer.status)).toEqual(changes.map(() => 200));
    const stored = (await call('GET', `/v1/plans/${plan.plan_id}`, { token: shop.api_token })).body.plan;
    expect(stored).toMatchObject(Object.assign({}, ...changes));
    // Each answer is a version of its own, later than the one it changed.
    expect(new Set(answers.map((answer) => answer.body.plan.updated_at)).size).toBe(changes.length);
    expectError(await call('POST', `/v1/plans/${plan.plan_id}`, { token: other.api_token, body: { name: 'Taken' } }), 404, 'PLAN_NOT_FOUND');
  });
});

describe('a subscription from first payment to cancellation, on the test clock', () => {
  it('bills each period with an ordinary order, goes past_due unpaid, and is canceled with its order after the grace period', async () => {
    const plan = await createPlan(MONTHLY);
    const started = await subscribe(plan.plan_id);
    expect(started).toMatchObject({ status: 'incomplete', period: 1, periods_paid: 0, customer_email: 'member@example.com', customer_id: 'cus_42', cancel_at_period_end: false });
    // The first period's order is made at once: an ordinary order naming the subscription and the period.
    const first = await getOrder(started.period_order_id);
    expect(first).toMatchObject({ merchant_order_id: `sub_${started.subscription_id}_1`, price_amount: 12.5, price_currency: 'USD', title: 'Hosting, small', status: 'NEW' });
    expect(first).not.toHaveProperty('subscription_id');
    await payInSandbox(started.period_order_id);
    // The stream would queue its renewal within seconds; the test clock's zero move takes the step here.
    const active = (await advance(started.subscription_id, 0.001)).body.subscription;
    expect(active).toMatchObject({ status: 'active', period: 2, periods_paid: 1, period_order_id: null });

    // A new price applies from the next period whose order is not made yet.
    await call('POST', `/v1/plans/${plan.plan_id}`, { token: shop.api_token, body: { price_amount: '15' } });
    const dueAt = Date.parse(active.period_due_at);
    const beforeInvoice = (await advance(started.subscription_id, (dueAt - Date.parse(active.clock)) / 86_400_000 - 3.5)).body.subscription;
    expect(beforeInvoice.period_order_id).toBeNull();
    const invoiced = (await advance(started.subscription_id, 1)).body.subscription;
    expect(invoiced).toMatchObject({ status: 'active', period: 2 });
    const second = await getOrder(invoiced.period_order_id);
    expect(second).toMatchObject({ merchant_order_id: `sub_${started.subscription_id}_2`, price_amount: 15, status: 'NEW' });
    // Left unpaid: past due at the due date, canceled (with its order) when the grace period ends.
    // Reminded a day before the due date, then past due at it and reminded again.
    expect((await advance(started.subscription_id, 1.6)).body.subscription.status).toBe('active');
    const late = (await advance(started.subscription_id, 1.4)).body.subscription;
    expect(late.status).toBe('past_due');
    // Each order made is a period item (the subscriber's history), reminded a day before the due date and on it.
    const { listPeriods } = await import('#shared/store/subscriptions');
    const periods = await listPeriods(started.subscription_id, 10);
    expect(periods.map((p) => [p.period, p.attempt, p.order_id, p.price_amount])).toEqual([
      [1, 1, invoiced.period_order_id, '15'],
      [0, 1, started.period_order_id, '12.5'],
    ]);
    expect(Object.keys(periods[0]!.reminded ?? {}).sort()).toEqual(['before_due', 'on_due']);
    const ended = (await advance(started.subscription_id, 5)).body.subscription;
    expect(ended).toMatchObject({ status: 'canceled', cancel_reason: 'grace_ended', periods_paid: 1 });
    expect((await getOrder(invoiced.period_order_id)).status).toBe('CANCELED');
    expectError(await advance(started.subscription_id, 1), 409, 'SUBSCRIPTION_CANCELED');
  });

  it('takes a late payment within the grace period as paid: active again, the next period billed', async () => {
    const plan = await createPlan({ ...MONTHLY, trial_days: 14 });
    const trial = await subscribe(plan.plan_id);
    expect(trial).toMatchObject({ status: 'trialing', period_order_id: null });
    const invoiced = (await advance(trial.subscription_id, 11.5)).body.subscription;
    expect(invoiced.status).toBe('trialing');
    expect(invoiced.period_order_id).not.toBeNull();
    expect((await advance(trial.subscription_id, 1)).body.subscription.status).toBe('trialing');
    expect((await advance(trial.subscription_id, 2)).body.subscription.status).toBe('past_due');
    await payInSandbox(invoiced.period_order_id);
    const paid = (await advance(trial.subscription_id, 0.001)).body.subscription;
    expect(paid).toMatchObject({ status: 'active', period: 2, periods_paid: 1 });
  });

  it("cancels at the period's end: no further order, canceled at the due date", async () => {
    const plan = await createPlan(MONTHLY);
    const started = await subscribe(plan.plan_id);
    await payInSandbox(started.period_order_id);
    await advance(started.subscription_id, 0.001);
    const ending = await call('POST', `/v1/subscriptions/${started.subscription_id}/cancel`, { token: shop.api_token, body: { at_period_end: true } });
    expect(ending.body.subscription).toMatchObject({ status: 'active', cancel_at_period_end: true });
    const nearEnd = (await advance(started.subscription_id, 27)).body.subscription;
    expect(nearEnd).toMatchObject({ status: 'active', period_order_id: null });
    const ended = (await advance(started.subscription_id, 5)).body.subscription;
    expect(ended).toMatchObject({ status: 'canceled', cancel_reason: 'merchant', period_order_id: null });
  });

  it("makes no new order for a period whose order lapsed after a cancellation at the period's end", async () => {
    const plan = await createPlan(MONTHLY);
    const started = await subscribe(plan.plan_id);
    await payInSandbox(started.period_order_id);
    const active = (await advance(started.subscription_id, 0.001)).body.subscription;
    // Into the second period's invoice lead (3 days before its due date): its order is made, then the merchant cancels at the period's end.
    const dueIn = (Date.parse(active.period_due_at) - Date.parse(active.clock)) / 86_400_000;
    const invoiced = (await advance(started.subscription_id, dueIn - 2)).body.subscription;
    expect(invoiced.period_order_id).not.toBeNull();
    await call('POST', `/v1/subscriptions/${started.subscription_id}/cancel`, { token: shop.api_token, body: { at_period_end: true } });
    const lapsed = await call('POST', `/v1/orders/${invoiced.period_order_id}/cancel`, { token: shop.api_token, body: {} });
    expect(lapsed.body.order.status).toBe('CANCELED');
    const waiting = (await advance(started.subscription_id, 1)).body.subscription;
    expect(waiting).toMatchObject({ status: 'active', period: 2, period_order_id: invoiced.period_order_id });
    const ended = (await advance(started.subscription_id, 2)).body.subscription;
    expect(ended).toMatchObject({ status: 'canceled', cancel_reason: 'merchant', periods_paid: 1, period_order_id: invoiced.period_order_id });
  });

  it('cancels a trial at its end: no order is made for the first period, and it ends when the trial does', async () => {
    const plan = await createPlan({ ...MONTHLY, trial_days: 14 });
    const trial = await subscribe(plan.plan_id);
    const ending = await call('POST', `/v1/subscriptions/${trial.subscription_id}/cancel`, { token: shop.api_token, body: { at_period_end: true } });
    expect(ending.body.subscription).toMatchObject({ status: 'trialing', cancel_at_period_end: true });
    // Past the day the first period's order would have been made (3 days before the trial ends): none is.
    const nearEnd = (await advance(trial.subscription_id, 12)).body.subscription;
    expect(nearEnd).toMatchObject({ status: 'trialing', period_order_id: null });
    const ended = (await advance(trial.subscription_id, 2.5)).body.subscription;
    expect(ended).toMatchObject({ status: 'canceled', cancel_reason: 'merchant', periods_paid: 0, period_order_id: null });
  });

  it("cancels now with the period's unpaid order, and lists subscriptions by status", async () => {
    const plan = await createPlan(MONTHLY, other);
    const started = await subscribe(plan.plan_id, other);
    const canceled = await call('POST', `/v1/subscriptions/${started.subscription_id}/cancel`, { token: other.api_token, body: {} });
    expect(canceled.body.subscription).toMatchObject({ status: 'canceled', cancel_reason: 'merchant' });
    expect((await getOrder(started.period_order_id, other)).status).toBe('CANCELED');
    const listed = await call('GET', '/v1/subscriptions?status=canceled', { token: other.api_token });
    expect(listed.body.subscriptions.map((s: Json) => s.subscription_id)).toContain(started.subscription_id);
    const incomplete = await call('GET', '/v1/subscriptions?status=incomplete', { token: other.api_token });
    expect(incomplete.body.subscriptions.map((s: Json) => s.subscription_id)).not.toContain(started.subscription_id);
    expectError(await call('GET', `/v1/subscriptions/${started.subscription_id}`, { token: shop.api_token }), 404, 'SUBSCRIPTION_NOT_FOUND');
  });

  it("never moves a live merchant's clock", async () => {
    const plan = await createPlan(MONTHLY, live);
    const started = await subscribe(plan.plan_id, live);
    expectError(await advance(started.subscription_id, 30, live), 403, 'SANDBOX_ONLY');
  });
});

describe('month ends and races', () => {
  it('bills a subscription started on 31 January on 28 February, then 31 March', async () => {
    const { createSubscription, stepSubscription } = await import('#shared/services/subscriptions');
    const { findSubscription } = await import('#shared/store/subscriptions');
    const { findMerchant } = await import('#shared/store/merchants');
    const { profileOf } = await import('#shared/domain/merchant');
    const plan = await createPlan({ ...MONTHLY, invoice_days_before: 0 });
    const merchant = profileOf((await findMerchant(shop.user_id))!);
    const { subscription } = await createSubscription(merchant, { plan_id: plan.plan_id }, new Date('2027-01-31T12:00:00Z'));
    await payInSandbox(subscription.period_order_id!);
    await stepSubscription(subscription.subscription_id, new Date('2027-02-01T00:00:00Z'));
    expect((await findSubscription(subscription.subscription_id))?.period_order_id).toBeUndefined();
    await stepSubscription(subscription.subscription_id, new Date('2027-02-28T12:00:00Z'));
    const february = (await findSubscription(subscription.subscription_id))!;
    expect(february.period_order_id).toBeDefined();
    await payInSandbox(february.period_order_id!);
    await stepSubscription(subscription.subscription_id, new Date('2027-03-01T00:00:00Z'));
    await stepSubscription(subscription.subscription_id, new Date('2027-03-30T12:00:00Z'));
    expect((await findSubscription(subscription.subscription_id))?.period_order_id).toBeUndefined();
    const view = (await call('GET', `/v1/subscriptions/${subscription.subscription_id}`, { token: shop.api_token })).body.subscription;
    expect(view).toMatchObject({ period: 3, periods_paid: 2, period_due_at: '2027-03-31T12:00:00.000Z' });
  });

  it('makes exactly one order a period when steps race, and queues each due subscription once when sweeps race', async () => {
    const { stepSubscription } = await import('#shared/services/subscriptions');
    const { queueDueSubscriptions } = await import('#shared/services/renewal-queue');
    const { findSubscription } = await import('#shared/store/subscriptions');
    const plan = await createPlan({ ...MONTHLY, trial_days: 30 });
    const subscriptions = await Promise.all(Array.from({ length: 8 }, () => subscribe(plan.plan_id)));
    // 28 days on, every one owes its first order: four steps at once for each.
    const at = new Date(Date.now() + 28 * 86_400_000);
    await Promise.all(subscriptions.flatMap((s) => Array.from({ length: 4 }, () => stepSubscription(s.subscription_id, at))));
    const orders: Json[] = [];
    for (let offset = 0; ; offset += 50) {
      const page = (await call('GET', `/v1/orders?limit=50&offset=${offset}`, { token: shop.api_token })).body.orders as Json[];
      orders.push(...page);
      if (page.length < 50) break;
    }
    for (const s of subscriptions) {
      const stored = (await findSubscription(s.subscription_id))!;
      const made = orders.filter((order) => order.merchant_order_id.startsWith(`sub_${s.subscription_id}_`));
      expect(made.map((order) => order.order_id)).toEqual([stored.period_order_id]);
      expect(stored.period_attempt).toBe(1);
    }
    // Their next step (past due) is at the end of the trial: two sweeps then claim and queue each once between them.
    const dueTime = new Date(Date.now() + 31 * 86_400_000);
    const [a, b] = await Promise.all([queueDueSubscriptions(dueTime), queueDueSubscriptions(dueTime)]);
    for (const s of subscriptions)
      expect(
        [...a, ...b].filter((id) => id === s.subscription_id),
        s.subscription_id,
      ).toHaveLength(1);
    // Claimed: a third sweep at that time finds none of them (their jobs have the lease).
    const again = await queueDueSubscriptions(dueTime);
    for (const s of subscriptions) expect(again).not.toContain(s.subscription_id);
    // Their jobs, as the renew-subscriptions function receives them, take the step they owe (past due at the trial's end).
    const { renewalQueueHandler } = await import('#shared/services/subscription-renewals');
    const { SQSClient, ReceiveMessageCommand } = await import('@aws-sdk/client-sqs');
    const sqs = new SQSClient({ endpoint: process.env.SQS_ENDPOINT });
    const mine = new Set(subscriptions.map((s) => s.subscription_id));
    const received: { messageId: string; body: string; receiptHandle: string }[] = [];
    for (let round = 0; round < 20 && received.length < mine.size; round += 1) {
      const page = await sqs.send(new ReceiveMessageCommand({ QueueUrl: process.env.SUBSCRIPTION_QUEUE_URL, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      for (const message of page.Messages ?? [])
        if (mine.has(JSON.parse(message.Body!).subscription_id)) received.push({ messageId: message.MessageId!, body: message.Body!, receiptHandle: message.ReceiptHandle! });
    }
    expect(received).toHaveLength(mine.size);
    const { vi } = await import('vitest');
    vi.useFakeTimers({ now: dueTime, toFake: ['Date'] });
    try {
      const outcome = await renewalQueueHandler({
        Records: received.map((message) => ({ ...message, attributes: {}, messageAttributes: {}, md5OfBody: '', eventSource: 'aws:sqs', eventSourceARN: 'arn', awsRegion: 'us-east-1' })),
      } as never);
      expect(outcome.batchItemFailures).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
    for (const s of subscriptions) expect((await findSubscription(s.subscription_id))?.status).toBe('past_due');
  });
});
