/**
 * Signing in to the merchant portal over HTTP, against the real handlers and DynamoDB Local,
 * with a software authenticator (tests/support/authenticator.ts): invites (once, not late),
 * passkeys, recovery codes, sessions (cookie flags, expiry, sign-out, rotation, everywhere),
 * the CSRF defense and the sign-in limit.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvite } from '#shared/services/portal/auth';
import { sha256 } from '#shared/services/portal/sessions';
import { insertSession } from '#shared/store/sessions';
import { newMerchant, startApi } from '../support/api';
import { PortalBrowser, signedInUser } from '../support/portal';

let api: Awaited<ReturnType<typeof startApi>>;
let origin: string;
let merchantId: number;

beforeAll(async () => {
  api = await startApi();
  origin = `http://localhost:${new URL(api.url).port}`;
  Object.assign(process.env, { PORTAL_ORIGIN: origin, PORTAL_CLIENT_IP_HEADER: 'x-test-client', PORTAL_SIGN_IN_PER_MINUTE: '8' });
  merchantId = (await newMerchant()).user_id;
});
afterAll(() => api.close());

const browser = () => new PortalBrowser(api.url, origin);

describe('invites', () => {
  it('make a user with a passkey, sign them in with an HttpOnly SameSite cookie and show ten recovery codes once', async () => {
    const invite = await createInvite({ merchantId, name: 'Alice' });
    const alice = browser();
    const accepted = await alice.acceptInvite(invite.url);
    expect(accepted.status).toBe(200);
    expect(accepted.body.user).toMatchObject({ name: 'Alice', role: 'owner', merchant_id: merchantId });
    expect(accepted.body.recovery_codes).toHaveLength(10);
    expect(new Set(accepted.body.recovery_codes).size).toBe(10);
    const [cookie] = accepted.setCookie;
    expect(cookie).toMatch(/^portal_session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    const session = await alice.call('GET', '/v1/portal/session');
    expect(session.status).toBe(200);
    expect(session.body.user.name).toBe('Alice');
  });

  it('work once: a second acceptance (or its options) is refused, and the first user is unharmed', async () => {
    const invite = await createInvite({ merchantId });
    const first = browser();
    expect((await first.acceptInvite(invite.url)).status).toBe(200);
    const second = browser();
    const again = await second.acceptInvite(invite.url);
    expect(again.status).toBe(400);
    expect(again.body.error_code).toBe('INVITE_UNUSABLE');
    expect(second.cookie).toBeUndefined();
    expect((await first.call('GET', '/v1/portal/session')).status).toBe(200);
  });

  it('refuse an acceptance racing another on the same options: one user only', async () => {
    const invite = await createInvite({ merchantId });
    const token = invite.url.split('#/invite/')[1]!;
    const one = browser();
    const two = browser();
    const [a, b] = [await one.call('POST', `/v1/portal/invites/${token}/options`), await two.call('POST', `/v1/portal/invites/${token}/options`)];
    const answers = await Promise.all([
      one.call('POST', `/v1/portal/invites/${token}/accept`, { body: { credential: one.authenticator.create(a.body.options) } }),
      two.call('POST', `/v1/portal/invites/${token}/accept`, { body: { credential: two.authenticator.create(b.body.options) } }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
  });

  it('expire: a late invite is refused like a used one', async () => {
    const invite = await createInvite({ merchantId, ttlHours: 1 }, new Date(Date.now() - 2 * 3_600_000));
    const late = await browser().acceptInvite(invite.url);
    expect(late.status).toBe(400);
    expect(late.body.error_code).toBe('INVITE_UNUSABLE');
  });

  it('refuse an unknown token, and a passkey made for another origin', async () => {
    expect((await browser().acceptInvite(`${origin}/portal/#/invite/${randomBytes(32).toString('base64url')}`)).status).toBe(400);
    const invite = await createInvite({ merchantId });
    const token = invite.url.split('#/invite/')[1]!;
    const phished = browser();
    const options = await phished.call('POST', `/v1/portal/invites/${token}/options`);
    const answer = await phished.call('POST', `/v1/portal/invites/${token}/accept`, {
      body: { credential: phished.authenticator.create(options.body.options, { origin: 'https://evil.example' }) },
    });
    expect(answer.status).toBe(401);
    expect(answer.body.error_code).toBe('SIGN_IN_FAILED');
  });
});

describe('sessions', () => {
  it('sign in with the passkey after signing out; the old session stays dead; a new id each time', async () => {
    const { browser: bob } = await signedInUser(api.url, origin, merchantId);
    const firstCookie = bob.cookie!;
    expect((await bob.call('POST', '/v1/portal/sign-out')).status).toBe(200);
    expect(bob.cookie).toBeUndefined();
    const signedIn = await bob.signIn();
    expect(signedIn.status).toBe(200);
    expect(bob.cookie).not.toBe(firstCookie);
    expect((await bob.call('GET', '/v1/portal/session')).status).toBe(200);
    // The signed-out cookie is revoked server-side, not only dropped by the browser.
    const old = browser();
    old.cookie = firstCookie;
    expect((await old.call('GET', '/v1/portal/session')).status).toBe(401);
  });

  it('rotate at sign-in: the session the browser had before ends', async () => {
    const { browser: carol } = await signedInUser(api.url, origin, merchantId);
    const before = carol.cookie!;
    expect((await carol.signIn()).status).toBe(200);
    const stale = browser();
    stale.cookie = before;
    expect((await stale.call('GET', '/v1/portal/session')).status).toBe(401);
  });

  it('refuse a replayed passkey answer (its challenge answers once) and a wrong signature counter', async () => {
    const { browser: dave } = await signedInUser(api.url, origin, merchantId);
    const options = await dave.call('POST', '/v1/portal/sign-in/options');
    const credential = dave.authenticator.get(options.body.options);
    expect((await dave.call('POST', '/v1/portal/sign-in', { body: { credential } })).status).toBe(200);
    const replay = await dave.call('POST', '/v1/portal/sign-in', { body: { credential } });
    expect(replay.status).toBe(401);
    const fresh = await dave.call('POST', '/v1/portal/sign-in/options');
    const cloned = await dave.call('POST', '/v1/portal/sign-in', { body: { credential: dave.authenticator.get(fresh.body.options, 0, { counter: 1 }) } });
    expect(cloned.status).toBe(401);
  });

  it('end an expired session', async () => {
    const { accepted } = await signedInUser(api.url, origin, merchantId);
    const id = randomBytes(32).toString('base64url');
    await insertSession(sha256(id), {
      user_id: accepted.body.user.user_id,
      merchant_id: merchantId,
      csrf_token: 'x',
      created_at: new Date(Date.now() - 2 * 86_400_000).toISOString(),
      expires_at: new Date(Date.now() - 86_400_000).toISOString(),
    });
    const expired = browser();
    expired.cookie = `portal_session=${id}`;
    const answer = await expired.call('GET', '/v1/portal/session');
    expect(answer.status).toBe(401);
    expect(answer.body.error_code).toBe('SESSION_REQUIRED');
  });

  it('sign out everywhere ends the other browsers too', async () => {
    const { browser: laptop } = await signedInUser(api.url, origin, merchantId);
    const phone = browser();
    phone.authenticator.credentials.push(...laptop.authenticator.credentials);
    expect((await phone.signIn()).status).toBe(200);
    expect((await laptop.call('POST', '/v1/portal/sign-out', { body: { everywhere: true } })).status).toBe(200);
    expect((await phone.call('GET', '/v1/portal/session')).status).toBe(401);
    // A sign-in after it starts a valid session again.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await phone.signIn()).status).toBe(200);
    expect((await phone.call('GET', '/v1/portal/session')).status).toBe(200);
  });

  it('sign in with a recovery code once, then add a passkey', async () => {
    const { accepted } = await signedInUser(api.url, origin, merchantId);
    const code: string = accepted.body.recovery_codes[3];
    const lost = browser();
    expect((await lost.call('POST', '/v1/portal/sign-in/recovery', { body: { code: code.toUpperCase() } })).status).toBe(200);
    const again = browser();
    const reused = await again.call('POST', '/v1/portal/sign-in/recovery', { body: { code } });
    expect(reused.status).toBe(401);
    const options = await lost.call('POST', '/v1/portal/passkeys/options');
    expect(options.status).toBe(200);
    expect((await lost.call('POST', '/v1/portal/passkeys', { body: { credential: lost.authenticator.create(options.body.options) } })).status).toBe(200);
    expect((await lost.call('GET', '/v1/portal/passkeys')).body.passkeys).toHaveLength(2);
    expect((await lost.call('POST', '/v1/portal/sign-out')).status).toBe(200);
    expect((await lost.signIn()).status).toBe(200);
  });
});

describe('CSRF defense', () => {
  it('refuses a state change without the CSRF token, with a wrong one, from another origin, or with no origin at all', async () => {
    const { browser: erin } = await signedInUser(api.url, origin, merchantId);
    for (const attempt of [{ csrf: null }, { csrf: 'wrong' }, { origin: 'https://evil.example' }, { origin: null }]) {
      const answer = await erin.call('POST', '/v1/portal/sign-out', attempt);
      expect(answer.status, JSON.stringify(attempt)).toBe(403);
      expect(answer.body.error_code).toBe('CSRF_REFUSED');
    }
    expect((await erin.call('GET', '/v1/portal/session')).status).toBe(200);
    // Same-origin fetches without an Origin header (Sec-Fetch-Site says so) pass.
    expect((await erin.call('POST', '/v1/portal/sign-out', { origin: null, headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
  });

  it('refuses sign-in requests from another origin (login CSRF)', async () => {
    const answer = await browser().call('POST', '/v1/portal/sign-in/options', { origin: 'https://evil.example' });
    expect(answer.status).toBe(403);
  });
});

describe('sign-in limit', () => {
  it('answers 429 with Retry-After once a client has used its attempts for the minute', async () => {
    const guesser = browser();
    const statuses: number[] = [];
    // 8 a minute in fixed windows: the 9th is refused, or (across a window's edge) at most the 17th.
    while (statuses.at(-1) !== 429 && statuses.length < 17) {
      statuses.push((await guesser.call('POST', '/v1/portal/sign-in/recovery', { body: { code: 'aaaaa-bbbbb' } })).status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.length).toBeGreaterThanOrEqual(9);
    expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
    const limited = await guesser.call('POST', '/v1/portal/sign-in/options');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another client is not affected.
    expect((await browser().call('POST', '/v1/portal/sign-in/options')).status).toBe(200);
  });

  it('counts wrong invite tokens too (options and accept): 60 random ones from one address meet a 429, a real invite from another goes through', async () => {
    const guesser = browser();
    // Well formed, so that the accepts reach the invite's check.
    const unchecked = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: 'e30' } };
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const action = i % 2 ? 'accept' : 'options';
      statuses.push(
        (await guesser.call('POST', `/v1/portal/invites/${randomBytes(32).toString('base64url')}/${action}`, { body: action === 'accept' ? { credential: unchecked } : undefined })).status,
      );
    }
    // 8 a minute: refused from the 9th on (at most the 17th across a window's edge).
    expect(statuses.indexOf(429)).toBeGreaterThanOrEqual(8);
    expect(statuses.indexOf(429)).toBeLessThan(17);
    expect(statuses.slice(0, statuses.indexOf(429)).every((status) => status === 400)).toBe(true);
    const limited = await guesser.call('POST', `/v1/portal/invites/${randomBytes(32).toString('base64url')}/options`);
    expect(limited.status).toBe(429);
    expect(limited.body.error_code).toBe('API_LIMIT_EXCEEDED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await browser().acceptInvite((await createInvite({ merchantId })).url)).status).toBe(200);
  });
});
