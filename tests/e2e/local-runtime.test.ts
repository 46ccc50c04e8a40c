import { afterAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive, killGroup, runScript, startScript, stopLeftoverJava, type Started } from '../support/processes';
import { demoToken, post } from '../support/local-runtime';
import { startLocalRuntime } from '../support/portal-page';
import { testXpub } from '../support/watchers';
import { deriveAddress } from '#shared/payments/addresses/index';
import { newSolanaReference } from '#shared/payments/addresses/solana';
import { db } from '#shared/store/client';
import { orderKey } from '#shared/store/keys';

const dataDir = mkdtempSync(join(tmpdir(), 'runtime-e2e-'));
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

describe('npm start (the local runtime as a user runs it)', { timeout: 120_000 }, () => {
  let orderId = '';

  it('serves the API with the demo token, prints a curl example, and the merchant CLI adds merchants', async () => {
    const { started, url } = await start({ DEMO_API_TOKEN: demoToken });
    expect(started.output()).toContain(`Demo API token: ${demoToken}`);
    expect(started.output()).toContain(`curl -s -X POST ${url}/v1/orders`);
    const javaPid = Number(readFileSync(join(dataDir, 'dynamodb.pid'), 'utf8'));
    expect(isAlive(javaPid)).toBe(true);
    // DynamoDB Local runs with its telemetry to AWS off, and the quick compiler only.
    const javaEnv = readFileSync(`/proc/${javaPid}/environ`, 'utf8').split('\0');
    expect(javaEnv).toContain('DDB_LOCAL_TELEMETRY=0');
    expect(javaEnv.find((variable) => variable.startsWith('JDK_JAVA_OPTIONS='))).toContain('-XX:TieredStopAtLevel=1');

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

    // A pay currency names its key: USDT_TRC20= is the TRON key, USDC_BASE= the ETH key; USDC_SOL= the Solana wallet.
    const tronKey = testXpub("m/44'/195'/0'");
    const ethKey = testXpub("m/44'/60'/0'");
    const solWallet = newSolanaReference(); // any 32 bytes in base58 is a wallet address
    const keyed = await runScript(
      'infra/local/merchant-cli.ts',
      ['create', '--name', 'Keys Shop', '--sandbox', '--xpub', `USDT_TRC20=${tronKey}`, '--xpub', `USDC_BASE=${ethKey}`, '--wallet', `USDC_SOL=${solWallet}`],
      {
        DATA_DIR: dataDir,
        TOKEN_HMAC_KEY: '',
      },
    );
    expect(keyed.code, keyed.output).toBe(0);
    const keyShop = JSON.parse(keyed.output.trim().split('\n').at(-1)!);
    for (const [currency, address] of [
      ['USDT_TRC20', deriveAddress('TRX', tronKey, 0)],
      ['USDC_BASE', deriveAddress('ETH', ethKey, 0)],
      ['USDC_SOL', solWallet],
    ]) {
      const made = (await (await post(`${url}/v1/orders`, keyShop.api_token, { price_amount: 1, pay_currency: currency })).json()) as any;
      const got = (await (await fetch(`${url}/v1/orders/${made.order.order_id}`, { headers: { token: keyShop.api_token } })).json()) as any;
      expect(got.invoice.payment_address).toBe(address);
    }

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

  it('uses a DynamoDB already running when DYNAMODB_ENDPOINT is set: no Java of its own, its table made there', async () => {
    const ownDir = mkdtempSync(join(tmpdir(), 'runtime-e2e-endpoint-'));
    const table = `runtime-e2e-${randomUUID()}`;
    try {
      // The helper sets DYNAMODB_ENDPOINT to the run's DynamoDB Local; the table is named here to read it back.
      const { runtime: started, api: url, token } = await startLocalRuntime(ownDir, { TABLE_NAME: table });
      running.push(started);
      expect(existsSync(join(ownDir, 'dynamodb.pid'))).toBe(false);
      const created = (await (await post(`${url}/v1/orders`, token, { price_amount: 3, title: 'Elsewhere' })).json()) as any;
      const stored = await db().send(new GetCommand({ TableName: table, Key: orderKey(created.order.order_id) }));
      expect(stored.Item).toMatchObject({ title: 'Elsewhere', price_amount: '3' });
      expect(await started.stop('SIGTERM')).toBe(0);
    } finally {
      rmSync(ownDir, { recursive: true, force: true });
    }
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
