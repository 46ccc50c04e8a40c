/**
 * The portal's account routes (API tokens, callback secret, payment settings, audit log, team)
 * as an attacker would try them, and as a merchant uses them. Merchant A has an owner, a
 * developer and a viewer; merchant B an owner. Every new route is tried by every role; another
 * merchant's token or member answers like a missing one; a removed member's session and a
 * disabled merchant's sessions are refused at once; no route answers 5xx for fuzzed input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#shared/http/routes';
import { setDisabled } from '#shared/services/merchants';
import { client, newMerchant, startApi } from '../support/api';
import { PortalBrowser, signedInUser } from '../support/portal';

const BIP84_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';
const BIP84_FIRST = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
const XPRV = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
const LTUB = 'Ltub2SSUS19CirucWFod2ZsYA2J4v4U76YiCXHdcQttnoiy5aGanFHCPDBX7utfG6f95u1cUbZJNafmvzNCzZZJTw1EmyFoL8u1gJbGM8ipu491';

let api: Awaited<ReturnType<typeof startApi>>;
let call: ReturnType<typeof client>;
let origin: string;
let a: { userId: number; token: string; owner: PortalBrowser; developer: PortalBrowser; viewer: PortalBrowser };
let b: { userId: number; owner: PortalBrowser };

/** The routes this file is about (the account and team), each with a body that would succeed. */
const ACCOUNT_FNS = new Set([
  'portal-list-tokens',
  'portal-create-token',
  'portal-revoke-token',
  'portal-show-secret',
  'portal-roll-secret',
  'portal-get-settings',
  'portal-preview-keys',
  'portal-change-settings',
  'portal-audit-log',
  'portal-list-team',
  'portal-invite-member',
  'portal-change-role',
  'portal-remove-member',
]);
const ACCOUNT_ROUTES = ROUTES.filter((route) => route.portal && ACCOUNT_FNS.has(route.fn));
const TEAM_FNS = new Set(['portal-list-team', 'portal-invite-member', 'portal-change-role', 'portal-remove-member']);

const VALID_BODY: Record<string, unknown> = {
  'portal-create-token': { name: 'matrix' },
  'portal-roll-secret': { overlap_hours: 1 },
  'portal-preview-keys': { xpubs: { BTC: BIP84_ZPUB } },
  'portal-change-settings': { callback_statuses: 'paid' },
  'portal-invite-member': { name: 'Matrix', role: 'viewer' },
  'portal-change-role': { role: 'viewer' },
};

beforeAll(async () => {
  api = await startApi();
  call = client(api.url);
  origin = `http://localhost:${new URL(api.url).port}`;
  Object.assign(process.env, { PORTAL_ORIGIN: origin, PORTAL_CLIENT_IP_HEADER: 'x-test-client' });
  const merchantA = await newMerchant(true, 'Shop A');
  const merchantB = await newMerchant(false, 'Shop B');
  a = {
    userId: merchantA.user_id,
    token: merchantA.api_token,
    owner: (await signedInUser(api.url, origin, merchantA.user_id, 'owner')).browser,
    developer: (await signedInUser(api.url, origin, merchantA.user_id, 'developer')).browser,
    viewer: (await signedInUser(api.url, origin, merchantA.user_id, 'viewer')).browser,
  };
  b = { userId: merchantB.user_id, owner: (await signedInUser(api.url, origin, merchantB.user_id)).browser };
});
afterAll(() => api.close());

const order = (token: string) => call('POST', '/v1/orders', { token, body: { price_amount: 3, price_currency: 'USD', title: 'Portal account test' } });

/** A fresh member of `merchantId` (so a test's removals and role changes touch nobody else's). */
async function member(merchantId: number, role: 'owner' | 'developer' | 'viewer') {
  const { browser } = await signedInUser(api.url, origin, merchantId, role);
  const session = await browser.call('GET', '/v1/portal/session');
  return { browser, id: session.body.user.user_id as string };
}

