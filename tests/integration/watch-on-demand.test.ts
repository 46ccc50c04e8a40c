/**
 * Pay-per-use watching (issue 21, item 1): a chain with no open invoice and nothing maturing is
 * not polled; its scheduled run looks once at the tip (the cursor moves there, no block is read,
 * the source's health stays fresh) and stops. A live merchant's checkout keeps the chain watched
 * until WATCH_GRACE_SECONDS after the invoice expires; the next run polls, and books the payment.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import { deriveAddress } from '#shared/payments/addresses/index';
import { createMerchant } from '#shared/services/merchants';
import { readCursor } from '#shared/store/chain-cursors';
import { tableName } from '#shared/store/client';
import { listSourceHealth } from '#shared/store/source-health';
import { watchingNeeded } from '#shared/store/watch-demand';
import { client, startApi } from '../support/api';
import type { FaultyServer } from '../support/chain-http';
import { startEsploraServer } from '../support/esplora-server';
import { UtxoChain } from '../support/utxo-chain';
import { keptTicks, invokeWatcherOnce } from '../support/stepped';
import { satsOf, stored, testXpub } from '../support/watchers';

const chain = new UtxoChain('BTC');
let esplora: FaultyServer;
let api: Awaited<ReturnType<typeof startApi>>;

beforeAll(async () => {
  const table = `watch-on-demand-${process.pid}`;
  await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
  process.env.TABLE_NAME = table;
  expect(tableName()).toBe(table);
  esplora = await startEsploraServer(chain);
  // Read on first use, after this: BTC watched through this server, one-second polls.
  Object.assign(process.env, { BTC_ESPLORA_URL: esplora.url, BTC_CONFIRMATIONS: '1', WATCH_INTERVAL_SECONDS: '1' });
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
  await esplora?.close();
});

const blockReads = () => [...esplora.requests].filter(([path]) => /\/block\/[0-9a-f]{64}\//.test(path)).reduce((sum, [, n]) => sum + n, 0);
const oneRun = (now = new Date(), ticks = keptTicks()) => invokeWatcherOnce('BTC', undefined, { now, send: ticks.send });
const sourceRequests = () => [...esplora.requests.values()].reduce((sum, n) => sum + n, 0);

describe('a chain nobody needs', () => {
  it('is looked at once per run: the cursor moves to the tip without reading a block, the health stays fresh', async () => {
    chain.mineEmpty(3);
    expect(await watchingNeeded('BTC', new Date())).toBe(false);
    const first = new Date();
    expect(await oneRun(first)).toMatchObject({ steps: 1, failures: 0, idle: true });
    chain.mineEmpty(40);
    const before = blockReads();
    // The next look after WATCH_IDLE_LOOK_SECONDS (170 s by default).
    expect(await oneRun(new Date(first.getTime() + 171_000))).toMatchObject({ steps: 1, idle: true });
    expect(blockReads()).toBe(before);
    expect((await readCursor('BTC'))?.height).toBe(chain.tip.height);
    // Its look is the source's health report (written when it changes, at least once a minute).
    expect((await listSourceHealth()).find((record) => record.source === 'BTC')).toMatchObject({ kind: 'esplora', last_success_at: expect.any(String) });
  });

  it('is not looked at again within WATCH_IDLE_LOOK_SECONDS: those runs check the demand only, and ask the source nothing', async () => {
    const looked = new Date(Date.now() + 400_000);
    expect(await oneRun(looked)).toMatchObject({ steps: 1, idle: true });
    const health = (await listSourceHealth()).find((record) => record.source === 'BTC');
    const requests = sourceRequests();
    for (const later of [60_000, 120_000, 169_000]) {
      expect(await oneRun(new Date(looked.getTime() + later))).toEqual({ steps: 0, failures: 0, idle: true, rested: true });
    }
    expect(sourceRequests()).toBe(requests);
    expect((await listSourceHealth()).find((record) => record.source === 'BTC')).toEqual(health);
    expect(await oneRun(new Date(looked.getTime() + 170_000))).toMatchObject({ steps: 1, idle: true });
    expect(sourceRequests()).toBeGreaterThan(requests);
  });
});

describe('a checkout wakes the chain', () => {
  it('a live invoice makes the next run step the chain and send its next step to the timer, and its payment is booked', async () => {
    const xpub = testXpub();
    const merchant = await createMerchant({ name: 'On Demand Shop', sandbox: false, xpubs: { BTC: xpub } });
    // The source reports healthy (the idle run above), so BTC is offered.
    const call = client(api.url);
    const created = await call('POST', '/v1/orders', { token: merchant.api_token, body: { price_amount: 65, pay_currency: 'BTC' } });
    expect(created.status, created.text).toBe(200);
    expect(await watchingNeeded('BTC', new Date())).toBe(true);
    const id = created.body.order.order_id as string;
    const { invoice } = (await call('GET', `/v1/orders/${id}`, { token: merchant.api_token })).body;
    expect([deriveAddress('BTC', xpub, 0), deriveAddress('BTC', xpub, 1)]).toContain(invoice.payment_address);
    chain.pay([{ address: invoice.payment_address, sats: satsOf(invoice.pay_amount) }]);
    chain.mine();
    const ticks = keptTicks();
    const run = await oneRun(new Date(), ticks);
    expect(run).not.toHaveProperty('idle');
    expect(run.steps).toBeGreaterThanOrEqual(1);
    expect((await stored(id)).order.status).toBe('PAID');
    // Caught up: the next step in WATCH_INTERVAL_SECONDS (1 here), on the line that now holds the chain.
    expect(ticks.sent).toEqual([{ tick: expect.objectContaining({ source: 'watch-tick', chain: 'BTC', failures: 0 }), delaySeconds: 1 }]);
  });
});
