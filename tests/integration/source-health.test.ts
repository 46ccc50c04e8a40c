/**
 * Fail closed when a source cannot see (issue 21, item 2): a live merchant's currency is
 * offered (checkout, the payment page) only while its source's health, as its watcher last
 * wrote it, is ok; an open invoice is kept. GET /v1/health shows every source, with nothing
 * secret in it. Sources are configured here (ETH and BTC, URLs nobody calls); the reports are
 * written as the watchers write them.
 */
import { randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureTable } from '#infra/local/dynamodb';
import { healthResponseSchema } from '#shared/schemas/health-responses';
import { RESPONSE_SCHEMAS } from '#shared/schemas/response-catalog';
import { createMerchant, type MerchantCredentials } from '#shared/services/merchants';
import { currencyState, forgetSourceHealth, sourceState } from '#shared/payments/source-health';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { sourceHealthKey } from '#shared/store/keys';
import { recordSourceHealth } from '#shared/store/source-health';
import { expectError, type TestApi, useTestApi } from '../support/api';
import { reportHealthy } from '../support/source-health';

// Read by the configuration on first use, which is after this. Secret-looking URLs: they must never show.
const ETH_URL = `http://user:s3cret-${randomUUID()}@127.0.0.1:9/`;
Object.assign(process.env, { ETH_RPC_URL: ETH_URL, BTC_ESPLORA_URL: 'http://127.0.0.1:9/esplora-secret-path/' });
// BIP32 test vector 1's m/44'/60'/0' account key would do; any valid xpub serves (addresses are only derived).
const XPUB = 'xpub6BosfCnifzxcFwrSzQiqu2DBVTshkCXacvNsWGYJVVhhawA7d4R5WSWGFNbi8Aw6ZRc1brxMyWMzG3DSSSSoekkudhUd9yLb6qx39T9nMdj';

let call: TestApi['call'];
let url: string;
let live: MerchantCredentials;
beforeAll(async () => {
  // This file's own table: other files report sources healthy in the shared one.
  const table = `source-health-${process.pid}`;
  await ensureTable(inject('dynamodbEndpoint'), table, { stream: false });
  process.env.TABLE_NAME = table;
  expect(tableName()).toBe(table);
});
useTestApi((api) => ({ call, url } = api));
beforeAll(async () => {
  live = await createMerchant({ name: 'Health Shop', sandbox: false, xpubs: { ETH: XPUB, BTC: XPUB } });
});

const LIMITS = { maxSilenceSeconds: 300, maxLagSeconds: 900 };
const ago = (seconds: number) => new Date(Date.now() - seconds * 1000).toISOString();

