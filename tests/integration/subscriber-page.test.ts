import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapturedMail } from '#infra/local/mailbox';
import type { MerchantCredentials } from '#shared/services/merchants';
import { expectError } from '../support/api';
import { startPipeline } from '../support/pipeline';

/**
 * The subscriber's side of recurring billing on the real parts: the plan's public link routes
 * and the subscriber's page routes through the API, the table's stream read by order-events, the
 * email and renewal queues on the SQS emulator, the sender, and a real SMTP server on loopback.
 * Every page link a test uses is read from an email, as a subscriber would: the answers never
 * hold one. Bad input answers a clear 4xx, never a 5xx; a wrong or replaced secret a uniform
 * not-found; each email goes once, to the subscription's address, with the page link.
 */
const TABLE = `subscriber-page-${process.pid}`;
/** Each plan's first emails a stranger's request makes count in its hourly window: small here, to see it close. */
const PLAN_LINK_HOUR = 3;
let pipeline: Awaited<ReturnType<typeof startPipeline>>;
let call: ReturnType<typeof import('../support/api').client>;
let shop: MerchantCredentials;

type Json = Record<string, any>;
const mail = () => pipeline.mailbox!;
const to = (address: string) => (message: CapturedMail) => message.envelopeTo.includes(address);
const about = (address: string, subject: string) => (message: CapturedMail) => to(address)(message) && message.subject.startsWith(subject);
const address = () => `subscriber-${randomUUID().slice(0, 8)}@example.test`;
const SECRET = /#subscription=([A-Za-z0-9_-]{43})/;
const secretIn = (message: CapturedMail): string => SECRET.exec(message.text)?.[1] ?? '';
/** The messages `match` finds once `count` have arrived (the stream, the queue and a retried send may take their time). */
const arrived = (match: (message: CapturedMail) => boolean, count = 1) => mail().waitFor(match, { count, timeoutMs: 60_000 });

beforeAll(async () => {
  pipeline = await startPipeline(
    TABLE,
    // Many emails to one subscriber and one sandbox merchant in a few seconds: the test clock makes months pass at once.
    { EMAIL_BUYER_PER_ADDRESS_DAY: '50', EMAIL_SANDBOX_BUYER_PER_DAY: '500', EMAIL_BUYER_PER_LINK_HOUR: String(PLAN_LINK_HOUR) },
    { email: true },
  );
  call = pipeline.support.client(pipeline.api.url);
  // The sender names the portal in merchants' emails: it reads the portal's address for every event.
  process.env.PORTAL_ORIGIN = `http://localhost:${new URL(pipeline.api.url).port}`;
  shop = await pipeline.support.newMerchant(true, 'Hosting Co');
}, 60_000);

afterAll(async () => {
  await pipeline?.stop();
});

const MONTHLY = { name: 'Hosting, small', description: 'One VPS', price_amount: '12.5', price_currency: 'USD', interval_unit: 'month', grace_days: 5, invoice_days_before: 3 };

async function createPlan(body: Json = {}): Promise<Json> {
  const response = await call('POST', '/v1/plans', { token: shop.api_token, body: { ...MONTHLY, ...body } });
  expect(response.status, response.text).toBe(201);
  return response.body.plan;
}

const subscribe = (planId: string, body: Json, headers: Record<string, string> = {}) => call('POST', `/v1/pay/plans/${planId}/subscriptions`, { body, headers });
const page = (path: string, secret: string) => call('POST', `/v1/pay/subscriptions/${path}`, { body: { secret } });
const advance = (id: string, days: number) => call('POST', `/v1/sandbox/subscriptions/${id}/advance`, { token: shop.api_token, body: { days } });

/** The merchant's subscription of `email` (the public answers never name it). */
async function subscriptionOf(email: string): Promise<Json> {
  const listed = await call('GET', '/v1/subscriptions?limit=50', { token: shop.api_token });
  const found = (listed.body.subscriptions as Json[]).filter((subscription) => subscription.customer_email === email);
  expect(found).toHaveLength(1);
  return found[0]!;
}

