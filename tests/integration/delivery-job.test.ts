import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalSqs, type LocalSqs } from '#infra/local/sqs';
import type { OrderDelivery as Delivery } from '#shared/domain/delivery';
import type { MerchantProfile } from '#shared/domain/merchant';
import { drainMessages } from '../support/queue-messages';

/**
 * One delivery job at a time through processDeliveryJob (what deliver-callback runs per
 * message), on this file's own queues, against a loopback merchant: the edges of the attempt
 * bookkeeping that the end-to-end pipeline reaches only by chance.
 */
let sqs: LocalSqs;
let sqsClient: SQSClient;
let merchantSite: Server;
let merchantUrl: string;
let answer = 500;
let merchant: MerchantProfile;
let m: {
  callbacks: typeof import('#shared/callbacks/delivery-job');
  deliveries: typeof import('#shared/store/deliveries');
  orders: typeof import('#shared/services/orders');
  client: typeof import('#shared/store/client');
  errors: typeof import('#shared/domain/errors');
  config: typeof import('#shared/callbacks/config');
  settings: typeof import('#shared/core/config');
};

beforeAll(async () => {
  sqs = await startLocalSqs({ prefix: `delivery-job-${process.pid}` });
  // The environment deliver-callback gets; set before its modules load.
  Object.assign(process.env, {
    CALLBACK_QUEUE_URL: sqs.callbackQueueUrl,
    CALLBACK_DLQ_URL: sqs.callbackDeadLetterQueueUrl,
    SQS_ENDPOINT: sqs.endpoint,
    CALLBACK_ALLOW_LOOPBACK: 'true',
    CALLBACK_MAX_ATTEMPTS: '16',
  });
  sqsClient = new SQSClient({ endpoint: sqs.endpoint });
  merchantSite = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(answer, { 'content-type': 'application/json' }).end('{"status":200}'));
  });
  await new Promise<void>((resolve) => merchantSite.listen(0, '127.0.0.1', resolve));
  merchantUrl = `http://127.0.0.1:${(merchantSite.address() as AddressInfo).port}/callback`;
  m = {
    callbacks: await import('#shared/callbacks/delivery-job'),
    deliveries: await import('#shared/store/deliveries'),
    orders: await import('#shared/services/orders'),
    client: await import('#shared/store/client'),
    errors: await import('#shared/domain/errors'),
    config: await import('#shared/callbacks/config'),
    settings: await import('#shared/core/config'),
  };
  const { createMerchant } = await import('#shared/services/merchants');
  const { findMerchant } = await import('#shared/store/merchants');
  const { token_hash: _t, callback_secret: _s, ...profile } = (await findMerchant((await createMerchant({ name: 'Jobs', sandbox: true })).user_id))!;
  merchant = profile;
});

afterAll(async () => {
  sqsClient?.destroy();
  await new Promise<void>((resolve) => merchantSite?.close(() => resolve()));
  await sqs?.stop();
});

afterEach(() => {
  vi.restoreAllMocks();
  answer = 500;
});

/** A paid order's delivery, stored as the status change wrote it, at `attempts` attempts made. */
async function storedDelivery(callbackUrl: string, attempts = 0): Promise<Delivery> {
  // The order passes the creation-time URL check; the delivery carries the URL under test (as
  // a name that resolves differently at delivery time would).
  const { order } = await m.orders.createOrder(merchant, { price_amount: 3, callback_url: merchantUrl }, new Date());
  const delivery: Delivery = {
    event_id: `evt_${order.order_id.replaceAll('-', '')}_2`,
    order_id: order.order_id,
    user_id: merchant.user_id,
    version: 2,
    status: 'PAID',
    callback_url: callbackUrl,
    payload: JSON.stringify({ order_id: order.order_id, status: 'PAID' }),
    state: 'PENDING',
    attempt_count: attempts,
    attempts: [],
    next_attempt_at: new Date(Date.now() - 1000).toISOString(),
    created_at: new Date().toISOString(),
  };
  await m.client.db().send(new PutCommand({ TableName: m.client.tableName(), Item: m.deliveries.deliveryToItem(delivery) }));
  return delivery;
}

const jobOf = (delivery: Delivery, attempt = delivery.attempt_count) => ({
  order_id: delivery.order_id,
  version: delivery.version,
  event_id: delivery.event_id,
  attempt,
});

/** The messages on a queue for one order (received, then deleted). */
const drain = (queueUrl: string, orderId: string) => drainMessages(sqsClient, queueUrl, 'order_id', orderId);

