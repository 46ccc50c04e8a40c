import type { PayPageView, payInvoiceView } from '#shared/schemas/pay';

/** The answer of every `/v1/pay/...` endpoint (shared/schemas/pay.ts). */
export type PayView = PayPageView;
export type PayOrder = PayView['order'];
export type PayInvoice = ReturnType<typeof payInvoiceView>;

/** `retryAfterMs`: how long the API asked us to wait (a 429's Retry-After), 0 when it did not. */
export type ApiResult = { ok: true; view: PayView } | { ok: false; status: number; code: string; retryAfterMs: number };

/** Retry-After in whole seconds (what the API sends; an HTTP date is read too), bounded to 10 min. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (!header) return 0;
  const ms = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - now;
  return Number.isFinite(ms) ? Math.min(600_000, Math.max(0, ms)) : 0;
}

/**
 * Where the API is: the page's `<meta name="api-base-url">`. In AWS the stack deploys
 * index.html with the API's base URL written into it, so the first request for the order
 * waits for nothing; locally it is empty (the API serves the page on its own origin).
 */
export function apiBase(): string {
  const configured = document.querySelector<HTMLMetaElement>('meta[name="api-base-url"]')?.content ?? '';
  return /^https?:\/\//.test(configured) ? configured.replace(/\/+$/, '') : '';
}

/** Calls `/v1/pay/<orderId><action>`; network failures come back as status 0. */
export async function callPage(orderId: string, action = '', body?: unknown): Promise<ApiResult> {
  try {
    const response = await fetch(`${apiBase()}/v1/pay/${encodeURIComponent(orderId)}${action}`, {
      method: action ? 'POST' : 'GET',
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
    const parsed = (await response.json().catch(() => ({}))) as PayView & { error_code?: string };
    if (response.ok && parsed.status === 200) return { ok: true, view: parsed };
    return { ok: false, status: response.status, code: parsed.error_code ?? '', retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
  } catch {
    return { ok: false, status: 0, code: '', retryAfterMs: 0 };
  }
}