async function payInSandbox(orderId: string): Promise<void> {
  const checkout = await call('POST', `/v1/orders/${orderId}/checkout`, { token: shop.api_token, body: { pay_currency: 'USDT_TRC20' } });
  expect(checkout.status, checkout.text).toBe(200);
  const paid = await call('POST', `/v1/sandbox/orders/${orderId}/pay`, { token: shop.api_token, body: {} });
  expect(paid.status, paid.text).toBe(200);
}

/** The subscriber's page once `check` holds of it (the stream moves the subscription within seconds of a payment). */
async function pageWhen(secret: string, check: (view: Json) => boolean): Promise<Json> {
  let view: Json = {};
  await expect
    .poll(
      async () => {
        view = (await page('open', secret)).body;
        return check(view);
      },
      { timeout: 60_000 },
    )
    .toBe(true);
  return view;
}

describe('the plan link page', () => {
  it('shows what a subscriber needs and makes nothing; a missing plan is not found, an archived one says so and takes nobody', async () => {
    const plan = await createPlan({ trial_days: 14 });
    const shown = await call('GET', `/v1/pay/plans/${plan.plan_id}`);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body).toEqual({
      status: 200,
      plan: {
        plan_id: plan.plan_id,
        name: 'Hosting, small',
        description: 'One VPS',
        price_amount: '12.5',
        price_currency: 'USD',
        interval_unit: 'month',
        interval_count: 1,
        trial_days: 14,
        archived: false,
        merchant_name: 'Hosting Co',
        sandbox: true,
      },
    });
    expectError(await call('GET', `/v1/pay/plans/${randomUUID()}`), 404, 'PLAN_NOT_FOUND');
    expectError(await call('GET', '/v1/pay/plans/not-a-plan'), 404, 'PLAN_NOT_FOUND');

    await call('POST', `/v1/plans/${plan.plan_id}`, { token: shop.api_token, body: { archived: true } });
    expect((await call('GET', `/v1/pay/plans/${plan.plan_id}`)).body.plan.archived).toBe(true);
    expectError(await subscribe(plan.plan_id, { email: address() }), 409, 'PLAN_ARCHIVED');
  });

  it('refuses bad input with a clear 4xx naming it, never a 5xx', async () => {
    const plan = await createPlan();
    expectError(await subscribe(plan.plan_id, {}), 400, 'PARAMETERS_MISSING', 'email');
    for (const email of ['a@x,b@example.test', 'Eve <eve@example.test>', 'no-at-sign', '=?utf-8?Q?a?=@example.test', 'a@[192.0.2.1]']) {
      expectError(await subscribe(plan.plan_id, { email }), 400, 'PARAMETERS_INVALID', 'email');
    }
    expectError(await subscribe(plan.plan_id, { email: address(), color: 'red' }), 400, 'PARAMETERS_INVALID', 'color');
    expectError(await subscribe(plan.plan_id, { email: 42 }), 400, 'PARAMETERS_INVALID', 'email');
    const raw = await call('POST', `/v1/pay/plans/${plan.plan_id}/subscriptions`, { rawBody: '{"email":' });
    expect(raw.status, raw.text).toBe(400);
    expectError(await subscribe(randomUUID(), { email: address() }), 404, 'PLAN_NOT_FOUND');
    expectError(await call('POST', `/v1/pay/plans/${plan.plan_id}/subscriber-link`, { body: { email: 'not an address' } }), 400, 'PARAMETERS_INVALID', 'email');
    for (const path of ['open', 'payment', 'cancellation', 'link']) {
      expectError(await call('POST', `/v1/pay/subscriptions/${path}`, { body: {} }), 400, 'PARAMETERS_MISSING', 'secret');
      expectError(await call('POST', `/v1/pay/subscriptions/${path}`, { body: { secret: 'short' } }), 400, 'PARAMETERS_INVALID', 'secret');
      expectError(await call('POST', `/v1/pay/subscriptions/${path}`, { body: { secret: 'x'.repeat(5000) } }), 400, 'PARAMETERS_INVALID', 'secret');
    }
    // Not one answer of any of these was kept as a subscription.
    expect(((await call('GET', '/v1/subscriptions?limit=50', { token: shop.api_token })).body.subscriptions as Json[]).filter((s) => s.plan_id === plan.plan_id)).toEqual([]);
  });

  it('a retry with the same Idempotency-Key answers the first answer and makes one subscription', async () => {
    const plan = await createPlan();
    const email = address();
    const key = `sub-${randomUUID()}`;
    const first = await subscribe(plan.plan_id, { email }, { 'idempotency-key': key });
    expect(first.status, first.text).toBe(201);
    const again = await subscribe(plan.plan_id, { email }, { 'idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    await subscriptionOf(email);
  });

  it('a key given back after a failed try, sent again with another address, is refused, not answered with the first subscription', async () => {
    // What the Idempotency-Key middleware hands the service once the key's record was released by a 5xx: the same request key.
    const { subscribeFromPlan } = await import('#shared/services/subscriber');
    const plan = await createPlan();
    const requestKey = randomUUID();
    const email = address();
    const first = await subscribeFromPlan(plan.plan_id, { email }, new Date(), requestKey);
    // The same address goes on with the subscription the first try made (its answer again).
    expect(await subscribeFromPlan(plan.plan_id, { email }, new Date(), requestKey)).toEqual(first);
    await expect(subscribeFromPlan(plan.plan_id, { email: address() }, new Date(), requestKey)).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const started = ((await call('GET', '/v1/subscriptions?limit=50', { token: shop.api_token })).body.subscriptions as Json[]).filter((s) => s.plan_id === plan.plan_id);
    expect(started.map((s) => s.customer_email)).toEqual([email]);
  });
});

describe('a subscriber from the plan link to the end of the subscription', () => {
  it('pays the first period from the invoice email, is emailed each step once with the page link, and sees it all on the page', async () => {
    const plan = await createPlan();
    const email = address();
    const started = await subscribe(plan.plan_id, { email });
    expect(started.status, started.text).toBe(201);
    expect(started.body).toEqual({ status: 201, started: 'payment', payment_url: expect.stringMatching(/\?id=[0-9a-f-]{36}$/), trial_ends_at: null });
    expect(started.text).not.toMatch(/subscription=/);
    const orderId = new URL(started.body.payment_url).searchParams.get('id')!;

    // The invoice: the amount, the due date, its payment page and the subscriber's page.
    const [invoice] = await arrived(about(email, 'Your payment for Hosting, small is due on'));
    expect(invoice!.subject).toMatch(/^Your payment for Hosting, small is due on \d{4}-\d{2}-\d{2} \/ Hosting, small 的付款将于 \d{4}-\d{2}-\d{2} 到期$/);
    expect(invoice!.text).toContain('12.50 USD');
    expect(invoice!.text).toContain(`Pay now: ${started.body.payment_url}`);
    expect(invoice!.text).toContain('立即付款');
    const secret = secretIn(invoice!);
    expect(secret).toHaveLength(43);

    const opened = await page('open', secret);
    expect(opened.status, opened.text).toBe(200);
    expect(opened.body.subscription).toMatchObject({
      status: 'incomplete',
      plan: { name: 'Hosting, small', price_amount: '12.5', interval_unit: 'month' },
      merchant_name: 'Hosting Co',
      sandbox: true,
      period: 1,
      periods_paid: 0,
      next_amount: '12.5',
      next_currency: 'USD',
      payable: true,
      cancel_at_period_end: false,
    });
    expect(opened.body.periods).toEqual([expect.objectContaining({ period: 1, attempt: 1, order_id: orderId, amount: '12.5', currency: 'USD', status: 'NEW', paid_at: null })]);
    const pay = await page('payment', secret);
    expect(pay.body).toEqual({ status: 200, order_id: orderId, payment_url: started.body.payment_url });

    await payInSandbox(orderId);
    const active = await pageWhen(secret, (view) => view.subscription?.status === 'active');
    expect(active.subscription).toMatchObject({ period: 2, periods_paid: 1, payable: false });
    expect(active.periods[0]).toMatchObject({ status: 'PAID', paid_at: expect.any(String), pay_amount: '12.5', pay_currency: 'USDT_TRC20', receipt_url: started.body.payment_url });
    expect((await page('payment', secret)).body).toEqual({ status: 200, order_id: null, payment_url: null });
    // The period's receipt (an ordinary paid order with an email) carries the page link too.
    const [receipt] = await arrived(about(email, 'Your receipt from Hosting Co'));
    expect(secretIn(receipt!)).toBe(secret);

    // The test clock brings the next invoice (3 days before the due date), then the reminders, past due and the end.
    const id = (await subscriptionOf(email)).subscription_id as string;
    const dueAt = Date.parse(active.subscription.next_due_at);
    await advance(id, (dueAt - Date.parse(active.subscription.clock)) / 86_400_000 - 2.5);
    const [second] = await arrived(about(email, 'Your payment for Hosting, small is due on'), 2);
    expect(second).toBeDefined();
    const invoiced = await pageWhen(secret, (view) => view.periods?.length === 2);
    expect(invoiced.subscription).toMatchObject({ status: 'active', period: 2, payable: true });
    await advance(id, 1.6);
    await arrived(about(email, 'Reminder: your payment for Hosting, small is due tomorrow'));
    await advance(id, 1);
    await arrived(about(email, 'Your payment for Hosting, small is due today'));
    const [late] = await arrived(about(email, 'Your payment for Hosting, small is overdue'));
    expect(late!.text).toContain('Pay it by');
    await advance(id, 5);
    const [ended] = await arrived(about(email, 'Your subscription to Hosting, small has ended'));
    expect(ended!.text).toContain('its last payment was not received in time');
    expect(secretIn(ended!)).toBe(secret);
    const over = await pageWhen(secret, (view) => view.subscription?.status === 'canceled');
    expect(over.subscription).toMatchObject({ cancel_reason: 'grace_ended', next_due_at: null, payable: false });
    expectError(await page('payment', secret), 409, 'SUBSCRIPTION_CANCELED');
    expectError(await page('cancellation', secret), 409, 'SUBSCRIPTION_CANCELED');

    // Each event emailed once, each to the subscriber alone.
    const subjects = mail()
      .messages()
      .filter(to(email))
      .map((message) => message.subject.split(' / ')[0] ?? '');
    expect(subjects.filter((subject) => subject.startsWith('Your payment for Hosting, small is due on'))).toHaveLength(2);
    for (const once of [
      'Your receipt from Hosting Co',
      'Reminder: your payment',
      'Your payment for Hosting, small is due today',
      'Your payment for Hosting, small is overdue',
      'Your subscription to Hosting, small has ended',
    ]) {
      expect(
        subjects.filter((subject) => subject.startsWith(once)),
        once,
      ).toHaveLength(1);
    }
    expect(
      mail()
        .messages()
        .filter((message) => message.text.includes(secret))
        .every((message) => message.envelopeTo.join() === email),
    ).toBe(true);
  }, 240_000);

  it("a trial starts with its email and page link; the subscriber cancels at the period's end and the merchant sees the subscriber's reason", async () => {
    const plan = await createPlan({ trial_days: 10 });
    const email = address();
    const started = await subscribe(plan.plan_id, { email });
    expect(started.body).toEqual({ status: 201, started: 'trial', payment_url: null, trial_ends_at: expect.any(String) });
    const [welcome] = await arrived(about(email, 'Your free trial of Hosting, small has started'));
    expect(welcome!.text).toContain(started.body.trial_ends_at.slice(0, 10));
    const secret = secretIn(welcome!);
    const opened = (await page('open', secret)).body;
    expect(opened.subscription).toMatchObject({ status: 'trialing', trial_ends_at: started.body.trial_ends_at, next_due_at: started.body.trial_ends_at, payable: false });

    const canceled = await page('cancellation', secret);
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body.subscription).toMatchObject({ status: 'trialing', cancel_at_period_end: true, ends_at: started.body.trial_ends_at, next_due_at: null, cancel_reason: 'subscriber' });
    const id = (await subscriptionOf(email)).subscription_id as string;
    // No order is made for the period after: it ends when the trial does.
    const ended = (await advance(id, 11)).body.subscription;
    expect(ended).toMatchObject({ status: 'canceled', cancel_reason: 'subscriber', period_order_id: null });
    const [goodbye] = await arrived(about(email, 'Your subscription to Hosting, small has ended'));
    expect(goodbye!.text).toContain('As you asked');
    expect(mail().messages().filter(about(email, 'Your payment for'))).toEqual([]);
  }, 120_000);
});

