import type { PayPageView, payInvoiceView } from '#shared/schemas/pay';

/** The answer of every `/v1/pay/...` endpoint (shared/schemas/pay.ts). */
export type PayView = PayPageView;
export type PayOrder = PayView['order'];
export type PayInvoice = ReturnType<typeof payInvoiceView>;

export type ApiResult = { ok: true; view: PayView } | { ok: false; status: number; code: string };

let base: Promise<string> | undefined;

/**
 * Where the API is. In AWS the stack deploys `config.json` next to the page with the API's
 * base URL; locally there is none (the API serves the page on its own origin).
 */
function apiBase(): Promise<string> {
  return (base ??= (async () => {
    try {
      const response = await fetch('config.json', { cache: 'no-store' });
      if (response.ok && (response.headers.get('content-type') ?? '').includes('json')) {
        const config = (await response.json()) as { apiBaseUrl?: unknown };
        if (typeof config.apiBaseUrl === 'string' && /^https?:\/\//.test(config.apiBaseUrl)) return config.apiBaseUrl.replace(/\/+$/, '');
      }
    } catch {
      // No config: the same origin.
    }
    return '';
  })());
}

/** Calls `/v1/pay/<orderId><action>`; network failures come back as status 0. */
export async function callPage(orderId: string, action = '', body?: unknown): Promise<ApiResult> {
  try {
    const response = await fetch(`${await apiBase()}/v1/pay/${encodeURIComponent(orderId)}${action}`, {
      method: action ? 'POST' : 'GET',
      headers: body === undefined ? undefined : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
    const parsed = (await response.json().catch(() => ({}))) as PayView & { error_code?: string };
    if (response.ok && parsed.status === 200) return { ok: true, view: parsed };
    return { ok: false, status: response.status, code: parsed.error_code ?? '' };
  } catch {
    return { ok: false, status: 0, code: '' };
  }
}
