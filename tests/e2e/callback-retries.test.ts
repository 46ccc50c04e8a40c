import { describe, expect, it } from 'vitest';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { useCallbackPipeline } from '../support/callback-e2e';
import { MerchantEndpoint, sleep } from '../support/merchant-endpoint';
import { freePort } from '#infra/local/ports';

/**
 * Callback delivery when the merchant's server misbehaves, end to end on the real local parts
 * (its own pipeline and table: tests/support/callback-e2e.ts): errors and retries with their
 * backoff, refused connections, timeouts, broken answers, 410, redirects, Retry-After and the
 * dead-letter queue. Split from callbacks.test.ts so the two run in parallel workers.
 *
 * The tests run at the same time: each waits for retries (seconds each) of its own order at
 * its own merchant endpoint, and the pipeline delivers concurrently, as Lambda does (one after
 * the other, the file was among the suite's longest: docs/performance.md, "The test suite's
 * time"). Together they share the machine with each other's first deliveries: each may take
 * longer than the default timeout on a loaded machine.
 */
const TABLE = `callback-retries-e2e-${process.pid}`;
const { merchant, sqs, call, endpoint, endpoints, paidOrder } = useCallbackPipeline(TABLE);

// Concurrent tests poll with their own context's `expect`: the global one may no longer know which test is running (vitest's rule for concurrent tests).
describe.concurrent('callback retries', { timeout: 120_000 }, () => {
  it('500, 500, 200: exactly three attempts with one webhook-id, then silence', async () => {
    const merchantSite = await endpoint((_, index) => ({ status: index < 2 ? 500 : 200 }));
    const id = await paidOrder(merchantSite.url);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 3);
    await sleep(4000);
    const attempts = merchantSite.for(id);
    expect(attempts).toHaveLength(3);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    // Backoff: the second retry waits longer than the first.
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThan(attempts[1]!.at - attempts[0]!.at - 500);
    const log = await call('GET', `/v1/orders/${id}/callbacks`, { token: merchant.api_token });
    expect(log.body.callbacks[0]).toMatchObject({ state: 'DELIVERED', attempt_count: 3 });
    expect(log.body.callbacks[0].attempts.map((a: any) => a.http_status)).toEqual([500, 500, 200]);
  });

  it('connection refused, then the merchant comes up: delivered', async ({ expect }) => {
    const port = await freePort();
    const id = await paidOrder(`http://127.0.0.1:${port}/callback`);
    const attempted = async () => (await call('GET', `/v1/orders/${id}/callbacks`, { token: merchant.api_token })).body.callbacks[0]?.attempt_count ?? 0;
    const deadline = Date.now() + 20_000;
    while ((await attempted()) < 1 && Date.now() < deadline) await sleep(100);
    const merchantSite = await new MerchantEndpoint().start(port);
    endpoints.push(merchantSite);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 1);
    // The delivery is recorded after the merchant's answer arrives: read the log until it is.
    const delivered = () => call('GET', `/v1/orders/${id}/callbacks`, { token: merchant.api_token }).then((log) => log.body.callbacks[0]);
    await expect.poll(async () => (await delivered()).state, { timeout: 15_000 }).toBe('DELIVERED');
    expect((await delivered()).attempts[0].error).toBeTruthy();
  });

  it('a merchant slower than the timeout: the attempt fails as a timeout and is retried; nothing lost', async ({ expect }) => {
    const held: (() => void)[] = [];
    const merchantSite = await endpoint();
    // The first request is never answered (held past CALLBACK_TIMEOUT_MS = 2 s).
    merchantSite.respondWith((_, index) => (index === 0 ? { status: 200, hold: (release) => held.push(release) } : { status: 200 }));
    const id = await paidOrder(merchantSite.url);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 2, 30_000);
    for (const release of held) release();
    const delivered = () => call('GET', `/v1/orders/${id}/callbacks`, { token: merchant.api_token }).then((log) => log.body.callbacks[0]);
    await expect.poll(async () => (await delivered()).state, { timeout: 15_000 }).toBe('DELIVERED');
    expect((await delivered()).attempts[0].error).toMatch(/^timeout: /);
  });

  it('a merchant answering garbage: a broken HTTP answer is retried, a 2xx with any body is delivered', async () => {
    const { createServer } = await import('node:net');
    let connections = 0;
    const raw = createServer((socket) => {
      connections += 1;
      socket.once('data', () => socket.end('HTTP/1.1 banana\r\n\r\n\x00\x01garbage'));
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const port = (raw.address() as { port: number }).port;
    try {
      const id = await paidOrder(`http://127.0.0.1:${port}/callback`);
      const attempts = async () => (await call('GET', `/v1/orders/${id}/callbacks`, { token: merchant.api_token })).body.callbacks[0]?.attempt_count ?? 0;
      const deadline = Date.now() + 20_000;
      while ((await attempts()) < 2 && Date.now() < deadline) await sleep(100);
      const log = await call('GET', `/v1/orders/${id}/callbacks`, { token: merchant.api_token });
      expect(log.body.callbacks[0].state).toBe('PENDING');
      expect(log.body.callbacks[0].attempts.every((a: any) => a.error && a.http_status === undefined)).toBe(true);
      expect(connections).toBeGreaterThanOrEqual(2);
    } finally {
      raw.close();
    }
    const noisy = await endpoint(() => ({ status: 200, body: '\u0000not json at all'.repeat(10_000) }));
    const id = await paidOrder(noisy.url);
    await noisy.waitFor(() => noisy.for(id).length >= 1);
    await sleep(1000);
    const log = await call('GET', `/v1/orders/${id}/callbacks`, { token: merchant.api_token });
    expect(log.body.callbacks[0]).toMatchObject({ state: 'DELIVERED', attempt_count: 1 });
  });

  it('410 stops the retries', async () => {
    const merchantSite = await endpoint(() => ({ status: 410 }));
    const id = await paidOrder(merchantSite.url);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 1);
    await sleep(3500);
    expect(merchantSite.for(id)).toHaveLength(1);
    const log = await call('GET', `/v1/orders/${id}/callbacks`, { token: merchant.api_token });
    expect(log.body.callbacks[0]).toMatchObject({ state: 'STOPPED', attempt_count: 1 });
  });

  it('302 is a failure: retried, never followed', async () => {
    const target = await endpoint();
    const merchantSite = await endpoint((_, index) => (index < 1 ? { status: 302, headers: { location: target.url } } : { status: 200 }));
    const id = await paidOrder(merchantSite.url);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 2);
    expect(target.received).toHaveLength(0);
  });

  it('honours Retry-After', async () => {
    const merchantSite = await endpoint((_, index) => (index < 1 ? { status: 503, headers: { 'retry-after': '3' } } : { status: 200 }));
    const id = await paidOrder(merchantSite.url);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 2);
    const [first, second] = merchantSite.for(id);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(2900);
  });

  it('after the last attempt the job is dead-lettered and the delivery FAILED', async () => {
    const merchantSite = await endpoint(() => ({ status: 500 }));
    const id = await paidOrder(merchantSite.url);
    await merchantSite.waitFor(() => merchantSite.for(id).length >= 4, 30_000);
    const client = new SQSClient({ endpoint: sqs.endpoint });
    let dead: any;
    for (let i = 0; i < 40 && !dead; i += 1) {
      const received = await client.send(new ReceiveMessageCommand({ QueueUrl: sqs.callbackDeadLetterQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      dead = (received.Messages ?? []).map((m) => JSON.parse(m.Body ?? '{}')).find((job) => job.order_id === id);
    }
    client.destroy();
    expect(dead).toMatchObject({ order_id: id, attempt: 4 });
    await sleep(2500);
    expect(merchantSite.for(id)).toHaveLength(4);
    const log = await call('GET', `/v1/orders/${id}/callbacks`, { token: merchant.api_token });
    expect(log.body.callbacks[0]).toMatchObject({ state: 'FAILED', attempt_count: 4 });
  });
});
