import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { atRate, type Fault, type FaultProxy, startFaultProxy } from '../support/aws-faults';
import { MerchantEndpoint, sleep } from '../support/merchant-endpoint';
import { startPipeline } from '../support/pipeline';
import type { ApiResponse } from '../support/api';

/**
 * The paths that move money, with DynamoDB and SQS answering as AWS does when it fails: about
 * one call in ten throttled, a 500, a transaction conflict, a connection reset before or after
 * the call landed (a write done with its answer lost), or stalled. Every function's client goes
 * through the fault proxy (tests/support/aws-faults.ts); the table's stream and the queues'
 * event sources read the real parts, as Lambda's do. The client retries as documented: with
 * the same Idempotency-Key, after Retry-After, on a 503 or a 409 that says to. What must come
 * out: every order in the state it would reach without faults, no order, refund, callback
 * event or receipt made twice or lost, and no answer but a 503 with Retry-After for what could not finish.
 */
const TABLE = `aws-faults-${process.pid}`;
const ORDERS = 40;
const PAID = 30;
const REFUNDED = 12;
const DYNAMODB_FAULTS: readonly Fault[] = ['throttling', 'provisioned-throughput', 'internal-error', 'service-unavailable', 'transaction-conflict', 'reset', 'lost-answer', 'stall'];
const SQS_FAULTS: readonly Fault[] = ['throttling', 'internal-error', 'reset', 'lost-answer'];

let dynamodb: FaultProxy;
let queue: FaultProxy | undefined;
let stopPipeline: () => Promise<void>;
let call: (method: string, path: string, options?: any) => Promise<ApiResponse>;
let shop: { user_id: number; api_token: string };
let site: MerchantEndpoint;
let mailbox: NonNullable<Awaited<ReturnType<typeof startPipeline>>['mailbox']>;
/** The email jobs still queued (late) and dead-lettered (lost), read from the emulator: what a missing receipt was. */
let emailJobs: () => Promise<{ queued: number; deadLettered: number }>;
let sweepMinute: (now: Date) => Promise<{ expired: number }>;
const seen = { answers: 0, unavailable: 0, inProgress: 0, conflicts: 0, withoutRetryAfter: 0, otherFailures: [] as string[] };

beforeAll(async () => {
  dynamodb = await startFaultProxy(inject('dynamodbEndpoint'), { stallMs: 600 });
  const started = await startPipeline(
    TABLE,
    // A sandbox merchant's receipts to 30 buyers a day: past the default sandbox limit, on purpose.
    { DYNAMODB_ENDPOINT: dynamodb.url, ORDER_TTL_SECONDS: '2', CALLBACK_TIMEOUT_MS: '2000', AUTH_CACHE_SECONDS: '0', EMAIL_SANDBOX_BUYER_PER_DAY: '1000', PORTAL_ORIGIN: 'http://localhost:9' },
    // An email job whose handler failed comes back after 3 s, not the local queue's 60 (AWS's 180).
    { email: true, emailVisibilitySeconds: 3, sqsEndpoint: async (emulator) => (queue = await startFaultProxy(emulator)).url },
  );
  mailbox = started.mailbox!;
  emailJobs = async () => {
    const { SQSClient, GetQueueAttributesCommand } = await import('@aws-sdk/client-sqs');
    const client = new SQSClient({ endpoint: started.sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const count = async (url: string) => {
      const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
      return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    };
    try {
      return { queued: await count(started.sqs.emailQueueUrl), deadLettered: await count(started.sqs.emailDeadLetterQueueUrl) };
    } finally {
      client.destroy();
    }
  };
  stopPipeline = started.stop;
  call = started.support.client(started.api.url);
  shop = await started.support.newMerchant(true, 'Faulty Store Shop', { callbackStatuses: 'all' });
  site = await new MerchantEndpoint().start();
  ({ sweepMinute } = await import('#shared/services/minute-sweep'));
}, 120_000);

afterAll(async () => {
  if (dynamodb) dynamodb.plan = () => undefined;
  if (queue) queue.plan = () => undefined;
  await stopPipeline?.();
  await site?.stop();
  await dynamodb?.stop();
  await queue?.stop();
});

/**
 * One request as a careful client sends it: one Idempotency-Key for all its tries; a 503 or a
 * 409 that says to retry is tried again after its Retry-After (held keys at most 3 s here, so
 * the test waits less than a real client would). Every other answer is final.
 */
async function retried(method: string, path: string, body: unknown, asMerchant = true): Promise<ApiResponse> {
  const key = randomUUID();
  for (let attempt = 1; attempt <= 30; attempt += 1) {
    const answer = await call(method, path, { ...(asMerchant ? { token: shop.api_token } : {}), body, headers: { 'Idempotency-Key': key } });
    seen.answers += 1;
    const retryAfter = Number(answer.headers.get('retry-after'));
    if (answer.status >= 500) {
      if (answer.status === 503) seen.unavailable += 1;
      else seen.otherFailures.push(`${method} ${path}: ${answer.status} ${answer.text}`);
    } else if (answer.status === 409 && answer.body.error_code === 'IDEMPOTENCY_IN_PROGRESS') seen.inProgress += 1;
    else if (answer.status === 409 && answer.body.error_code === 'ORDER_CONFLICT') seen.conflicts += 1;
    else return answer;
    if (answer.status !== 409 || answer.body.error_code === 'IDEMPOTENCY_IN_PROGRESS') {
      if (!(retryAfter >= 1)) seen.withoutRetryAfter += 1;
    }
    await sleep(Math.min(retryAfter || 1, 3) * 1000 * (0.5 + Math.random() / 2));
  }
  throw new Error(`${method} ${path}: no final answer in 30 tries`);
}

/** Runs `work` over `items`, `width` at a time (a client with a few connections). */
async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  const queued = [...items];
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let item = queued.shift(); item !== undefined; item = queued.shift()) await work(item);
    }),
  );
}

