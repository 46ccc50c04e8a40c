import type {
  PortalAuditLog,
  PortalCreatedToken,
  PortalInvite,
  PortalKeyPreview,
  PortalMemberChanged,
  PortalOrderAction,
  PortalOrderPage,
  PortalOrders,
  PortalPasskeyAdded,
  PortalRegistrationOptions,
  PortalRevokedToken,
  PortalRolledSecret,
  PortalSecret,
  PortalSession,
  PortalSettings,
  PortalSettingsChanged,
  PortalSignedOut,
  PortalSignInOptions,
  PortalTeam,
  PortalTokens,
} from '#shared/schemas/portal-responses';
import type { EmailPreferencesBody, KeyPreviewBody, SettingsBody } from '#shared/schemas/portal';

import type { PortalLink, PortalLinkPage, PortalLinks, PortalRefundAsked, PortalRefundQuote, PortalRefunds, PortalUnmatchedPayments } from '#shared/schemas/portal-responses';
import type { RefundOrderBody } from '#shared/schemas/refunds';
import type { PortalPlanAnswer, PortalPlans, PortalSubscriptionFigures, PortalSubscriptionPage, PortalSubscriptions } from '#shared/schemas/portal-responses';
import { retryAfterMs } from '../../common/poller';
import type { CreatePlanBody, UpdatePlanBody } from '#shared/schemas/subscriptions';
/**
 * The portal's one API client: every `/v1/portal/...` call goes through here. It sends the
 * session cookie (same origin), the CSRF token on every POST, and turns answers into results.
 * Each call answers the view the server declares for its route (shared/schemas/portal-responses.ts).
 */
let csrfToken: string | undefined;

/** Set by the session module after sign-in or a session read; cleared at sign-out. */
export function useCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** A portal call's answer, else why not (status 0: no answer; `retryAfterMs`: the wait a 429 asked for, 0 when none). */
export type Result<T> = { ok: true; data: T } | { ok: false; status: number; code: string; message?: string; retryAfterMs: number };

async function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Result<T>> {
  try {
    const headers: Record<string, string> = {};
    if (method === 'POST') {
      headers['content-type'] = 'application/json';
      if (csrfToken) headers['x-csrf-token'] = csrfToken;
    }
    const response = await fetch(`/v1/portal${path}`, {
      method,
      headers,
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
      credentials: 'same-origin',
      cache: 'no-store',
    });
    const parsed = (await response.json().catch(() => ({}))) as T & { error_code?: string; error?: string };
    if (response.ok) return { ok: true, data: parsed };
    return {
      ok: false,
      status: response.status,
      code: parsed.error_code ?? '',
      message: typeof parsed.error === 'string' ? parsed.error : undefined,
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
    };
  } catch {
    return { ok: false, status: 0, code: '', retryAfterMs: 0 };
  }
}

/** A passkey's answer, as @simplewebauthn/browser gives it (the server checks its shape and contents). */
type Credential = object;
type Role = PortalSession['user']['role'];

export const portalApi = {
  session: () => request<PortalSession>('GET', '/session'),
  inviteOptions: (invite: string) => request<PortalRegistrationOptions>('POST', `/invites/${encodeURIComponent(invite)}/options`),
  acceptInvite: (invite: string, credential: Credential) => request<PortalSession>('POST', `/invites/${encodeURIComponent(invite)}/accept`, { credential }),
  signInOptions: () => request<PortalSignInOptions>('POST', '/sign-in/options'),
  signIn: (credential: Credential) => request<PortalSession>('POST', '/sign-in', { credential }),
  recover: (code: string) => request<PortalSession>('POST', '/sign-in/recovery', { code }),
  signOut: () => request<PortalSignedOut>('POST', '/sign-out'),
  passkeyOptions: () => request<PortalRegistrationOptions>('POST', '/passkeys/options'),
  addPasskey: (credential: Credential) => request<PortalPasskeyAdded>('POST', '/passkeys', { credential }),
  orders: (query: URLSearchParams) => request<PortalOrders>('GET', `/orders?${query}`),
  order: (orderId: string) => request<PortalOrderPage>('GET', `/orders/${encodeURIComponent(orderId)}`),
  act: (orderId: string, action: PortalOrderAction) => request<PortalOrderPage>('POST', `/orders/${encodeURIComponent(orderId)}/${ACTION_PATHS[action]}`),
  tokens: () => request<PortalTokens>('GET', '/tokens'),
  createToken: (name: string) => request<PortalCreatedToken>('POST', '/tokens', { name }),
  revokeToken: (tokenId: string) => request<PortalRevokedToken>('POST', `/tokens/${encodeURIComponent(tokenId)}/revoke`),
  showSecret: () => request<PortalSecret>('POST', '/callback-secret'),
  rollSecret: (overlapHours: number) => request<PortalRolledSecret>('POST', '/callback-secret/roll', { overlap_hours: overlapHours }),
  settings: () => request<PortalSettings>('GET', '/settings'),
  previewKeys: (xpubs: KeyPreviewBody['xpubs']) => request<PortalKeyPreview>('POST', '/settings/preview', { xpubs }),
  changeSettings: (change: SettingsBody) => request<PortalSettingsChanged>('POST', '/settings', change),
  emailPreferences: () => request<{ preferences: EmailPreferences }>('GET', '/email-preferences'),
  changeEmailPreferences: (preferences: EmailPreferencesBody) => request<{ preferences: EmailPreferences }>('POST', '/email-preferences', preferences),
  audit: (before?: string) => request<PortalAuditLog>('GET', `/audit?limit=50${before ? `&before=${encodeURIComponent(before)}` : ''}`),
  team: () => request<PortalTeam>('GET', '/team'),
  invite: (name: string, role: Role) => request<PortalInvite>('POST', '/team/invites', { name, role }),
  changeRole: (memberId: string, role: Role) => request<PortalMemberChanged>('POST', `/team/${encodeURIComponent(memberId)}/role`, { role }),
  removeMember: (memberId: string) => request<PortalMemberChanged>('POST', `/team/${encodeURIComponent(memberId)}/remove`),
  /** The CSV export's address for these filters (a plain download link: the cookie goes with it). */
  exportUrl: (query: URLSearchParams) => `/v1/portal/orders/export?${query}`,
};