describe('every account route and role', () => {
  it('owners may do everything, developers all but the team, viewers none of it (403 ROLE_REFUSED before anything is read)', async () => {
    const spare = await member(a.userId, 'viewer');
    const token = await a.owner.call('POST', '/v1/portal/tokens', { body: { name: 'matrix target' } });
    expect(token.status).toBe(200);
    const failures: string[] = [];
    for (const route of ACCOUNT_ROUTES) {
      for (const [role, browser] of [
        ['viewer', a.viewer],
        ['developer', a.developer],
      ] as const) {
        const allowed = role === 'developer' && !TEAM_FNS.has(route.fn);
        const path = route.path.replace('{token_id}', 'tok_000000000000').replace('{member_id}', spare.id);
        const answer = await browser.call(route.method, path, { body: VALID_BODY[route.fn] });
        const refused = answer.status === 403 && answer.body?.error_code === 'ROLE_REFUSED';
        if (allowed === refused) failures.push(`${role} ${route.method} ${route.path}: ${answer.status} ${answer.text.slice(0, 120)}`);
        if (!allowed && JSON.stringify(answer.body).includes('whsec_')) failures.push(`${role} saw a secret at ${route.path}`);
      }
    }
    expect(failures).toEqual([]);
    // Nothing the refused calls tried happened: the token is still there, the spare still a viewer.
    const tokens = await a.owner.call('GET', '/v1/portal/tokens');
    expect(tokens.body.tokens.map((entry: any) => entry.token_id)).toContain(token.body.token.token_id);
    const team = await a.owner.call('GET', '/v1/portal/team');
    expect(team.body.members.find((entry: any) => entry.user_id === spare.id)).toMatchObject({ role: 'viewer', removed_at: null });
  }, 60_000);

  it('refuses every account POST without the CSRF token or from another origin', async () => {
    for (const route of ACCOUNT_ROUTES.filter((entry) => entry.method === 'POST')) {
      const path = route.path.replace('{token_id}', 'tok_000000000000').replace('{member_id}', 'x');
      const noCsrf = await a.owner.call('POST', path, { body: VALID_BODY[route.fn], csrf: null });
      expect(noCsrf.status, `${route.path} without CSRF`).toBe(403);
      expect(noCsrf.body.error_code).toBe('CSRF_REFUSED');
      const foreign = await a.owner.call('POST', path, { body: VALID_BODY[route.fn], origin: 'https://evil.example' });
      expect(foreign.status, `${route.path} from another origin`).toBe(403);
    }
  });
});

