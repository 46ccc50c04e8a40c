import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROUTES } from '#shared/http/routes';
import { createApiServer } from '#infra/local/http-adapter';
import { apiFunctions } from '#infra/local/handlers';
import { createMerchant, type MerchantCredentials, type NewMerchant } from '#shared/services/merchants';

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body (every answer of the API is JSON; a non-JSON body fails the test). */
  body: any;
}

/**
 * The API behind the local API Gateway adapter, on a free loopback port, with the real handlers.
 * They count request quotas in the table only with QUOTA_STORE=table in the environment (as AWS
 * and the local runtime set it), which a file sets before its handlers first read it.
 */
export async function startApi(options: { clientIpHeader?: string } = {}): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createApiServer(
    ROUTES.map((route) => ({ ...route, load: apiFunctions[route.fn]! })),
    [],
    options,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (for malformed or oversized bodies). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export function client(baseUrl: string) {
  return async (method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.token = options.token;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(baseUrl + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`${method} ${path} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };
}

export async function newMerchant(sandbox = true, name = 'Test Shop', options: Partial<NewMerchant> = {}): Promise<MerchantCredentials> {
  return createMerchant({ name, sandbox, ...options });
}

/** What {@link useTestApi} hands a test file: its API's address, a client of it, a sandbox merchant's token. */
export interface TestApi {
  url: string;
  call: ReturnType<typeof client>;
  token: string;
}

/**
 * The API on a free port and a sandbox merchant for this test file: started before its tests
 * (then `ready` gets them) and stopped after.
 */
export function useTestApi(ready: (api: TestApi) => void): void {
  let api: Awaited<ReturnType<typeof startApi>> | undefined;
  beforeAll(async () => {
    api = await startApi();
    ready({ url: api.url, call: client(api.url), token: (await newMerchant()).api_token });
  });
  afterAll(async () => {
    await api?.close();
  });
}

/** Asserts the API's error body `{status, error, error_code}` (and, optionally, part of its message). */
export function expectError(response: ApiResponse, status: number, code: string, messagePart?: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toEqual({ status, error: expect.any(String), error_code: code });
  if (messagePart) expect(response.body.error).toContain(messagePart);
}

/**
 * Asserts the answer to a repeated merchant_order_id: 400 ORDER_MERCHANTID_EXIST carrying the
 * order that holds the reference and its payment_url (what WooCommerce and WHMCS read).
 */
export function expectReferenceTaken(response: ApiResponse, holder: { order_id: string; status?: string }): void {
  expect(response.status, response.text).toBe(400);
  expect(Object.keys(response.body)).toEqual(['status', 'error', 'error_code', 'order', 'payment_url']);
  expect(response.body).toMatchObject({ status: 400, error_code: 'ORDER_MERCHANTID_EXIST', order: { order_id: holder.order_id } });
  if (holder.status) expect(response.body.order.status).toBe(holder.status);
  expect(response.body.payment_url).toContain(holder.order_id);
}