describe('a delivery job', () => {
  it('retries a callback URL that resolves to a forbidden address instead of stopping quietly', async () => {
    const delivery = await storedDelivery('http://169.254.169.254/latest/meta-data');
    expect(await m.callbacks.processDeliveryJob(jobOf(delivery), 'receipt', new Date())).toBe('done');
    const after = await m.deliveries.findDelivery(delivery.order_id, delivery.version);
    expect(after).toMatchObject({ state: 'PENDING', attempt_count: 1 });
    expect(after!.attempts[0]!.error).toMatch(/^forbidden-address/);
    // The next attempt is scheduled after the first backoff step (its message is delayed).
    expect(Date.parse(after!.next_attempt_at) - Date.now()).toBeGreaterThan(50_000);
  });

  it('dead-letters the last failed attempt even when the first send to the dead-letter queue fails', async () => {
    const delivery = await storedDelivery(merchantUrl, m.settings.callbackConfig().maxAttempts - 1);
    const send = SQSClient.prototype.send;
    let refusals = 1;
    vi.spyOn(SQSClient.prototype, 'send').mockImplementation(function (this: SQSClient, command: unknown, ...rest: unknown[]) {
      // A send to the dead-letter queue failing once: a real emulator does not fail on demand.
      if (command instanceof SendMessageCommand && command.input.QueueUrl === sqs.callbackDeadLetterQueueUrl && refusals > 0) {
        refusals -= 1;
        return Promise.reject(Object.assign(new Error('service unavailable'), { name: 'ServiceUnavailable' }));
      }
      return (send as (...args: unknown[]) => unknown).call(this, command, ...rest);
    } as typeof send);
    const job = jobOf(delivery);
    await expect(m.callbacks.processDeliveryJob(job, 'receipt', new Date())).rejects.toThrow('service unavailable');
    expect(await m.deliveries.findDelivery(delivery.order_id, delivery.version)).toMatchObject({ state: 'FAILED', attempt_count: 16 });
    expect(await drain(sqs.callbackDeadLetterQueueUrl, delivery.order_id)).toEqual([]);
    // The message comes back (its batch item failed): this time it is dead-lettered.
    expect(await m.callbacks.processDeliveryJob(job, 'receipt', new Date())).toBe('done');
    const dead = await drain(sqs.callbackDeadLetterQueueUrl, delivery.order_id);
    expect(dead).toEqual([expect.objectContaining({ attempt: 16, reason: 'HTTP 500' })]);
    expect((await m.deliveries.findDelivery(delivery.order_id, delivery.version))!.dead_lettered_at).toEqual(expect.any(String));
    // Once more (a duplicate): nothing is sent twice.
    expect(await m.callbacks.processDeliveryJob(job, 'receipt', new Date())).toBe('done');
    expect(await drain(sqs.callbackDeadLetterQueueUrl, delivery.order_id)).toEqual([]);

    // An operator redrives the dead-lettered job once the merchant is fixed: it starts over.
    answer = 200;
    expect(await m.callbacks.processDeliveryJob(dead[0] as never, 'receipt', new Date())).toBe('done');
    expect(await m.deliveries.findDelivery(delivery.order_id, delivery.version)).toMatchObject({ state: 'PENDING', attempt_count: 0 });
    const [first] = await drain(sqs.callbackQueueUrl, delivery.order_id);
    expect(first).toMatchObject({ attempt: 0 });
    expect(await m.callbacks.processDeliveryJob(first as never, 'receipt', new Date())).toBe('done');
    expect(await m.deliveries.findDelivery(delivery.order_id, delivery.version)).toMatchObject({ state: 'DELIVERED', attempt_count: 1 });
  });

  it('refuses a redelivery while a worker holds the delivery, and allows it once the lease is over', async () => {
    const delivery = await storedDelivery(merchantUrl);
    const now = new Date();
    expect(await m.deliveries.claimDelivery(delivery, now, 60)).toEqual(expect.any(String));
    await expect(m.callbacks.redeliverLatest(merchant, delivery.order_id, now)).rejects.toBeInstanceOf(m.errors.CallbackInProgressError);
    expect(await m.deliveries.findDelivery(delivery.order_id, delivery.version)).toMatchObject({ lease_until: expect.any(String), attempt_count: 0 });
    const later = new Date(now.getTime() + 61_000);
    const reset = await m.callbacks.redeliverLatest(merchant, delivery.order_id, later);
    expect(reset).toMatchObject({ state: 'PENDING', attempt_count: 0 });
    expect(await drain(sqs.callbackQueueUrl, delivery.order_id)).toEqual([expect.objectContaining({ attempt: 0 })]);
  });

  it('holds a delivery for longer than its POST may take', () => {
    expect(m.config.leaseSeconds()).toBeGreaterThanOrEqual(m.settings.callbackConfig().timeoutMs / 1000 + 30);
  });
});