describe('API tokens', () => {
  it('creates a token shown once, lists it without the secret, and a revoked token is refused within seconds', async () => {
    const created = await a.developer.call('POST', '/v1/portal/tokens', { body: { name: 'shop server' } });
    expect(created.status).toBe(200);
    const { api_token: secret, token_id: tokenId, prefix } = created.body.token;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secret.startsWith(prefix)).toBe(true);
    const listed = await a.owner.call('GET', '/v1/portal/tokens');
    expect(listed.text).not.toContain(secret);
    expect(listed.body.tokens.find((entry: any) => entry.token_id === tokenId)).toMatchObject({ name: 'shop server', prefix });
    expect((await order(secret)).status).toBe(200);
    expect((await a.owner.call('GET', '/v1/portal/tokens')).body.tokens.find((entry: any) => entry.token_id === tokenId).last_used_at).toEqual(expect.any(String));
    const revoked = await a.owner.call('POST', `/v1/portal/tokens/${tokenId}/revoke`);
    expect(revoked.status).toBe(200);
    // Refused once the running function's cache entry ends (AUTH_CACHE_SECONDS, 5 s by default).
    const deadline = Date.now() + 15_000;
    let status = 200;
    while (Date.now() < deadline && status === 200) {
      status = (await order(secret)).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(status).toBe(401);
    expect((await a.owner.call('POST', `/v1/portal/tokens/${tokenId}/revoke`)).status).toBe(404);
    // The first token still works.
    expect((await order(a.token)).status).toBe(200);
  }, 30_000);

  it("answers another merchant's token like a missing one, and refuses bad names", async () => {
    const mine = await b.owner.call('POST', '/v1/portal/tokens', { body: { name: 'b token' } });
    const stolen = await a.owner.call('POST', `/v1/portal/tokens/${mine.body.token.token_id}/revoke`);
    expect(stolen.status).toBe(404);
    expect(stolen.body.error_code).toBe('NOT_FOUND');
    expect((await a.owner.call('POST', '/v1/portal/tokens/tok_ffffffffffff/revoke')).status).toBe(404);
    expect((await call('POST', '/v1/orders', { token: mine.body.token.api_token, body: { price_amount: 3, price_currency: 'USD' } })).status).toBe(200);
    const bad = await a.owner.call('POST', '/v1/portal/tokens', { body: { name: 'no <script>' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error_code).toBe('INVALID_INPUT');
  });
});

describe('the callback secret', () => {
  it('is shown on demand and rolls with an overlap (both secrets shown until it ends)', async () => {
    const shown = await a.developer.call('POST', '/v1/portal/callback-secret');
    expect(shown.status).toBe(200);
    expect(shown.body.callback_secret).toMatch(/^whsec_/);
    const rolled = await a.owner.call('POST', '/v1/portal/callback-secret/roll', { body: { overlap_hours: 2 } });
    expect(rolled.status).toBe(200);
    expect(rolled.body.callback_secret).not.toBe(shown.body.callback_secret);
    expect(Date.parse(rolled.body.previous_valid_until) - Date.now()).toBeGreaterThan(1.9 * 3_600_000);
    const after = await a.developer.call('POST', '/v1/portal/callback-secret');
    expect(after.body).toMatchObject({ callback_secret: rolled.body.callback_secret, previous_callback_secret: shown.body.callback_secret });
    expect((await a.owner.call('POST', '/v1/portal/callback-secret/roll', { body: { overlap_hours: 721 } })).status).toBe(400);
    // Another merchant's secret never shows: B's is its own.
    const bSecret = await b.owner.call('POST', '/v1/portal/callback-secret');
    expect(bSecret.body.callback_secret).not.toBe(after.body.callback_secret);
  });
});

describe('payment settings', () => {
  it("previews a key's first addresses without saving, refuses keys of another kind, then saves for new invoices", async () => {
    const before = await a.developer.call('GET', '/v1/portal/settings');
    expect(before.body.settings).toMatchObject({ sandbox: true, receive_currency: 'USD', callback_statuses: 'paid', xpubs: {} });
    const preview = await a.developer.call('POST', '/v1/portal/settings/preview', { body: { xpubs: { BTC: BIP84_ZPUB } } });
    expect(preview.status).toBe(200);
    expect(preview.body.addresses.BTC).toHaveLength(3);
    expect(preview.body.addresses.BTC[0]).toBe(BIP84_FIRST);
    expect((await a.developer.call('GET', '/v1/portal/settings')).body.settings.xpubs).toEqual({});
    for (const key of [XPRV, LTUB, 'notakey']) {
      const refused = await a.developer.call('POST', '/v1/portal/settings/preview', { body: { xpubs: { BTC: key } } });
      expect(refused.status, key).toBe(400);
      expect(refused.body.error_code).toBe('INVALID_INPUT');
      expect((await a.developer.call('POST', '/v1/portal/settings', { body: { xpubs: { BTC: key } } })).status).toBe(400);
    }
    expect((await a.owner.call('POST', '/v1/portal/settings', { body: { receive_currency: 'DOGE' } })).status).toBe(400);
    expect((await a.owner.call('POST', '/v1/portal/settings', { body: {} })).status).toBe(400);
    const saved = await a.owner.call('POST', '/v1/portal/settings', { body: { xpubs: { BTC: BIP84_ZPUB }, receive_currency: 'USDT', callback_statuses: 'all' } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ sandbox: true, receive_currency: 'USDT', callback_statuses: 'all' });
    expect(saved.body.addresses.BTC[0]).toBe(BIP84_FIRST);
    const now = await a.viewer.call('GET', '/v1/portal/session');
    expect(now.body.merchant).toEqual({ name: 'Shop A', sandbox: true });
    const settings = (await a.owner.call('GET', '/v1/portal/settings')).body.settings;
    expect(settings).toMatchObject({ receive_currency: 'USDT', callback_statuses: 'all', xpubs: { BTC: { key: BIP84_ZPUB, addresses: [BIP84_FIRST, expect.any(String), expect.any(String)] } } });
    // B (live) sees its own settings, never A's.
    const bSettings = (await b.owner.call('GET', '/v1/portal/settings')).body.settings;
    expect(bSettings).toMatchObject({ name: 'Shop B', sandbox: false, xpubs: {} });
    await a.owner.call('POST', '/v1/portal/settings', { body: { xpubs: { BTC: '' }, receive_currency: 'USD', callback_statuses: 'paid' } });
  });

  it('sets, shows and removes the receiving wallets of Solana, TON and Stellar, each checked and kept in the form invoices show', async () => {
    expect((await a.developer.call('GET', '/v1/portal/settings')).body.settings.wallets).toEqual({});
    const TON_BOUNCEABLE = 'EQB3we_mCY94Qap7o--GvWAXgaKI9iJ-r9QgNAEmR1UokB9I';
    const TON_WALLET = 'UQB3we_mCY94Qap7o--GvWAXgaKI9iJ-r9QgNAEmR1UokEKN';
    const XLM = 'GA5WUJ54Z23KILLCUOUNAKTPBVZWKMQVO4O6EQ5GHLAERIMLLHNCSKYH';
    const saved = await a.owner.call('POST', '/v1/portal/settings', { body: { wallets: { TON: TON_BOUNCEABLE, XLM } } });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.wallets).toEqual({ TON: TON_WALLET, XLM });
    expect((await a.developer.call('GET', '/v1/portal/settings')).body.settings.wallets).toEqual({ TON: TON_WALLET, XLM });
    // The USDT master, a muxed address and another network's address are refused, and nothing changes.
    for (const wallets of [{ TON: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs' }, { XLM: 'MA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJUAAAAAAAAAAAACJUQ' }, { SOL: XLM }]) {
      const refused = await a.owner.call('POST', '/v1/portal/settings', { body: { wallets } });
      expect(refused.status, JSON.stringify(wallets)).toBe(400);
      expect(refused.body.error_code).toBe('INVALID_INPUT');
    }
    expect((await a.owner.call('POST', '/v1/portal/settings', { body: { wallets: { DOGE: 'x' } } })).status).toBe(400);
    // A developer manages integrations; a viewer may not change them.
    expect((await a.viewer.call('POST', '/v1/portal/settings', { body: { wallets: { XLM: '' } } })).status).toBe(403);
    expect((await a.owner.call('POST', '/v1/portal/settings', { body: { wallets: { XLM: '' } } })).body.wallets).toEqual({ TON: TON_WALLET });
    const log = (await a.owner.call('GET', '/v1/portal/audit?limit=1')).body.entries[0];
    expect(log).toMatchObject({ action: 'settings.changed', details: { wallets: ['XLM:removed'] } });
    await a.owner.call('POST', '/v1/portal/settings', { body: { wallets: { TON: '' } } });
  });
});

describe('the audit log', () => {
  it('records who, when and from where for every change, newest first, by page', async () => {
    await a.owner.call('POST', '/v1/portal/tokens', { body: { name: 'audited' } });
    const log = await a.developer.call('GET', '/v1/portal/audit?limit=2');
    expect(log.status).toBe(200);
    expect(log.body.entries).toHaveLength(2);
    const owner = (await a.owner.call('GET', '/v1/portal/session')).body.user;
    expect(log.body.entries[0]).toMatchObject({ action: 'token.created', who: `${owner.user_id} (${owner.name})`, from: a.owner.ip, details: { name: 'audited' } });
    const next = await a.developer.call('GET', `/v1/portal/audit?limit=100&before=${log.body.next_before}`);
    const actions = [...log.body.entries, ...next.body.entries].map((entry: any) => entry.action);
    for (const action of ['merchant.created', 'member.invited', 'member.joined', 'token.created', 'token.revoked', 'callback_secret.rolled', 'settings.changed']) {
      expect(actions, action).toContain(action);
    }
    const times = [...log.body.entries, ...next.body.entries].map((entry: any) => entry.at);
    expect(times).toEqual([...times].sort().reverse());
    expect(JSON.stringify(next.body)).not.toMatch(/whsec_/);
    // B's log is B's alone.
    const bLog = await b.owner.call('GET', '/v1/portal/audit?limit=100');
    expect(bLog.body.entries.some((entry: any) => entry.details?.name === 'audited')).toBe(false);
  });

  it("records a sign-in with a passkey's first use, once", async () => {
    const { browser, id } = await member(a.userId, 'developer');
    expect((await browser.signIn()).status).toBe(200);
    expect((await browser.signIn()).status).toBe(200);
    const entries = (await a.owner.call('GET', '/v1/portal/audit?limit=100')).body.entries.filter((entry: any) => entry.action === 'sign_in.new_passkey' && entry.who.startsWith(id));
    expect(entries).toHaveLength(1);
    expect(entries[0].from).toBe(browser.ip);
  });
});

describe('new passkeys in the audit log', () => {
  it("records a passkey a member adds, and that passkey's first sign-in", async () => {
    const { browser, id } = await member(a.userId, 'viewer');
    const options = await browser.call('POST', '/v1/portal/passkeys/options');
    expect((await browser.call('POST', '/v1/portal/passkeys', { body: { credential: browser.authenticator.create(options.body.options) } })).status).toBe(200);
    expect((await browser.signIn(1)).status).toBe(200);
    const entries = (await a.owner.call('GET', '/v1/portal/audit?limit=20')).body.entries.filter((entry: any) => entry.who.startsWith(id));
    const added = entries.find((entry: any) => entry.action === 'passkey.added');
    expect(added).toMatchObject({ from: browser.ip, details: { credential_id: expect.any(String) } });
    expect(entries.find((entry: any) => entry.action === 'sign_in.new_passkey')).toMatchObject({ details: { credential_id: added.details.credential_id } });
  });
});

describe('the team', () => {
  it('owners invite by link with a role; the member joins with that role', async () => {
    const invited = await a.owner.call('POST', '/v1/portal/team/invites', { body: { name: 'Dev Dana', role: 'developer' } });
    expect(invited.status).toBe(200);
    expect(invited.body.invite).toMatchObject({ role: 'developer', name: 'Dev Dana', url: expect.stringContaining('#/invite/') });
    const dana = new PortalBrowser(api.url, origin);
    expect((await dana.acceptInvite(invited.body.invite.url)).status).toBe(200);
    const session = await dana.call('GET', '/v1/portal/session');
    expect(session.body.user).toMatchObject({ name: 'Dev Dana', role: 'developer', merchant_id: a.userId });
    const team = await a.owner.call('GET', '/v1/portal/team');
    expect(team.body.members.find((entry: any) => entry.user_id === session.body.user.user_id)).toMatchObject({ role: 'developer' });
    expect(team.body.members.every((entry: any) => typeof entry.user_id === 'string' && !('webauthn_user_id' in entry))).toBe(true);
    expect((await a.owner.call('POST', '/v1/portal/team/invites', { body: { name: 'x', role: 'admin' } })).status).toBe(400);
  });

  it("changes a role at once; an owner cannot change or remove themselves; another merchant's member is missing", async () => {
    const m = await member(a.userId, 'developer');
    expect((await m.browser.call('GET', '/v1/portal/tokens')).status).toBe(200);
    const changed = await a.owner.call('POST', `/v1/portal/team/${m.id}/role`, { body: { role: 'viewer' } });
    expect(changed.status).toBe(200);
    expect((await m.browser.call('GET', '/v1/portal/tokens')).status).toBe(403);
    const ownerId = (await a.owner.call('GET', '/v1/portal/session')).body.user.user_id;
    expect((await a.owner.call('POST', `/v1/portal/team/${ownerId}/remove`)).status).toBe(409);
    expect((await a.owner.call('POST', `/v1/portal/team/${ownerId}/role`, { body: { role: 'viewer' } })).status).toBe(409);
    const stolen = await b.owner.call('POST', `/v1/portal/team/${m.id}/remove`);
    expect(stolen.status).toBe(404);
    expect((await b.owner.call('POST', `/v1/portal/team/${m.id}/role`, { body: { role: 'owner' } })).status).toBe(404);
    expect((await m.browser.call('GET', '/v1/portal/session')).status).toBe(200);
    const log = (await a.owner.call('GET', '/v1/portal/audit?limit=10')).body.entries;
    expect(log.find((entry: any) => entry.action === 'member.role_changed')).toMatchObject({ details: { user_id: m.id, from_role: 'developer', role: 'viewer' } });
  });

  it('removes a member: their sessions end at once and they cannot sign in again', async () => {
    const m = await member(a.userId, 'developer');
    expect((await m.browser.call('GET', '/v1/portal/orders')).status).toBe(200);
    expect((await a.owner.call('POST', `/v1/portal/team/${m.id}/remove`)).status).toBe(200);
    expect((await m.browser.call('GET', '/v1/portal/orders')).status).toBe(401);
    expect((await m.browser.call('GET', '/v1/portal/tokens')).status).toBe(401);
    expect((await m.browser.call('POST', '/v1/portal/tokens', { body: { name: 'after removal' } })).status).toBe(401);
    expect((await m.browser.signIn()).status).toBe(401);
    expect((await a.owner.call('POST', `/v1/portal/team/${m.id}/remove`)).status).toBe(404);
    const team = await a.owner.call('GET', '/v1/portal/team');
    expect(team.body.members.find((entry: any) => entry.user_id === m.id).removed_at).toEqual(expect.any(String));
    const log = (await a.owner.call('GET', '/v1/portal/audit?limit=10')).body.entries;
    expect(log.find((entry: any) => entry.action === 'member.removed')).toMatchObject({ details: { user_id: m.id } });
  });
});

describe("a disabled merchant's portal", () => {
  it('refuses its sessions and sign-ins at once, and takes them back when enabled', async () => {
    const merchant = await newMerchant(true, 'Shop D');
    const { browser } = await signedInUser(api.url, origin, merchant.user_id);
    expect((await browser.call('GET', '/v1/portal/orders')).status).toBe(200);
    await setDisabled(merchant.user_id, true);
    expect((await browser.call('GET', '/v1/portal/orders')).status).toBe(401);
    expect((await browser.call('GET', '/v1/portal/session')).status).toBe(401);
    expect((await browser.signIn()).status).toBe(401);
    await setDisabled(merchant.user_id, false);
    expect((await browser.signIn()).status).toBe(200);
    expect((await browser.call('GET', '/v1/portal/orders')).status).toBe(200);
  });
});

describe('no 5xx for anything a client sends', () => {
  const nasty = [
    '',
    '{',
    '[]',
    'null',
    '"x"',
    '{"name":12}',
    '{"name":""}',
    '{"xpubs":{"DOGE":"x"}}',
    '{"xpubs":{"BTC":"' + 'A'.repeat(200) + '"}}',
    '{"xpubs":[]}',
    '{"role":"god"}',
    '{"overlap_hours":-1}',
    '{"overlap_hours":1e9}',
    '{"receive_currency":"ZZZ"}',
    'x'.repeat(70_000),
  ];
  const queries = ['?limit=0', '?limit=abc', '?before=yesterday', '?before=9999-99-99T99:99:99Z', '?unknown=1', '?limit=100'];
  it('on every account route, for every role and nobody', async () => {
    const failures: string[] = [];
    for (const route of ACCOUNT_ROUTES) {
      // Each odd id in a route's id; a route without one is tried once (its path is the same for every id).
      const ids = /\{(token|member)_id\}/.test(route.path) ? ['tok_000000000000', 'initial', 'not-an-id', '..%2F..', 'x'.repeat(300), '%00'] : [''];
      for (const id of ids) {
        const path = route.path.replace('{token_id}', id).replace('{member_id}', id);
        const attempts = route.method === 'GET' ? queries.map((query) => ({ path: path + query })) : nasty.map((rawBody) => ({ path, rawBody }));
        for (const attempt of attempts) {
          for (const who of [b.owner, a.viewer, new PortalBrowser(api.url, origin)]) {
            const answer = await who.call(route.method, attempt.path, { rawBody: (attempt as { rawBody?: string }).rawBody });
            if (answer.status >= 500) failures.push(`${route.method} ${attempt.path.slice(0, 80)} -> ${answer.status} ${answer.text.slice(0, 100)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
