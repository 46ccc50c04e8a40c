/**
 * What an operator (and later the portal) changes on a merchant (issue 20): named API tokens
 * that can be made, listed and revoked without downtime, disabling a merchant, settings with
 * their checks, the callback secret's roll, and the audit log of each, against the real
 * DynamoDB Local behind the local API adapter.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createApiToken, findMerchantByApiToken, INITIAL_TOKEN_ID, listApiTokens, MerchantNotFoundError, revokeApiToken, TokenNotFoundError } from '#shared/services/api-tokens';
import { auditLog, changeSettings, merchantProfiles, rollCallbackSecret, setDisabled, showSecret } from '#shared/services/merchants';
import { findMerchant, insertMerchant } from '#shared/store/merchants';
import { db, tableName } from '#shared/store/client';
import { apiTokenKey } from '#shared/store/keys';
import { MAX_API_TOKENS } from '#shared/domain/merchant';
import { newMerchant, type TestApi, useTestApi } from '../support/api';

const actor = { who: 'operator:test', from: 'cli@test' };
const hmac = (token: string) => createHmac('sha256', process.env.TOKEN_HMAC_KEY!).update(token, 'utf8').digest('hex');
// BIP32 test vector 1's m/84'/0'/0' account key and its first receive address (BIP84's test vectors).
const BIP84_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const BIP84_FIRST = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';

let call: TestApi['call'];
useTestApi((api) => {
  call = api.call;
});

/** Polls until `check` holds (revocation reaches warm functions within their auth cache's seconds). */
async function eventually(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return check();
}

