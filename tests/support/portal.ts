import { randomUUID } from 'node:crypto';
import { createInvite } from '#shared/services/portal/auth';
import { SoftwareAuthenticator } from './authenticator';
import { portalAnswerProblems } from './portal-contract';

/**
 * A browser's view of the portal API for HTTP-level tests: a cookie jar of one, the CSRF
 * token, the Origin header the portal's pages send, and a client address of its own (the tests
 * set PORTAL_CLIENT_IP_HEADER so each client has its own sign-in limit). Each 200 answer is held
 * against its route's schema (tests/support/portal-contract.ts): a stray or missing field fails
 * the test that saw it.
 */
export class PortalBrowser {
  cookie: string | undefined;
  csrf: string | undefined;
  readonly ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  readonly authenticator: SoftwareAuthenticator;

  constructor(
    readonly baseUrl: string,
    readonly origin: string,
  ) {
    this.authenticator = new SoftwareAuthenticator(origin);
  }

  async call(method: 'GET' | 'POST', path: string, options: { body?: unknown; rawBody?: string; headers?: Record<string, string>; origin?: string | null; csrf?: string | null } = {}) {
    const headers: Record<string, string> = { 'x-test-client': `${this.ip}:5555`, ...options.headers };
    if (this.cookie) headers.cookie = this.cookie;
    if (method === 'POST') {
      const origin = options.origin === undefined ? this.origin : options.origin;
      if (origin !== null) headers.origin = origin;
      const csrf = options.csrf === undefined ? this.csrf : options.csrf;
      if (csrf) headers['x-csrf-token'] = csrf;
      headers['content-type'] = 'application/json';
    }
    const body = options.rawBody ?? (options.body === undefined ? (method === 'POST' ? '{}' : undefined) : JSON.stringify(options.body));
    const response = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await response.text();
    const setCookie = response.headers.getSetCookie();
    for (const cookie of setCookie) {
      const pair = cookie.split(';')[0]!;
      this.cookie = pair.endsWith('=') ? undefined : pair;
    }
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (json?.csrf_token) this.csrf = json.csrf_token;
    // Every answer the portal's client reads is the view its route declares.
    if (response.status === 200 && json !== undefined) {
      const problems = portalAnswerProblems(method, path, json);
      if (problems.length) throw new Error(`${method} ${path} answered outside its schema:\n${problems.join('\n')}\n${text.slice(0, 2000)}`);
    }
    return { status: response.status, body: json, text, headers: response.headers, setCookie };
  }

  /** Accepts an invite link with a new software passkey: the answer (recovery codes included). */
  async acceptInvite(inviteUrl: string) {
    const token = inviteUrl.split('#/invite/')[1]!;
    const options = await this.call('POST', `/v1/portal/invites/${token}/options`);
    if (options.status !== 200) return options;
    return this.call('POST', `/v1/portal/invites/${token}/accept`, { body: { credential: this.authenticator.create(options.body.options) } });
  }

  /** Signs in with the n-th passkey of this browser's authenticator. */
  async signIn(index = 0) {
    const options = await this.call('POST', '/v1/portal/sign-in/options');
    if (options.status !== 200) return options;
    return this.call('POST', '/v1/portal/sign-in', { body: { credential: this.authenticator.get(options.body.options, index) } });
  }
}

/** A merchant's signed-in portal user (a new browser that accepted a fresh invite). */
export async function signedInUser(baseUrl: string, origin: string, merchantId: number, role: 'owner' | 'developer' | 'viewer' = 'owner') {
  const browser = new PortalBrowser(baseUrl, origin);
  const invite = await createInvite({ merchantId, role, name: `user-${randomUUID().slice(0, 8)}` });
  const accepted = await browser.acceptInvite(invite.url);
  if (accepted.status !== 200) throw new Error(`invite not accepted: ${accepted.status} ${accepted.text}`);
  return { browser, accepted };
}