async function checkout(currency: string, merchant = live) {
  const created = await call('POST', '/v1/orders', { token: merchant.api_token, body: { price_amount: 10 } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  return { id, response: await call('POST', `/v1/orders/${id}/checkout`, { token: merchant.api_token, body: { pay_currency: currency } }) };
}

async function offered(orderId: string): Promise<string[]> {
  const page = await call('GET', `/v1/pay/${orderId}`);
  expect(page.status, page.text).toBe(200);
  return page.body.currencies;
}

describe('the state of a source', () => {
  const now = new Date();
  const base = { source: 'ETH', kind: 'ethereum-rpc', checked_at: now.toISOString(), last_success_at: now.toISOString(), caught_up_at: now.toISOString(), chain_ok: true };
  it('is unknown until its watcher reports; ok when it succeeded lately, caught up and on the right chain', () => {
    expect(sourceState(undefined, now, LIMITS)).toBe('unknown');
    expect(sourceState(base, now, LIMITS)).toBe('ok');
  });
  it('is wrong_chain, failing (no success within the silence limit) or lagging (not caught up within the lag limit)', () => {
    expect(sourceState({ ...base, chain_ok: false }, now, LIMITS)).toBe('wrong_chain');
    const before = (seconds: number) => new Date(now.getTime() - seconds * 1000).toISOString();
    expect(sourceState({ ...base, last_success_at: before(299) }, now, LIMITS)).toBe('ok');
    expect(sourceState({ ...base, last_success_at: before(301) }, now, LIMITS)).toBe('failing');
    expect(sourceState({ ...base, last_success_at: undefined }, now, LIMITS)).toBe('failing');
    expect(sourceState({ ...base, caught_up_at: before(899) }, now, LIMITS)).toBe('ok');
    expect(sourceState({ ...base, caught_up_at: before(901) }, now, LIMITS)).toBe('lagging');
  });
  it('a token failing on its own fails alone; its chain and the other token stay ok', () => {
    const records = new Map([['ETH', { ...base, currency_errors: { USDT_ERC20: 'decimals() answered 0x' } }]]);
    expect(['ETH', 'USDT_ERC20', 'USDC_ERC20'].map((code) => currencyState(code, records, now, LIMITS))).toEqual(['ok', 'failing', 'ok']);
    expect(currencyState('ALIPAY', records, now, LIMITS)).toBe('ok');
  });
});

describe('checkout and the payment page follow the health', () => {
  it('a source that never reported: PAYMENT_NOT_AVAILABLE, and the page does not offer it', async () => {
    const { id, response } = await checkout('BTC');
    expectError(response, 400, 'PAYMENT_NOT_AVAILABLE', 'unknown');
    expect(await offered(id)).not.toContain('BTC');
  });

  it('healthy: offered and checked out; a failing token is refused while ETH and USDC go on', async () => {
    await reportHealthy('ETH', 'ethereum-rpc', { currency_errors: { USDT_ERC20: 'USDT_ERC20 contract answered decimals() with 0x' } });
    const eth = await checkout('ETH');
    expect(eth.response.status, eth.response.text).toBe(200);
    expect((await checkout('USDC_ERC20')).response.status).toBe(200);
    expectError((await checkout('USDT_ERC20')).response, 400, 'PAYMENT_NOT_AVAILABLE', 'failing');
    const page = await offered(eth.id);
    expect(page).toEqual(expect.arrayContaining(['ETH', 'USDC_ERC20']));
    expect(page).not.toContain('USDT_ERC20');
  });

  it('wrong chain, silent or lagging: refused and not shown; the invoice already open stays as it was', async () => {
    await reportHealthy('ETH', 'ethereum-rpc');
    const open = await checkout('ETH');
    expect(open.response.status).toBe(200);
    const reports: (() => Promise<unknown>)[] = [
      // On another chain (chain id check failed).
      () => recordSourceHealth({ ok: true, source: 'ETH', kind: 'ethereum-rpc', checked_at: new Date().toISOString(), caught_up_at: new Date().toISOString(), chain_ok: false }),
      // Silent: its last success an hour ago, failures since (a failure keeps the last success).
      async () => {
        await db().send(new DeleteCommand({ TableName: tableName(), Key: sourceHealthKey('ETH') }));
        await recordSourceHealth({ ok: true, source: 'ETH', kind: 'ethereum-rpc', checked_at: ago(3600), caught_up_at: ago(3600), chain_ok: true });
        await recordSourceHealth({ ok: false, source: 'ETH', kind: 'ethereum-rpc', checked_at: new Date().toISOString(), error: 'timeout' });
      },
      // Answering, but not caught up with the tip for an hour.
      () => recordSourceHealth({ ok: true, source: 'ETH', kind: 'ethereum-rpc', checked_at: new Date().toISOString(), caught_up_at: ago(3600), chain_ok: true }),
    ];
    for (const report of reports) {
      await report();
      forgetSourceHealth();
      const refused = await checkout('ETH');
      expectError(refused.response, 400, 'PAYMENT_NOT_AVAILABLE');
      expect(await offered(refused.id)).not.toContain('ETH');
    }
    const kept = await call('GET', `/v1/orders/${open.id}`, { token: live.api_token });
    expect(kept.body.invoice).toMatchObject({ pay_currency: 'ETH', payment_address: open.response.body.invoice.payment_address });
  });

  it('sandbox merchants are never gated (nothing is watched for them)', async () => {
    const sandbox = await createMerchant({ name: 'Health Sandbox', sandbox: true });
    expect((await checkout('BTC', sandbox)).response.status).toBe(200);
  });
});

describe('GET /v1/health', () => {
  it('answers without a token: every configured source, states and times, valid against its schema, nothing secret', async () => {
    await recordSourceHealth({ ok: false, source: 'ETH', kind: 'ethereum-rpc', checked_at: new Date().toISOString(), error: `connect ECONNREFUSED ${ETH_URL}` });
    forgetSourceHealth();
    const response = await fetch(`${url}/v1/health`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text);
    const ajv = new Ajv2020({ strict: false, schemas: [...RESPONSE_SCHEMAS] });
    addFormats(ajv);
    expect(ajv.validate(healthResponseSchema.$id, body), JSON.stringify(ajv.errors)).toBe(true);
    expect(body.healthy).toBe(false);
    expect(body.sources.map((source: { source: string }) => source.source).sort()).toEqual(['BTC', 'ETH']);
    expect(body.sources.find((source: { source: string }) => source.source === 'BTC')).toMatchObject({ state: 'unknown', currencies: { BTC: 'unknown' } });
    expect(body.sources.find((source: { source: string }) => source.source === 'ETH').last_error_at).toEqual(expect.any(String));
    for (const secret of ['s3cret', '127.0.0.1', 'esplora-secret-path', 'ECONNREFUSED', 'Health Shop', 'user_id']) expect(text).not.toContain(secret);
  });
});