describe('named API tokens', () => {
  it('lists the first token as "default" and a new one beside it; both work; neither is stored in clear', async () => {
    const merchant = await newMerchant(true, 'Two Tokens Shop');
    const made = await createApiToken(merchant.user_id, 'checkout server', actor);
    expect(made.api_token).not.toBe(merchant.api_token);
    expect(Buffer.from(made.api_token, 'base64url')).toHaveLength(32);
    const list = await listApiTokens(merchant.user_id);
    expect(list.map((token) => token.name)).toEqual(['default', 'checkout server']);
    expect(list[1]).toMatchObject({ token_id: made.token_id, prefix: made.api_token.slice(0, 6) });
    expect(JSON.stringify(list)).not.toContain(made.api_token);
    expect(JSON.stringify(list)).not.toContain(hmac(made.api_token));
    // Stored only as the keyed hash.
    const item = (await db().send(new GetCommand({ TableName: tableName(), Key: apiTokenKey(hmac(made.api_token)) }))).Item;
    expect(item).toMatchObject({ token_id: made.token_id, merchant: { user_id: merchant.user_id } });
    expect(JSON.stringify(item)).not.toContain(made.api_token);
    for (const token of [merchant.api_token, made.api_token]) {
      expect((await call('GET', '/v1/orders', { token })).status).toBe(200);
    }
  });

  it('rotates without downtime: the new token works before the old one is revoked, the old one is refused after', async () => {
    const merchant = await newMerchant(true, 'Rotating Shop');
    expect((await call('GET', '/v1/orders', { token: merchant.api_token })).status).toBe(200);
    const next = await createApiToken(merchant.user_id, 'rotated', actor);
    expect((await call('POST', '/v1/orders', { token: next.api_token, body: { price_amount: 1, price_currency: 'USD' } })).status).toBe(200);
    const [first] = await listApiTokens(merchant.user_id);
    await revokeApiToken(merchant.user_id, first!.token_id, actor);
    // Refused at once where it is not cached, and within the cache's seconds where it was.
    expect(await findMerchantByApiToken(merchant.api_token, hmac(merchant.api_token))).toBeUndefined();
    expect(await eventually(async () => (await call('GET', '/v1/orders', { token: merchant.api_token })).status === 401)).toBe(true);
    expect((await call('GET', '/v1/orders', { token: next.api_token })).status).toBe(200);
    expect((await listApiTokens(merchant.user_id)).map((token) => token.token_id)).toEqual([next.token_id]);
    expect((await findMerchant(merchant.user_id))!.token_hash).toBeUndefined();
  });

  it('records when a token was last used', async () => {
    const merchant = await newMerchant(true, 'Last Used Shop');
    const made = await createApiToken(merchant.user_id, 'reporting', actor);
    expect((await listApiTokens(merchant.user_id)).find((token) => token.token_id === made.token_id)!.last_used_at).toBeUndefined();
    const before = Date.now();
    expect((await call('GET', '/v1/orders', { token: made.api_token })).status).toBe(200);
    const used = (await listApiTokens(merchant.user_id)).find((token) => token.token_id === made.token_id)!;
    expect(Date.parse(used.last_used_at!)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("refuses an unknown token id, another merchant's token, a bad name and more than the bound", async () => {
    const owner = await newMerchant(true, 'Owner Shop');
    const other = await newMerchant(true, 'Other Shop');
    const made = await createApiToken(owner.user_id, 'mine', actor);
    await expect(revokeApiToken(other.user_id, made.token_id, actor)).rejects.toBeInstanceOf(TokenNotFoundError);
    await expect(revokeApiToken(owner.user_id, 'tok_000000000000', actor)).rejects.toBeInstanceOf(TokenNotFoundError);
    expect((await call('GET', '/v1/orders', { token: made.api_token })).status).toBe(200);
    await expect(createApiToken(owner.user_id, '', actor)).rejects.toThrow(/name/);
    await expect(createApiToken(owner.user_id, 'x'.repeat(65), actor)).rejects.toThrow(/name/);
    await expect(createApiToken(987_654_321, 'nobody', actor)).rejects.toBeInstanceOf(MerchantNotFoundError);
    // Two tokens so far (default and mine): fill up to the bound, then one more is refused.
    for (let index = 2; index < MAX_API_TOKENS; index += 1) await createApiToken(owner.user_id, `t${index}`, actor);
    await expect(createApiToken(owner.user_id, 'one too many', actor)).rejects.toThrow(/at most 20/);
    await revokeApiToken(owner.user_id, made.token_id, actor);
    await expect(revokeApiToken(owner.user_id, made.token_id, actor)).rejects.toBeInstanceOf(TokenNotFoundError);
    expect((await createApiToken(owner.user_id, 'room again', actor)).name).toBe('room again');
  });

  it('lists and revokes the first token of a merchant stored before tokens had names', async () => {
    const token = `legacy-shop-token-${Date.now()}`;
    const legacy = await insertMerchant({
      name: 'Before Names Shop',
      sandbox: true,
      receive_currency: 'USD',
      gateways: [],
      created_at: new Date().toISOString(),
      token_hash: hmac(token),
      callback_secret: 'whsec_YmVmb3JlLW5hbWVzLXNob3AtY2FsbGJhY2stc2VjcmV0',
    });
    expect((await call('GET', '/v1/orders', { token })).status).toBe(200);
    const list = await listApiTokens(legacy.user_id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ token_id: INITIAL_TOKEN_ID, name: 'initial' });
    expect(list[0]!.last_used_at).toBeDefined();
    const added = await createApiToken(legacy.user_id, 'named', actor);
    await revokeApiToken(legacy.user_id, INITIAL_TOKEN_ID, actor);
    expect(await findMerchantByApiToken(token, hmac(token))).toBeUndefined();
    expect((await listApiTokens(legacy.user_id)).map((entry) => entry.token_id)).toEqual([added.token_id]);
  });
});

describe('disabling a merchant', () => {
  it('refuses its tokens within seconds and accepts them again when enabled; its orders are kept', async () => {
    const merchant = await newMerchant(true, 'Disabled Shop');
    const created = await call('POST', '/v1/orders', { token: merchant.api_token, body: { price_amount: 2, price_currency: 'USD' } });
    const orderId = created.body.order.order_id as string;
    expect((await setDisabled(merchant.user_id, true, actor)).disabled).toBe(true);
    expect(await eventually(async () => (await call('GET', '/v1/orders', { token: merchant.api_token })).status === 401)).toBe(true);
    const refused = await call('GET', `/v1/orders/${orderId}`, { token: merchant.api_token });
    expect(refused.body).toMatchObject({ status: 401, error_code: 'AUTHENTICATION_FAILED', error: 'The merchant account is disabled' });
    await setDisabled(merchant.user_id, false, actor);
    expect(await eventually(async () => (await call('GET', `/v1/orders/${orderId}`, { token: merchant.api_token })).status === 200)).toBe(true);
    expect((await merchantProfiles()).find((profile) => profile.user_id === merchant.user_id)).toMatchObject({ disabled: false });
  });
});

describe('settings', () => {
  it('checks an extended public key and shows its first addresses before it applies', async () => {
    const merchant = await newMerchant(false, 'Key Shop');
    const changed = await changeSettings(merchant.user_id, { xpubs: { BTC: BIP84_ZPUB }, callbackStatuses: 'all', receiveCurrency: 'USDT' }, actor);
    expect(changed.addresses.BTC![0]).toBe(BIP84_FIRST);
    expect(changed.addresses.BTC).toHaveLength(3);
    expect(changed.merchant).toMatchObject({ callback_statuses: 'all', receive_currency: 'USDT', xpubs: { BTC: BIP84_ZPUB } });
    // An xprv, a key of another network and garbage are refused; nothing changes.
    const xprv = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
    for (const key of [xprv, 'Ltub2SSUS19CirucWFod2ZsYA2J4v4U76YiCXHdcQttnoiy5aGanFHCPDBX7utfG6f95u1cUbZJNafmvzNCzZZJTw1EmyFoL8u1gJbGM8ipu491', 'not-a-key']) {
      await expect(changeSettings(merchant.user_id, { xpubs: { BTC: key } }, actor)).rejects.toThrow();
    }
    expect((await findMerchant(merchant.user_id))!.xpubs).toEqual({ BTC: BIP84_ZPUB });
    await expect(changeSettings(merchant.user_id, { receiveCurrency: 'DOGE' }, actor)).rejects.toThrow(/receive currency/);
    await expect(changeSettings(merchant.user_id, { callbackStatuses: 'some' }, actor)).rejects.toThrow(/callback statuses/);
    await expect(changeSettings(merchant.user_id, {}, actor)).rejects.toThrow(/nothing/);
    // Removing a key: an empty value.
    expect((await changeSettings(merchant.user_id, { xpubs: { BTC: '' } }, actor)).merchant.xpubs).toEqual({});
  });
});

describe('the callback secret', () => {
  it('rolls with an overlap: both secrets shown until it ends; a concurrent roll is refused', async () => {
    const merchant = await newMerchant(true, 'Rolling Secret Shop');
    const rolled = await rollCallbackSecret(merchant.user_id, 2, actor);
    expect(rolled.callback_secret).toMatch(/^whsec_/);
    expect(rolled.callback_secret).not.toBe(merchant.callback_secret);
    expect(await showSecret(merchant.user_id)).toEqual({
      callback_secret: rolled.callback_secret,
      previous_callback_secret: merchant.callback_secret,
      previous_valid_until: rolled.previous_valid_until,
    });
    const again = await rollCallbackSecret(merchant.user_id, 0, actor);
    expect(await showSecret(merchant.user_id)).toEqual({ callback_secret: again.callback_secret });
    await expect(rollCallbackSecret(merchant.user_id, -1, actor)).rejects.toThrow(/overlap/);
  });
});

describe('the audit log', () => {
  it('records every change with who, when and from where, newest first, and never a token or secret', async () => {
    const merchant = await newMerchant(true, 'Audited Shop');
    const made = await createApiToken(merchant.user_id, 'audited', actor);
    await revokeApiToken(merchant.user_id, made.token_id, actor);
    const rolled = await rollCallbackSecret(merchant.user_id, 1, actor);
    await changeSettings(merchant.user_id, { callbackStatuses: 'all' }, actor);
    await setDisabled(merchant.user_id, true, actor);
    await setDisabled(merchant.user_id, false, actor);
    const entries = await auditLog(merchant.user_id);
    expect(entries.map((entry) => entry.action)).toEqual(['merchant.enabled', 'merchant.disabled', 'settings.changed', 'callback_secret.rolled', 'token.revoked', 'token.created', 'merchant.created']);
    expect(entries[0]).toMatchObject({ who: 'operator:test', from: 'cli@test' });
    expect(entries.find((entry) => entry.action === 'token.created')!.details).toEqual({ token_id: made.token_id, name: 'audited' });
    const text = JSON.stringify(entries);
    for (const secret of [made.api_token, merchant.api_token, rolled.callback_secret, merchant.callback_secret]) expect(text).not.toContain(secret);
    // Pages: the two newest, then the ones before the second.
    const page = await auditLog(merchant.user_id, 2);
    expect((await auditLog(merchant.user_id, 2, page[1]!.at)).map((entry) => entry.action)[0]).not.toBe(page[1]!.action);
  });
});
