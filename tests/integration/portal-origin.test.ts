/**
 * The portal API behind its CloudFront only (PORTAL_ORIGIN_SECRET, as the AWS stack sets it):
 * a request that did not come through the portal's distribution (someone calling the API's own
 * URL, who can write the viewer-address header the sign-in limit keys on) is refused before
 * anything is read or counted; requests carrying the secret work as usual.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInvite } from '#shared/services/portal/auth';
import { newMerchant, startApi } from '../support/api';
import { PortalBrowser } from '../support/portal';

const SECRET = randomBytes(24).toString('base64url');
let api: Awaited<ReturnType<typeof startApi>>;
let origin: string;
let merchantId: number;

beforeAll(async () => {
  api = await startApi();
  origin = `http://localhost:${new URL(api.url).port}`;
  Object.assign(process.env, { PORTAL_ORIGIN: origin, PORTAL_CLIENT_IP_HEADER: 'x-test-client', PORTAL_SIGN_IN_PER_MINUTE: '4', PORTAL_ORIGIN_SECRET: SECRET });
  merchantId = (await newMerchant()).user_id;
});
afterAll(() => api.close());

/** A browser behind the portal's CloudFront: every request carries the origin secret. */
const throughPortal = () => {
  const browser = new PortalBrowser(api.url, origin);
  const call = browser.call.bind(browser);
  browser.call = (method, path, options = {}) => call(method, path, { ...options, headers: { 'x-origin-verify': SECRET, ...options.headers } });
  return browser;
};

describe('portal API reached around its CloudFront', () => {
  it('refuses every kind of portal request without the secret, or with a wrong one, as 403 ORIGIN_REQUIRED', async () => {
    const direct = new PortalBrowser(api.url, origin);
    const invite = await createInvite({ merchantId });
    const token = invite.url.split('#/invite/')[1]!;
    const attempts = [
      await direct.call('POST', '/v1/portal/sign-in/options'),
      await direct.call('POST', '/v1/portal/sign-in/recovery', { body: { code: 'aaaaa-bbbbb' } }),
      await direct.call('POST', `/v1/portal/invites/${token}/options`),
      await direct.call('GET', '/v1/portal/session'),
      await direct.call('GET', '/v1/portal/orders'),
      await direct.call('POST', '/v1/portal/sign-in/options', { headers: { 'x-origin-verify': `${SECRET}x` } }),
      await direct.call('POST', '/v1/portal/sign-in/options', { headers: { 'x-origin-verify': '' } }),
    ];
    for (const answer of attempts) {
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ status: 403, error_code: 'ORIGIN_REQUIRED', error: 'Use the portal at its own address.' });
    }
    // The invite was not spent by the refused call: through the portal it still works.
    const accepted = await throughPortal().acceptInvite(invite.url);
    expect(accepted.status).toBe(200);
  });

  it('lets a signed-in user through with the secret, and a session cookie alone does not open the API directly', async () => {
    const user = throughPortal();
    expect((await user.acceptInvite((await createInvite({ merchantId })).url)).status).toBe(200);
    expect((await user.call('GET', '/v1/portal/session')).status).toBe(200);
    const direct = new PortalBrowser(api.url, origin);
    direct.cookie = user.cookie;
    direct.csrf = user.csrf;
    expect((await direct.call('GET', '/v1/portal/session')).status).toBe(403);
  });

  it('does not let a forged viewer address buy more sign-in attempts: refused calls count for nobody, and the real client is limited', async () => {
    const guesser = throughPortal();
    // A flood around CloudFront, each with a new forged address: all refused, none reaches the limiter.
    for (let i = 0; i < 10; i += 1) {
      const forged = await new PortalBrowser(api.url, origin).call('POST', '/v1/portal/sign-in/recovery', { body: { code: 'aaaaa-bbbbb' } });
      expect(forged.status).toBe(403);
    }
    const statuses: number[] = [];
    while (statuses.at(-1) !== 429 && statuses.length < 9) {
      statuses.push((await guesser.call('POST', '/v1/portal/sign-in/recovery', { body: { code: 'aaaaa-bbbbb' } })).status);
    }
    // 4 a minute: the 5th is refused (at most the 9th across a window's edge).
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
  });
});
