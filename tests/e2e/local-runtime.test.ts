import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, killGroup, runScript, startScript, stopLeftoverJava, type Started } from '../support/processes';
import { MerchantEndpoint } from '../support/merchant-endpoint';

const dataDir = mkdtempSync(join(tmpdir(), 'runtime-e2e-'));
const demoToken = `demo-token-${'x'.repeat(20)}`;
const running: Started[] = [];

afterAll(() => {
  for (const started of running) killGroup(started.child);
  stopLeftoverJava(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(env: Record<string, string> = {}) {
  // No TOKEN_HMAC_KEY from the test setup: the runtime keys tokens with its DATA_DIR key file, as for a user.
  const started = startScript('infra/local/start.ts', [], { PORT: '0', DATA_DIR: dataDir, TOKEN_HMAC_KEY: '', ...env });
  running.push(started);
  const [, url] = await started.waitFor(/API:\s+(http:\/\/\S+)/);
  await started.waitFor(/Ctrl-C stops everything/);
  return { started, url: url! };
}

const post = (url: string, token: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('npm start (the local runtime as a user runs it)', () => {
  let orderId = '';

  it('serves the API with the demo token, prints a curl example, and the merchant CLI adds merchants', async () => {
    const { started, url } = await start({ DEMO_API_TOKEN: demoToken });
    expect(started.output()).toContain(`Demo API token: ${demoToken}`);
    expect(started.output()).toContain(`curl -s -X POST ${url}/v1/orders`);
    const javaPid = Number(readFileSync(join(dataDir, 'dynamodb.pid'), 'utf8'));
    expect(isAlive(javaPid)).toBe(true);

    const created = await post(`${url}/v1/orders`, demoToken, { price_amount: 9.99, title: 'E2E' });
    expect(created.status).toBe(200);
    const body = (await created.json()) as any;
    orderId = body.order.order_id;
    expect(body.payment_url).toBe(`${url}/pay/?id=${orderId}`);

    // The token key was made on first use in DATA_DIR, readable by its owner only.
    expect(statSync(join(dataDir, 'token-hmac.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, 'token-hmac.key'), 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);

    const cli = await runScript('infra/local/merchant-cli.ts', ['create', '--name', 'CLI Shop', '--sandbox'], { DATA_DIR: dataDir, TOKEN_HMAC_KEY: '' });
    expect(cli.code, cli.output).toBe(0);
    const line = cli.output.trim().split('\n').at(-1)!;
    const credentials = JSON.parse(line);
    expect(Object.keys(credentials)).toEqual(['user_id', 'api_token', 'callback_secret', 'portal_invite']);
    // The first portal user's one-time link, on the runtime's portal (localhost: passkeys need a domain).
    expect(credentials.portal_invite).toMatch(new RegExp(`^http://localhost:${new URL(url).port}/portal/#/invite/[A-Za-z0-9_-]{43}$`));
    expect(credentials.callback_secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const theirs = await post(`${url}/v1/orders`, credentials.api_token, { price_amount: 1 });
    expect(theirs.status).toBe(200);

    // Ctrl-C stops everything it started, the Java child included.
    expect(await started.stop('SIGINT')).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isAlive(javaPid)).toBe(false);
  });

  it('keeps data across restarts in DATA_DIR and reuses the demo merchant', async () => {
    const { started, url } = await start();
    expect(started.output()).toContain(`Demo API token: ${demoToken}`);
    const response = await fetch(`${url}/v1/orders/${orderId}`, { headers: { token: demoToken } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).order.title).toBe('E2E');
    expect(await started.stop('SIGTERM')).toBe(0);
  });

  it('the merchant CLI explains what is wrong when no runtime runs', async () => {
    const cli = await runScript('infra/local/merchant-cli.ts', ['create', '--name', 'X'], { DATA_DIR: dataDir });
    expect(cli.code).toBe(2);
    expect(cli.output).toContain('npm start');
    const usage = await runScript('infra/local/merchant-cli.ts', ['delete'], { DATA_DIR: dataDir });
    expect(usage.code).toBe(2);
    expect(usage.output).toContain('usage:');
  });
});

describe('expiry in the local runtime (short windows)', () => {
  it('expires checked-out and never-checked-out orders on its timer; a late payment is PAID_LATE', async () => {
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
      const status = async (id: string) =>
        ((await (await fetch(`${url}/v1/orders/${id}`, { headers: { token: demoToken } })).json()) as any).order.status;
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
  });
});

describe('crash safety of callbacks', () => {
  it('a runtime killed (SIGKILL) between a status change and its delivery delivers after restart', async () => {
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
      await merchantSite.waitFor(() => merchantSite.for(orderId).length >= 2, 60_000).catch((error: Error) => {
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
