import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, killGroup, runScript, sharedDynamoDb, startScript, type Started } from '../support/processes';
import { decodeIndependently } from '../support/bolt11-independent';
import { HyperionTestServer } from '../support/hyperion-server';
import { lightningAndEosEnv } from '../support/indexed-env';
import { LndTestServer } from '../support/lnd-server';

/**
 * `npm start` with LND_REST_URL (and its macaroon and certificate) and EOS_ACCOUNT with
 * EOS_HISTORY_URL watches Lightning and EOS in process: a live merchant's orders are paid by
 * settling the local LND server's real invoice and by an irreversible transfer in the local
 * Hyperion server's history, with nothing simulated.
 */
const ACCOUNT = 'localshoppay';
const dataDir = mkdtempSync(join(tmpdir(), 'indexed-watcher-e2e-'));
let runtime: Started | undefined;
let lnd: LndTestServer | undefined;
let hyperion: HyperionTestServer | undefined;

afterAll(async () => {
  if (runtime) killGroup(runtime.child);
  rmSync(dataDir, { recursive: true, force: true });
  await lnd?.stop();
  await hyperion?.stop();
});

describe('the local runtime watches Lightning and EOS', () => {
  it('a live LBTC order and a live EOS order go NEW -> PAID from the node and the chain history', { timeout: 90_000 }, async () => {
    lnd = await new LndTestServer().start();
    hyperion = await new HyperionTestServer({ start: Date.now() }).start();
    runtime = startScript('infra/local/start.ts', [], { PORT: '0', DATA_DIR: dataDir, WATCH_INTERVAL_SECONDS: '1', ...sharedDynamoDb(), ...lightningAndEosEnv(lnd, hyperion, ACCOUNT) });
    const [, url] = await runtime.waitFor(/API:\s+(http:\/\/\S+)/);
    await runtime.waitFor(/Ctrl-C stops everything/);
    expect(runtime.output()).toContain('Chain watchers: LBTC (lnd), EOS (hyperion)');

    const cli = await runScript('infra/local/merchant-cli.ts', ['create', '--name', 'Live Lightning and EOS'], { DATA_DIR: dataDir });
    expect(cli.code, cli.output).toBe(0);
    const { api_token: token } = JSON.parse(cli.output.trim().split('\n').at(-1)!);
    const order = async (currency: string) => {
      const created = await fetch(`${url}/v1/orders`, {
        method: 'POST',
        headers: { token, 'content-type': 'application/json' },
        body: JSON.stringify({ price_amount: 13, pay_currency: currency }),
      });
      expect(created.status, await created.clone().text()).toBe(200);
      const id = ((await created.json()) as any).order.order_id as string;
      const get = async () => (await (await fetch(`${url}/v1/orders/${id}`, { headers: { token } })).json()) as any;
      return { get, invoice: (await get()).invoice };
    };

    const lightning = await order('LBTC');
    expect(decodeIndependently(lightning.invoice.payment_address).payeeNodeKey).toBe(lnd.identityPubkey);
    lnd.settle(decodeIndependently(lightning.invoice.payment_address).paymentHash);
    expect((await eventually(lightning.get, (o) => o.order.status !== 'NEW')).order.status).toBe('PAID');

    const eos = await order('EOS');
    expect(eos.invoice).toMatchObject({ payment_address: ACCOUNT, memo: expect.any(String) });
    hyperion.transfer({ from: 'buyeraccount', to: ACCOUNT, quantity: `${eos.invoice.pay_amount.toFixed(4)} EOS`, memo: eos.invoice.memo });
    // Reversible: the order waits.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await eos.get()).order.status).toBe('NEW');
    hyperion.finalize();
    expect((await eventually(eos.get, (o) => o.order.status !== 'NEW')).order.status).toBe('PAID');

    expect(await runtime.stop('SIGINT')).toBe(0);
    runtime = undefined;
  });
});