const buyer = (index: number) => `buyer-${index}-${process.pid}@example.test`;
const expectOk = (answer: ApiResponse) => expect(answer.status, answer.text).toBe(200);

describe('DynamoDB and SQS failing about one call in ten', () => {
  it('orders, checkouts, payments, refunds, expiry, callbacks and receipts come out as without faults, each once', async () => {
    dynamodb.plan = atRate(0.1, DYNAMODB_FAULTS, { seed: 20261201 });
    queue!.plan = atRate(0.1, SQS_FAULTS, { seed: 7, operations: ['SendMessage', 'SendMessageBatch'] });

    const started = Date.now();
    const phases: Record<string, number> = {};
    const ids: string[] = [];
    await inParallel([...Array(ORDERS).keys()], 5, async (index) => {
      const created = await retried('POST', '/v1/orders', {
        price_amount: 65,
        price_currency: 'USD',
        merchant_order_id: `faults-${index}`,
        callback_url: site.url,
        email: buyer(index),
      });
      expectOk(created);
      const id = created.body.order.order_id as string;
      ids[index] = id;
      if (index >= PAID) return;
      expectOk(await retried('POST', `/v1/orders/${id}/checkout`, { pay_currency: 'BTC' }));
      const paid = await retried('POST', `/v1/sandbox/orders/${id}/pay`, {});
      expectOk(paid);
      expect(paid.body.order.status).toBe('PAID');
    });
    await inParallel(ids.slice(0, REFUNDED), 4, async (id) => {
      const refund = await retried('POST', `/v1/orders/${id}/refund`, { basis: 'custom', amount: '0.00001' });
      expectOk(refund);
    });

    phases.requests = Date.now() - started;
    // The minute sweep, as the schedule runs it, until the orders never checked out have expired.
    await sleep(2_500);
    // Counted by the orders' states, not by the sweeps' answers: a sweep that expired some orders
    // and then failed (a later call's fault), or whose expiring write landed with its answer
    // lost, does not report what it did, and the next sweep finds those orders already expired.
    const unpaid = ids.slice(PAID);
    const open = async () => (await Promise.all(unpaid.map((id) => retried('GET', `/v1/orders/${id}`, undefined)))).filter((answer) => answer.body.order?.status !== 'EXPIRED').length;
    let notExpired = unpaid.length;
    for (let round = 0; round < 30 && notExpired > 0; round += 1) {
      try {
        await sweepMinute(new Date());
      } catch {
        // A sweep that failed is run again by the next minute's schedule.
      }
      notExpired = await open();
    }
    phases.expiry = Date.now() - started;
    // The callbacks each state change owes: PAID for all paid, REFUND_PENDING for the refunded, EXPIRED for the rest.
    const owed = (id: string, index: number) => (index < REFUNDED ? ['PAID', 'REFUND_PENDING'] : index < PAID ? ['PAID'] : ['EXPIRED']);
    const has = (id: string, status: string) => site.for(id).some((callback) => callback.json?.status === status);
    // Waited for, then checked order by order below (a missing one is named there).
    await site.waitFor(() => ids.every((id, index) => owed(id, index).every((status) => has(id, status))), 60_000).catch(() => undefined);
    phases.callbacks = Date.now() - started;
    // Each paid order's buyer gets a receipt.
    const receipts = (index: number) => mailbox.messages().filter((mail) => mail.envelopeTo.includes(buyer(index)));
    const paidIndexes = [...Array(PAID).keys()];
    const isReceipt = (mail: { envelopeTo: string[]; subject: string }) => mail.subject.startsWith('Your receipt') && paidIndexes.some((index) => mail.envelopeTo.includes(buyer(index)));
    // A receipt whose sends failed is retried 5, 10, 20, 40 s later (the local runtime's email
    // base, doubling): four failed tries in a row are 75 s of waiting, more than the 60 s this
    // waited before, which once ended before a receipt came (it was not known whether late or lost).
    await mailbox.waitFor(isReceipt, { count: PAID, timeoutMs: 120_000 }).catch(() => undefined);
    phases.receipts = Date.now() - started;
    // Read with the queue answering well: a receipt still queued is late, one dead-lettered is lost.
    queue!.plan = () => undefined;
    const jobs = await emailJobs();
    const faults = [...dynamodb.counts.faults.values(), ...queue!.counts.faults.values()].reduce((sum, n) => sum + n, 0);
    // Late copies of a delivery would arrive within a retry's second or two.
    await sleep(3_000);

    // Checked with the store answering well.
    dynamodb.plan = () => undefined;
    queue!.plan = () => undefined;
    expect(seen.otherFailures).toEqual([]);
    expect(seen.withoutRetryAfter).toBe(0);
    expect(notExpired).toBe(0);
    const listed = await call('GET', '/v1/orders/?limit=50', { token: shop.api_token });
    expect(listed.body.orders).toHaveLength(ORDERS);
    const { listRefunds } = await import('#shared/store/refunds');
    for (const [index, id] of ids.entries()) {
      const order = (await call('GET', `/v1/orders/${id}`, { token: shop.api_token })).body.order;
      expect(order.status, `${id}: ${JSON.stringify(order)}`).toBe(index < REFUNDED ? 'REFUND_PENDING' : index < PAID ? 'PAID' : 'EXPIRED');
      expect((await listRefunds(id)).map((refund) => refund.amount)).toEqual(index < REFUNDED ? ['0.00001'] : []);
      // Each state change is one event: delivered at least once, never as two events.
      for (const status of owed(id, index)) {
        const events = new Set(
          site
            .for(id)
            .filter((callback) => callback.json?.status === status)
            .map((callback) => callback.json.event_id),
        );
        expect(events.size, `${id} ${status}`).toBe(1);
      }
      expect(new Set(site.for(id).map((callback) => callback.json?.status))).toEqual(new Set(owed(id, index)));
      // One receipt for a paid order, none for one that expired: never two.
      expect(
        receipts(index).filter((mail) => mail.subject.startsWith('Your receipt')),
        `${buyer(index)}; email jobs ${JSON.stringify(jobs)}`,
      ).toHaveLength(index < PAID ? 1 : 0);
    }
    const deliveries = site.received.length;
    const events = new Set(site.received.map((callback) => callback.json?.event_id)).size;
    console.log(
      JSON.stringify({
        faults: Object.fromEntries([...dynamodb.counts.faults, ...[...queue!.counts.faults].map(([name, n]) => [`SQS ${name}`, n])]),
        dynamodbCalls: [...dynamodb.counts.calls.values()].reduce((sum, n) => sum + n, 0),
        sqsCalls: [...queue!.counts.calls.values()].reduce((sum, n) => sum + n, 0),
        clientAnswers: seen.answers,
        unavailable: seen.unavailable,
        inProgress: seen.inProgress,
        conflicts: seen.conflicts,
        callbackEvents: events,
        callbackPosts: deliveries,
        receipts: mailbox.messages().filter(isReceipt).length,
        emailJobs: jobs,
        msFromStart: phases,
      }),
    );
    expect(faults).toBeGreaterThan(50);
  }, 240_000);

  it("a link's units: each held once, sold once, given back once", async () => {
    const link = (await retried('POST', '/v1/links', { title: 'Faulty stock', price_amount: 10, currencies: ['BTC'], quantity: 8 })).body.link;
    dynamodb.plan = atRate(0.1, DYNAMODB_FAULTS, { seed: 4242 });
    // Twelve buyers for eight units, each retrying its own purchase with its own key.
    const bought: string[] = [];
    const refused: string[] = [];
    await inParallel([...Array(12).keys()], 6, async () => {
      const answer = await retried('POST', `/v1/pay/links/${link.link_id}/orders`, { pay_currency: 'BTC' }, false);
      if (answer.status === 201) bought.push(answer.body.order_id as string);
      else refused.push(answer.body.error_code ?? `${answer.status} ${answer.text}`);
    });
    expect(bought, refused.join(' ')).toHaveLength(8);
    expect(refused).toEqual(Array(4).fill('LINK_SOLD_OUT'));
    // Five paid (sold), two canceled unpaid (given back), one still held.
    await inParallel(bought.slice(0, 5), 3, async (id) => expectOk(await retried('POST', `/v1/sandbox/orders/${id}/pay`, {})));
    await inParallel(bought.slice(5, 7), 2, async (id) => expectOk(await retried('POST', `/v1/pay/${id}/cancel`, {}, false)));
    // The two given back go to the next buyers (a full link takes back what canceled orders held), and no more.
    const later = await Promise.all([0, 1, 2].map(() => retried('POST', `/v1/pay/links/${link.link_id}/orders`, { pay_currency: 'BTC' }, false)));
    expect(later.map((answer) => `${answer.status} ${answer.body.error_code ?? ''}`).sort()).toEqual(['201 ', '201 ', '409 LINK_SOLD_OUT']);
    dynamodb.plan = () => undefined;
    expect((await call('GET', `/v1/pay/links/${link.link_id}`)).body.link).toMatchObject({ state: 'SOLD_OUT', units_left: 0 });
    expect((await call('GET', `/v1/links/${link.link_id}`, { token: shop.api_token })).body.link).toMatchObject({ order_count: 10, quantity: 8, units_left: 0 });
    expect(seen.otherFailures).toEqual([]);
  });

  it("a transaction whose answer was lost is answered as done when the SDK tries it again: a link's unit held once, answered 201", async () => {
    const link = (await retried('POST', '/v1/links', { title: 'One lost answer', price_amount: 10, currencies: ['BTC'], quantity: 3 })).body.link;
    let transactions = 0;
    dynamodb.plan = (call) => (call.operation === 'TransactWriteItems' && transactions++ === 0 ? 'lost-answer' : undefined);
    const bought = await call('POST', `/v1/pay/links/${link.link_id}/orders`, { body: { pay_currency: 'BTC' } });
    dynamodb.plan = () => undefined;
    // The SDK's retry was the second transaction. It carries the first's ClientRequestToken (the
    // SDK fills one in when the caller gives none), and DynamoDB answers it as the transaction it
    // already ran: were it run again, its condition on the visit it wrote would refuse it.
    expect(transactions).toBeGreaterThanOrEqual(2);
    expect(bought.status, bought.text).toBe(201);
    expect((await call('GET', `/v1/links/${link.link_id}`, { token: shop.api_token })).body.link).toMatchObject({ order_count: 1, units_left: 2 });
  });

  it("a buyer's order whose unit was held but whose answer was lost on every try: the retry makes that visit's order, one unit held", async () => {
    const link = (await retried('POST', '/v1/links', { title: 'Held once', price_amount: 10, currencies: ['BTC'], quantity: 3 })).body.link;
    // The visit's transaction is written, then its answer lost, on each of the SDK's three tries.
    let lost = 3;
    dynamodb.plan = (call) => (call.operation === 'TransactWriteItems' && lost > 0 ? (lost--, 'lost-answer') : undefined);
    const key = randomUUID();
    const buy = () => call('POST', `/v1/pay/links/${link.link_id}/orders`, { body: { pay_currency: 'BTC' }, headers: { 'Idempotency-Key': key } });
    const first = await buy();
    dynamodb.plan = () => undefined;
    expect([first.status, first.headers.get('retry-after')]).toEqual([503, '1']);
    const retry = await buy();
    expect(retry.status, retry.text).toBe(201);
    expect((await call('GET', `/v1/links/${link.link_id}`, { token: shop.api_token })).body.link).toMatchObject({ order_count: 1, units_left: 2 });
  });

  it('a Create whose order was written but whose every try then failed: the retry with its key gets that order, not "merchant_order_id exists"', async () => {
    // The order's Put is written with its answer lost, then the SDK's two more tries are throttled: 503.
    const faults: Fault[] = ['lost-answer', 'throttling', 'throttling'];
    dynamodb.plan = (call) => {
      const item = call.body.Item as { type?: { S?: string } } | undefined;
      return call.operation === 'PutItem' && item?.type?.S === 'ORDER' ? faults.shift() : undefined;
    };
    const key = randomUUID();
    const body = { price_amount: 7, merchant_order_id: `written-${key}` };
    const create = () => call('POST', '/v1/orders', { token: shop.api_token, body, headers: { 'Idempotency-Key': key } });
    const first = await create();
    dynamodb.plan = () => undefined;
    expect([first.status, faults]).toEqual([503, []]);
    const retry = await create();
    expect(retry.status, retry.text).toBe(200);
    expect(retry.body.order.merchant_order_id).toBe(body.merchant_order_id);
    // Without the key it is another request: the contract's answer for a reference taken.
    const other = await call('POST', '/v1/orders', { token: shop.api_token, body });
    expect([other.status, other.body.error_code, other.body.order?.order_id]).toEqual([400, 'ORDER_MERCHANTID_EXIST', retry.body.order.order_id]);
  });

  it('a Create Subscription whose subscription was written but whose every try then failed: the retry with its key goes on with that one, not a second', async () => {
    const plan = await call('POST', '/v1/plans', { token: shop.api_token, body: { name: `Faulty plan ${randomUUID()}`, price_amount: '5', price_currency: 'USD', interval_unit: 'month' } });
    expect(plan.status, plan.text).toBe(201);
    // The subscription's Put is written with its answer lost, then the SDK's two more tries are throttled: 503.
    const faults: Fault[] = ['lost-answer', 'throttling', 'throttling'];
    dynamodb.plan = (call) => {
      const item = call.body.Item as { type?: { S?: string } } | undefined;
      return call.operation === 'PutItem' && item?.type?.S === 'SUBSCRIPTION' ? faults.shift() : undefined;
    };
    const key = randomUUID();
    const customer = `cus_${key}`;
    const body = { plan_id: plan.body.plan.plan_id, customer_id: customer };
    const create = () => call('POST', '/v1/subscriptions', { token: shop.api_token, body, headers: { 'Idempotency-Key': key } });
    const first = await create();
    dynamodb.plan = () => undefined;
    expect([first.status, faults]).toEqual([503, []]);
    const retry = await create();
    expect(retry.status, retry.text).toBe(201);
    const listed = await call('GET', '/v1/subscriptions?limit=50', { token: shop.api_token });
    expect(listed.status, listed.text).toBe(200);
    const ofCustomer = listed.body.subscriptions.filter((subscription: { customer_id?: string }) => subscription.customer_id === customer);
    expect(ofCustomer.map((subscription: { subscription_id: string }) => subscription.subscription_id)).toEqual([retry.body.subscription.subscription_id]);
  });

  it("a Create whose key's Put lands with its answer lost on every try answers 503 with Retry-After, and the retry makes the one order", async () => {
    // Each of the SDK's three tries of the key's Put is written, then its connection reset.
    let lost = 3;
    dynamodb.plan = (call) => {
      const item = call.body.Item as { type?: { S?: string } } | undefined;
      if (call.operation !== 'PutItem' || item?.type?.S !== 'IDEMPOTENCY' || lost === 0) return undefined;
      lost -= 1;
      return 'lost-answer';
    };
    const key = randomUUID();
    const body = { price_amount: 5, merchant_order_id: `lost-${key}` };
    const create = () => call('POST', '/v1/orders', { token: shop.api_token, body, headers: { 'Idempotency-Key': key } });
    const first = await create();
    expect([first.status, first.body.error_code, first.headers.get('retry-after')]).toEqual([503, 'SERVICE_UNAVAILABLE', '1']);
    expect(lost).toBe(0);
    // The failed request gave back the key its Put had taken: the retry runs, it does not wait out a lease.
    const retry = await create();
    expect(retry.status, retry.text).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const again = await create();
    expect([again.status, again.headers.get('idempotent-replayed'), again.text]).toEqual([200, 'true', retry.text]);
    const mine = (await call('GET', '/v1/orders/?limit=50', { token: shop.api_token })).body.orders.filter((order: any) => order.merchant_order_id === body.merchant_order_id);
    expect(mine).toHaveLength(1);
  });
});
