import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, killGroup, runScript, sharedDynamoDb, startScript, type Started } from '../support/processes';
import type { FaultyServer } from '../support/chain-http';
import { startEsploraServer } from '../support/esplora-server';
import { UtxoChain } from '../support/utxo-chain';
import { payTo, satsOf, testXpub } from '../support/watchers';

/**
 * `npm start` with BTC_ESPLORA_URL set watches BTC in process: a live merchant's order is
 * paid by a real transaction served by a local Esplora server, with nothing simulated.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'watcher-e2e-'));
let runtime: Started | undefined;
let esplora: FaultyServer | undefined;

afterAll(async () => {
  if (runtime) killGroup(runtime.child);
  rmSync(dataDir, { recursive: true, force: true });
  await esplora?.close();
});

describe('the local runtime watches the configured chains', () => {
  it('a live BTC order goes NEW -> PENDING -> PAID from real transactions on a local Esplora server', { timeout: 90_000 }, async () => {
    const chain = new UtxoChain('BTC');
    esplora = await startEsploraServer(chain);
    runtime = startScript('infra/local/start.ts', [], { PORT: '0', DATA_DIR: dataDir, BTC_ESPLORA_URL: esplora.url, WATCH_INTERVAL_SECONDS: '1', ...sharedDynamoDb() });
    const [, url] = await runtime.waitFor(/API:\s+(http:\/\/\S+)/);
    await runtime.waitFor(/Ctrl-C stops everything/);
    expect(runtime.output()).toContain('Chain watchers: BTC (esplora)');

    const cli = await runScript('infra/local/merchant-cli.ts', ['create', '--name', 'Live BTC', '--xpub', `BTC=${testXpub()}`], { DATA_DIR: dataDir });
    expect(cli.code, cli.output).toBe(0);
    const { api_token: token } = JSON.parse(cli.output.trim().split('\n').at(-1)!);
    const created = await fetch(`${url}/v1/orders`, {
      method: 'POST',
      headers: { token, 'content-type': 'application/json' },
      body: JSON.stringify({ price_amount: 65, pay_currency: 'BTC' }),
    });
    expect(created.status, await created.clone().text()).toBe(200);
    const orderId = ((await created.json()) as any).order.order_id;
    const get = async () => (await (await fetch(`${url}/v1/orders/${orderId}`, { headers: { token } })).json()) as any;
    const { invoice } = await get();

    // The watcher has recorded its cursor at the tip before we pay (it polls every second).
    await eventually(
      async () => esplora!.requests.get('/blocks/tip/hash') ?? 0,
      (n) => n >= 2,
    );
    payTo(chain, invoice.payment_address, satsOf(invoice.pay_amount));
    expect((await eventually(get, (o) => o.order.status !== 'NEW')).order.status).toBe('PENDING');
    chain.mine();
    chain.mineEmpty(1);
    expect((await eventually(get, (o) => o.order.status !== 'PENDING')).order.status).toBe('PAID');
    expect(await runtime.stop('SIGINT')).toBe(0);
    runtime = undefined;
  });
});
