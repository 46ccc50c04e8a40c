import { afterAll, describe, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoToken, post } from '../support/local-runtime';
import { MerchantEndpoint } from '../support/merchant-endpoint';
import { killGroup, startScript, stopLeftoverJava, type Started } from '../support/processes';

/**
 * The local runtime on its timers and after a crash, each test with its own DATA_DIR (split
 * from local-runtime.test.ts so the two run in parallel workers). The two tests are independent
 * and mostly wait (for Java to start, the expiry timer, a restart): they run at the same time.
 */
const running: Started[] = [];

afterAll(() => {
  for (const started of running) killGroup(started.child);
});

describe('the local runtime: expiry on its timer (short windows), and callbacks after a crash', () => {
  it.concurrent('expires checked-out and never-checked-out orders on its timer; a late payment is PAID_LATE', async ({ expect }) => {
    const expiryDir = mkdtempSync(join(tmpdir(), 'runtime-expiry-'));
    const started = startScript('infra/local/start.ts', [], {
      PORT: '0',
      DATA_DIR: expiryDir,
      DEMO_API_TOKEN: demoToken,
      INVOICE_TTL_CRYPTO_SECONDS: '2',
      ORDER_TTL_SECONDS: '2',
      EXPIRY_SWEEP_SECONDS: '1',
    });
    running.push(started);
    try {
      const [, url] = await started.waitFor(/API:\s+(http:\/\/\S+)/);
      await started.waitFor(/Ctrl-C stops everything/);
      const created = (await (await post(`${url}/v1/orders`, demoToken, { price_amount: 65, pay_currency: 'BTC' })).json()) as any;
      const unchecked = (await (await post(`${url}/v1/orders`, demoToken, { price_amount: 1 })).json()) as any;
      const status = async (id: string) => ((await (await fetch(`${url}/v1/orders/${id}`, { headers: { token: demoToken } })).json()) as any).order.status;
      expect(await status(created.order.order_id)).toBe('NEW');

      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && ((await status(created.order.order_id)) !== 'EXPIRED' || (await status(unchecked.order.order_id)) !== 'EXPIRED')) {
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(await status(created.order.order_id)).toBe('EXPIRED');
      expect(await status(unchecked.order.order_id)).toBe('EXPIRED');

      // Seen late but not yet confirmed: nothing changes (it may never confirm).
      const seen = (await (await post(`${url}/v1/sandbox/orders/${created.order.order_id}/pay`, demoToken, { txid: 'late-tx', confirmations: 0 })).json()) as any;
      expect(seen.order.status).toBe('EXPIRED');
      const late = (await (await post(`${url}/v1/sandbox/orders/${created.order.order_id}/pay`, demoToken, { txid: 'late-tx' })).json()) as any;
      expect(late.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'PAID_LATE' });
      expect(await started.stop('SIGINT')).toBe(0);
    } finally {
      stopLeftoverJava(expiryDir);
      rmSync(expiryDir, { recursive: true, force: true });
    }
  }, 120_000);

  it.concurrent('a runtime killed (SIGKILL) between a status change and its delivery delivers after restart', async ({ expect }) => {
    const crashDir = mkdtempSync(join(tmpdir(), 'runtime-crash-'));
    // The first attempt (if it happens before the kill) fails; only a delivery after restart succeeds.
    const merchantSite = await new MerchantEndpoint((_, index) => ({ status: index === 0 ? 500 : 200 })).start();
    const env = { PORT: '0', DATA_DIR: crashDir, DEMO_API_TOKEN: demoToken, EXPIRY_SWEEP_SECONDS: '1', CALLBACK_RETRY_BASE_SECONDS: '1' };
    try {
      const first = startScript('infra/local/start.ts', [], env);
      running.push(first);
      const [, url] = await first.waitFor(/API:\s+(http:\/\/\S+)/);
      await first.waitFor(/Ctrl-C stops everything/);
      const created = (await (await post(`${url}/v1/orders`, demoToken, { price_amount: 65, pay_currency: 'BTC', callback_url: merchantSite.url })).json()) as any;
      const orderId = created.order.order_id;
      const paid = (await (await post(`${url}/v1/sandbox/orders/${orderId}/pay`, demoToken, {})).json()) as any;
      expect(paid.order.status).toBe('PAID');
      // Crash: the runtime's whole process group dies at once (DynamoDB Local, like any
      // database server, runs in its own group and is stopped cleanly by the next start).
      killGroup(first.child);
      await first.stop('SIGKILL');

      const second = startScript('infra/local/start.ts', [], env);
      running.push(second);
      const [, url2] = await second.waitFor(/API:\s+(http:\/\/\S+)/);
      // The endpoint fails the first attempt, whenever it came: a second one means a retry ran after restart.
      await merchantSite
        .waitFor(() => merchantSite.for(orderId).length >= 2, 60_000)
        .catch((error: Error) => {
          throw new Error(`${error.message}\nruntime output:\n${second.output()}`);
        });
      const callbacks = merchantSite.for(orderId);
      expect(callbacks.every((c) => c.json.status === 'PAID')).toBe(true);
      expect(new Set(callbacks.map((c) => c.headers['webhook-id'])).size).toBe(1);
      // Nothing changed twice: the order is PAID once, at the version it was paid at.
      const after = (await (await fetch(`${url2}/v1/orders/${orderId}`, { headers: { token: demoToken } })).json()) as any;
      expect(after.order.status).toBe('PAID');
      expect(after.order.updated_at).toBe(paid.order.updated_at);
      const callbackLog = async () => ((await (await fetch(`${url2}/v1/orders/${orderId}/callbacks`, { headers: { token: demoToken } })).json()) as any).callbacks;
      const deadline = Date.now() + 10_000;
      while ((await callbackLog())[0]?.state !== 'DELIVERED' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const log = await callbackLog();
      expect(log).toHaveLength(1);
      expect(log[0].state).toBe('DELIVERED');
      expect(await second.stop('SIGINT')).toBe(0);
    } finally {
      await merchantSite.stop();
      stopLeftoverJava(crashDir);
      rmSync(crashDir, { recursive: true, force: true });
    }
  }, 120_000);
});
