import type { EmailPreferencesBody } from '#shared/schemas/portal';
/**
 * The portal's one API client: every `/v1/portal/...` call goes through here. It sends the
 * session cookie (same origin), the CSRF token on every POST, and turns answers into results.
 */
let csrfToken: string | undefined;

/** Set by the session module after sign-in or a session read; cleared at sign-out. */
export function useCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export type Result<T> = { ok: true; data: T } | { ok: false; status: number; code: string; message?: string };

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
    return { ok: false, status: response.status, code: parsed.error_code ?? '', message: typeof parsed.error === 'string' ? parsed.error : undefined };
  } catch {
    return { ok: false, status: 0, code: '' };
  }
}

export interface SessionView {
  user: { user_id: string; name: string; role: string; merchant_id: number };
  /** The merchant's name and mode (from GET /session; a sign-in's answer reads it again). */
  merchant?: { name: string; sandbox: boolean };
  csrf_token: string;
  expires_at: string;
  recovery_codes?: string[];
}

export interface OrderRow {
  order_id: string;
  merchant_order_id: string;
  title: string;
  status: string;
  price_amount: string;
  price_currency: string;
  pay_amount: string;
  pay_currency: string;
  created_at: string;
}

export interface OrdersPage {
  orders: OrderRow[];
  next_cursor: string | null;
}

export interface OrderPage {
  order: Record<string, any> & { order_id: string; status: string; history: { from: string | null; to: string; at: string; reason?: string }[] };
  invoices: (Record<string, any> & { invoice_id: string; pay_currency: string; payment_address: string; payments: { txid: string; amount: string; confirmations: number; seen_at: string; explorer_url: string | null; left_chain_at: string | null }[] })[];
  callbacks: { event_id: string; status: string; state: string; attempt_count: number; attempts: { at: string; http_status?: number; latency_ms: number; error?: string; response?: string }[] }[];
  actions: string[];
}

export const portalApi = {
  session: () => request<SessionView>('GET', '/session'),
  inviteOptions: (invite: string) => request<{ options: any }>('POST', `/invites/${encodeURIComponent(invite)}/options`),
  acceptInvite: (invite: string, credential: unknown) => request<SessionView>('POST', `/invites/${encodeURIComponent(invite)}/accept`, { credential }),
  signInOptions: () => request<{ options: any }>('POST', '/sign-in/options'),
  signIn: (credential: unknown) => request<SessionView>('POST', '/sign-in', { credential }),
  recover: (code: string) => request<SessionView>('POST', '/sign-in/recovery', { code }),
  signOut: () => request<unknown>('POST', '/sign-out'),
  passkeyOptions: () => request<{ options: any }>('POST', '/passkeys/options'),
  addPasskey: (credential: unknown) => request<unknown>('POST', '/passkeys', { credential }),
  orders: (query: URLSearchParams) => request<OrdersPage>('GET', `/orders?${query}`),
  order: (orderId: string) => request<OrderPage>('GET', `/orders/${encodeURIComponent(orderId)}`),
  act: (orderId: string, action: string) => request<OrderPage>('POST', `/orders/${encodeURIComponent(orderId)}/${ACTION_PATHS[action] ?? action}`),
  tokens: () => request<{ tokens: ApiToken[] }>('GET', '/tokens'),
  createToken: (name: string) => request<{ token: ApiToken & { api_token: string } }>('POST', '/tokens', { name }),
  revokeToken: (tokenId: string) => request<unknown>('POST', `/tokens/${encodeURIComponent(tokenId)}/revoke`),
  showSecret: () => request<CallbackSecret>('POST', '/callback-secret'),
  rollSecret: (overlapHours: number) => request<{ callback_secret: string; previous_valid_until: string }>('POST', '/callback-secret/roll', { overlap_hours: overlapHours }),
  settings: () => request<{ settings: Settings }>('GET', '/settings'),
  previewKeys: (xpubs: Record<string, string>) => request<{ addresses: Record<string, string[]> }>('POST', '/settings/preview', { xpubs }),
  changeSettings: (change: Record<string, unknown>) => request<{ addresses: Record<string, string[]> }>('POST', '/settings', change),
  emailPreferences: () => request<{ preferences: EmailPreferences }>('GET', '/email-preferences'),
  changeEmailPreferences: (preferences: EmailPreferencesBody) => request<{ preferences: EmailPreferences }>('POST', '/email-preferences', preferences),
  audit: (before?: string) => request<{ entries: AuditEntry[]; next_before: string | null }>('GET', `/audit?limit=50${before ? `&before=${encodeURIComponent(before)}` : ''}`),
  team: () => request<{ members: Member[] }>('GET', '/team'),
  invite: (name: string, role: string) => request<{ invite: { url: string; expires_at: string } }>('POST', '/team/invites', { name, role }),
  changeRole: (memberId: string, role: string) => request<unknown>('POST', `/team/${encodeURIComponent(memberId)}/role`, { role }),
  removeMember: (memberId: string) => request<unknown>('POST', `/team/${encodeURIComponent(memberId)}/remove`),
  /** The CSV export's address for these filters (a plain download link: the cookie goes with it). */
  exportUrl: (query: URLSearchParams) => `/v1/portal/orders/export?${query}`,
};

const ACTION_PATHS: Record<string, string> = {
  resend_callback: 'callbacks/resend',
  cancel: 'cancel',
  refund: 'refund',
  complete_refund: 'complete-refund',
  resolve: 'resolve',
};

/** A user's email preferences as the API answers them (the address absent until given). */
export type EmailPreferences = Omit<EmailPreferencesBody, 'address'> & { address?: string };

export interface ApiToken {
  token_id: string;
  name: string;
  prefix?: string;
  created_at: string;
  last_used_at?: string;
}

export interface CallbackSecret {
  callback_secret: string;
  previous_callback_secret?: string;
  previous_valid_until?: string;
}

export interface Settings {
  name: string;
  sandbox: boolean;
  receive_currency: string;
  callback_statuses: string;
  xpubs: Record<string, { key: string; addresses: string[] }>;
}

export interface AuditEntry {
  at: string;
  action: string;
  who: string;
  from: string;
  details: Record<string, unknown>;
}

export interface Member {
  user_id: string;
  name: string;
  role: string;
  created_at: string;
  removed_at: string | null;
}
