import type { PayPageView, payInvoiceView } from '#shared/schemas/pay';
import { retryAfterMs } from '../common/poller';

/** The answer of every `/v1/pay/...` endpoint (shared/schemas/pay.ts). */
export type PayView = PayPageView;
export type PayOrder = PayView['order'];
export type PayInvoice = ReturnType<typeof payInvoiceView>;

/**
 * An answer of the API: its body when the status is the one expected, else why not (status 0:
 * no answer at all; `message`: the API's own words; `retryAfterMs`: how long it asked us to
 * wait, a 429's Retry-After, 0 when it did not).
 */
export type Answer<T> = { ok: true; body: T } | { ok: false; status: number; code: string; message: string; retryAfterMs: number };

/**
 * Where the API is: the page's `<meta name="api-base-url">`. In AWS the stack deploys
 * index.html with the API's base URL written into it, so the first request for the order
 * waits for nothing; locally it is empty (the API serves the page on its own origin).
 */
export function apiBase(): string {
  const configured = document.querySelector<HTMLMetaElement>('meta[name="api-base-url"]')?.content ?? '';
  return /^https?:\/\//.test(configured) ? configured.replace(/\/+$/, '') : '';
}

/**
 * The one call of the buyer's pages to the API: `path` with a JSON body (a POST) or none (a GET,
 * unless `method` says otherwise), never from a cache.
 */
export async function callApi<T>(path: string, expected: number, body?: unknown, method = body === undefined ? 'GET' : 'POST'): Promise<Answer<T>> {
  try {
    const response = await fetch(`${apiBase()}${path}`, {
      method,
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
    const parsed = (await response.json().catch(() => ({}))) as T & { error_code?: string; error?: unknown };
    if (response.status === expected) return { ok: true, body: parsed };
    return {
      ok: false,
      status: response.status,
      code: parsed.error_code ?? '',
      message: typeof parsed.error === 'string' ? parsed.error : '',
      retryAfterMs: retryAfterMs(response.headers.get('retry-after')),
    };
  } catch {
    return { ok: false, status: 0, code: '', message: '', retryAfterMs: 0 };
  }
}

/** Calls `/v1/pay/<orderId><action>` (an action is a POST): the order's page as it stands. */
export const callPage = (orderId: string, action = '', body?: unknown): Promise<Answer<PayView>> =>
  callApi<PayView>(`/v1/pay/${encodeURIComponent(orderId)}${action}`, 200, body, action ? 'POST' : 'GET');
