/**
 * API tokens are stored as HMAC-SHA256 under the server's key (issue 14, item 6): a merchant's
 * chosen token is not in the table as anything a guess can be checked against without the
 * key; merchants stored before (plain SHA-256) still authenticate and are upgraded on first
 * use. The HMAC is recomputed here with node:crypto from the test key, independently of the
 * service's code.
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { apiTokenKey, merchantKey } from '#shared/store/keys';
import { findMerchant, insertMerchant } from '#shared/store/merchants';
import { client, expectError, newMerchant, startApi } from '../support/api';

const key = process.env.TOKEN_HMAC_KEY!;
const hmac = (token: string) => createHmac('sha256', key).update(token, 'utf8').digest('hex');
const sha256 = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
const tokenItem = async (hash: string) => (await db().send(new GetCommand({ TableName: tableName(), Key: apiTokenKey(hash) }))).Item;

/** A merchant as versions before keyed tokens stored it: its token item under the plain SHA-256. */
const insertLegacyMerchant = (name: string, token: string) =>
  insertMerchant({
    name,
    sandbox: true,
    receive_currency: 'USD',
    gateways: [],
    created_at: new Date().toISOString(),
    token_hash: sha256(token),
    callback_secret: 'whsec_bGVnYWN5LXRva2VuLXNob3AtY2FsbGJhY2stc2VjcmV0',
  });

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;

beforeAll(async () => {
  api = await startApi();
  call = client(api.url);
});
afterAll(() => api.close());

describe('API tokens at rest', () => {
  it('stores a chosen token as its HMAC under the server key, never as its plain SHA-256', async () => {
    const token = `short-chosen-${randomUUID().slice(0, 8)}`;
    const created = await newMerchant(true, 'Chosen Token Shop', { apiToken: token });
    expect(created.api_token).toBe(token);
    const merchant = await findMerchant(created.user_id);
    expect(merchant!.token_hash).toBe(hmac(token));
    expect(merchant!.token_hash).not.toBe(sha256(token));
    expect(await tokenItem(hmac(token))).toMatchObject({ token_hash: hmac(token), merchant: { user_id: created.user_id } });
    expect(await tokenItem(sha256(token))).toBeUndefined();
    expect((await call('GET', '/v1/orders', { token })).status).toBe(200);
  });

  it('keeps generated tokens 256-bit random', async () => {
    const created = await newMerchant(true, 'Generated Token Shop');
    expect(Buffer.from(created.api_token, 'base64url')).toHaveLength(32);
    expect((await findMerchant(created.user_id))!.token_hash).toBe(hmac(created.api_token));
  });

  it('authenticates a merchant stored with the legacy SHA-256 and upgrades it to the HMAC on first use', async () => {
    const token = `legacy-token-${randomUUID()}`;
    const legacy = await insertLegacyMerchant('Legacy Token Shop', token);
    expect(await tokenItem(sha256(token))).toBeDefined();

    // The first request with the old token works and stores its HMAC in place of the SHA-256.
    const first = await call('POST', '/v1/orders', { token, body: { price_amount: 3 } });
    expect(first.status, first.text).toBe(200);
    expect(first.body.order.user_id).toBe(legacy.user_id);

    expect(await tokenItem(sha256(token))).toBeUndefined();
    expect(await tokenItem(hmac(token))).toMatchObject({ token_hash: hmac(token), merchant: { user_id: legacy.user_id } });
    const stored = await db().send(new GetCommand({ TableName: tableName(), Key: merchantKey(legacy.user_id) }));
    expect(stored.Item!.token_hash).toBe(hmac(token));

    const again = await call('GET', `/v1/orders/${first.body.order.order_id}`, { token });
    expect(again.status, again.text).toBe(200);
  });

  it('a read route authenticates a legacy token without upgrading it (its role may not write it); the next write route does', async () => {
    const token = `legacy-token-${randomUUID()}`;
    const legacy = await insertLegacyMerchant('Legacy Reader Shop', token);

    const listed = await call('GET', '/v1/orders', { token });
    expect(listed.status, listed.text).toBe(200);
    expect(await tokenItem(sha256(token))).toBeDefined();
    expect(await tokenItem(hmac(token))).toBeUndefined();

    const created = await call('POST', '/v1/orders', { token, body: { price_amount: 3 } });
    expect(created.status, created.text).toBe(200);
    expect(created.body.order.user_id).toBe(legacy.user_id);
    expect(await tokenItem(sha256(token))).toBeUndefined();
    expect(await tokenItem(hmac(token))).toMatchObject({ token_hash: hmac(token) });
  });

  it('refuses a token that matches neither hash, and a legacy hash sent as the token', async () => {
    const token = `legacy-token-${randomUUID()}`;
    await insertLegacyMerchant('Legacy Token Shop 2', token);
    expectError(await call('GET', '/v1/orders', { token: `${token}x` }), 401, 'AUTHENTICATION_FAILED');
    expectError(await call('GET', '/v1/orders', { token: sha256(token) }), 401, 'AUTHENTICATION_FAILED');
    // Neither attempt upgraded anything.
    expect(await tokenItem(sha256(token))).toBeDefined();
    expect(await tokenItem(hmac(token))).toBeUndefined();
  });
});