describe("the page link's secret", () => {
  it('a wrong secret and a replaced one answer a uniform not-found on every route; the new link is mailed, never answered', async () => {
    const plan = await createPlan({ trial_days: 30 });
    const email = address();
    await subscribe(plan.plan_id, { email });
    const [welcome] = await arrived(about(email, 'Your free trial'));
    const old = secretIn(welcome!);
    const wrong = randomBytes(32).toString('base64url');
    for (const path of ['open', 'payment', 'cancellation', 'link']) expectError(await page(path, wrong), 404, 'SUBSCRIPTION_NOT_FOUND');

    const renewed = await page('link', old);
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.body).toEqual({ status: 200 });
    const [fresh] = await arrived(about(email, 'Your new link to your subscription'));
    const current = secretIn(fresh!);
    expect(current).not.toBe(old);
    for (const path of ['open', 'payment', 'cancellation', 'link']) {
      const answer = await page(path, old);
      expectError(answer, 404, 'SUBSCRIPTION_NOT_FOUND');
      expect(answer.body).toEqual((await page(path, wrong)).body);
    }
    expect((await page('open', current)).body.subscription.status).toBe('trialing');
  }, 120_000);

  it('"email me my link" mails the link to the address it was started with, and answers a stranger\'s address the same', async () => {
    const plan = await createPlan({ trial_days: 30 });
    const email = address();
    await subscribe(plan.plan_id, { email });
    const [welcome] = await arrived(about(email, 'Your free trial'));
    const secret = secretIn(welcome!);
    const nobody = address();
    const unknown = await call('POST', `/v1/pay/plans/${plan.plan_id}/subscriber-link`, { body: { email: nobody } });
    const known = await call('POST', `/v1/pay/plans/${plan.plan_id}/subscriber-link`, { body: { email: email.toUpperCase() } });
    expect([unknown.status, unknown.body]).toEqual([200, { status: 200 }]);
    expect([known.status, known.body]).toEqual([200, { status: 200 }]);
    const [link] = await arrived(about(email, 'Your link to your subscription to Hosting, small'));
    expect(link!.envelopeTo).toEqual([email]);
    expect(secretIn(link!)).toBe(secret);
    expect(link!.text).toContain('If it was not you, you can ignore this email');
    // Another plan's subscribers are not found by this plan's link.
    const other = await createPlan();
    await call('POST', `/v1/pay/plans/${other.plan_id}/subscriber-link`, { body: { email } });
    // The stranger's request went before the known one (so it is most likely handled by now); it mails nobody either way.
    expect(mail().messages().filter(to(nobody))).toEqual([]);
  }, 120_000);

  it("a plan link's first emails count in its hourly window: past it they are kept LIMITED and not sent", async () => {
    const plan = await createPlan();
    const emails = Array.from({ length: PLAN_LINK_HOUR + 1 }, address);
    for (const email of emails) expect((await subscribe(plan.plan_id, { email })).status).toBe(201);
    const { findEmail } = await import('#shared/store/emails');
    const states: string[] = [];
    for (const email of emails) {
      const id = (await subscriptionOf(email)).subscription_id as string;
      let found: Awaited<ReturnType<typeof findEmail>>;
      await expect.poll(async () => (found = await findEmail(`subscriber.invoice.${id}.0.1`, 'subscriber'))?.state, { timeout: 60_000 }).toMatch(/^(SENT|LIMITED)$/);
      states.push(found!.state === 'LIMITED' ? `LIMITED ${found!.limited_by}` : found!.state);
    }
    expect(states.sort()).toEqual([...Array(PLAN_LINK_HOUR).fill('SENT'), 'LIMITED link_hour'].sort());
    expect(emails.filter((email) => mail().messages().some(to(email)))).toHaveLength(PLAN_LINK_HOUR);
  }, 120_000);
});