/** Each order button's route under /orders/{order_id}/. */
const ACTION_PATHS: Record<PortalOrderAction, string> = {
  resend_callback: 'callbacks/resend',
  cancel: 'cancel',
  refund: 'refund',
  complete_refund: 'complete-refund',
  resolve: 'resolve',
};

/** A user's email preferences as the API answers them (the address absent until given). */
export type EmailPreferences = Omit<EmailPreferencesBody, 'address'> & { address?: string };

/** A payment link as the portal lists it: the API's view (its type from the schema module that makes it) with its paid count and total. */
export type PaymentLinkRow = PortalLink;

export const linksApi = {
  list: (cursor?: string) => request<PortalLinks>('GET', `/links?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
  get: (linkId: string) => request<PortalLinkPage>('GET', `/links/${encodeURIComponent(linkId)}`),
  create: (body: Record<string, unknown>) => request<{ link: PaymentLinkRow }>('POST', '/links', body),
  change: (linkId: string, body: Record<string, unknown>) => request<{ link: PaymentLinkRow }>('POST', `/links/${encodeURIComponent(linkId)}`, body),
};

const orderPath = (orderId: string, tail: string) => `/orders/${encodeURIComponent(orderId)}/${tail}`;

/** Refunds: ask one with its amount choice, today's quote, report its transaction, a new link, the ones waiting. */
export const refundsApi = {
  ask: (orderId: string, body: Pick<RefundOrderBody, 'basis' | 'reason'> & { amount?: string }) => request<PortalRefundAsked>('POST', orderPath(orderId, 'refund'), body),
  quote: (orderId: string) => request<PortalRefundQuote>('GET', orderPath(orderId, 'refund-quote')),
  reportTxid: (orderId: string, refundId: string, txid: string) => request<PortalOrderPage>('POST', orderPath(orderId, 'refund-txid'), { refund_id: refundId, txid }),
  renewLink: (orderId: string, refundId: string) => request<PortalOrderPage>('POST', orderPath(orderId, 'refund-link'), { refund_id: refundId }),
  waiting: (cursor?: string) => request<PortalRefunds>('GET', `/refunds?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
  /** Payments to the merchant's own wallets that no invoice took, newest first. */
  unmatched: (cursor?: string) => request<PortalUnmatchedPayments>('GET', `/unmatched-payments?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
};

/** Recurring billing: plans (create, change, archive), subscriptions (list, search, figures, page, cancel, the sandbox's test clock). */
export const plansApi = {
  list: (cursor?: string) => request<PortalPlans>('GET', `/plans?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
  get: (planId: string) => request<PortalPlanAnswer>('GET', `/plans/${encodeURIComponent(planId)}`),
  create: (body: CreatePlanBody) => request<PortalPlanAnswer>('POST', '/plans', body),
  change: (planId: string, body: UpdatePlanBody) => request<PortalPlanAnswer>('POST', `/plans/${encodeURIComponent(planId)}`, body),
};

const subscriptionPath = (subscriptionId: string, tail = '') => `/subscriptions/${encodeURIComponent(subscriptionId)}${tail}`;

export const subscriptionsApi = {
  list: (query: URLSearchParams) => request<PortalSubscriptions>('GET', `/subscriptions?${query}`),
  figures: () => request<PortalSubscriptionFigures>('GET', '/subscriptions/figures'),
  get: (subscriptionId: string) => request<PortalSubscriptionPage>('GET', subscriptionPath(subscriptionId)),
  cancel: (subscriptionId: string, atPeriodEnd: boolean) => request<PortalSubscriptionPage>('POST', subscriptionPath(subscriptionId, '/cancel'), { at_period_end: atPeriodEnd }),
  advanceClock: (subscriptionId: string, days: number) => request<PortalSubscriptionPage>('POST', subscriptionPath(subscriptionId, '/advance'), { days }),
  /** The CSV export's address for the list's filters (a plain download link: the cookie goes with it). */
  exportUrl: (query: URLSearchParams) => `/v1/portal/subscriptions/export?${query}`,
};
