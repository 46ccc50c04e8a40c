/**
 * The orders export is streamed, not buffered: over the local runtime (the same handler, the
 * same route-table entry as AWS's function URL), a merchant with 10,000 orders gets the CSV's
 * first rows while the handler is still reading pages, the whole file with the right row count
 * and no truncation, chunked; a client that stops reading stops the reading of pages
 * (backpressure); another merchant's orders never appear; a refused session is the usual JSON
 * error; and an export that cannot finish ends with its incomplete line and a cut transfer.
 * Pages are counted as the table sees them: Queries of the merchant's orders index.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '#infra/local/http-adapter';
import { apiFunctions } from '#infra/local/handlers';
import { isStreamingHandler } from '#infra/local/lambda-streaming';
import { ROUTES } from '#shared/http/routes';
import { EXPORT_COLUMNS, EXPORT_PAGE, EXPORT_STOP_MARGIN_MS } from '#shared/services/portal/export';
import { db } from '#shared/store/client';
import { sha256 } from '#shared/services/portal/sessions';
import { insertSession } from '#shared/store/sessions';
import { merchantOrdersPartition } from '#shared/store/keys';
import { newMerchant, startApi } from '../support/api';
import { seedOrders } from '../support/seed-orders';
import { PortalBrowser, signedInUser } from '../support/portal';

const MANY = 10_000;
const EXPORT = '/v1/portal/orders/export';

let api: Awaited<ReturnType<typeof startApi>>;
let origin: string;
let a: { userId: number; owner: PortalBrowser; ids: Set<string> };
let b: { userId: number; owner: PortalBrowser; ids: string[] };
/** Queries of each merchant's orders index so far (the export's pages), by merchant id. */
const pagesRead = new Map<number, number>();

beforeAll(async () => {
  api = await startApi();
  origin = `http://localhost:${new URL(api.url).port}`;
  Object.assign(process.env, { PORTAL_ORIGIN: origin, PORTAL_CLIENT_IP_HEADER: 'x-test-client' });
  db().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { IndexName?: string; ExpressionAttributeValues?: Record<string, unknown> };
      const partition = input.ExpressionAttributeValues?.[':pk'];
      for (const merchant of [a?.userId, b?.userId]) {
        if (merchant !== undefined && input.IndexName === 'GSI1' && partition === merchantOrdersPartition(merchant)) pagesRead.set(merchant, (pagesRead.get(merchant) ?? 0) + 1);
      }
      return next(args);
    },
    { step: 'initialize', name: 'countExportPages' },
  );
  const merchantA = await newMerchant(true, 'Many orders');
  const merchantB = await newMerchant(true, 'Few orders');
  // Long titles make the file about 11 MB (21 pages): more than loopback sockets buffer, so a reader that
  // stops is felt (it stalled after 9 pages). 10,000 orders rather than 30,000 of shorter titles: the same
  // file and checks for a third of the writes and reads (DynamoDB Local's CPU: docs/performance.md).
  const [idsA, idsB] = await Promise.all([seedOrders(merchantA.user_id, MANY, { prefix: 'a', titleLength: 1_000 }), seedOrders(merchantB.user_id, 3, { prefix: 'b' })]);
  a = { userId: merchantA.user_id, owner: (await signedInUser(api.url, origin, merchantA.user_id)).browser, ids: new Set(idsA) };
  b = { userId: merchantB.user_id, owner: (await signedInUser(api.url, origin, merchantB.user_id, 'viewer')).browser, ids: idsB };
}, 240_000);

afterAll(async () => {
  await api?.close();
});

/** Reads an export as a browser's download does, chunk by chunk, noting the pages read when the first row arrived. */
async function download(baseUrl: string, browser: PortalBrowser, userId: number, query = '') {
  const before = pagesRead.get(userId) ?? 0;
  const response = await fetch(`${baseUrl}${EXPORT}${query}`, { headers: { cookie: browser.cookie! } });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let chunks = 0;
  let pagesAtFirstRow: number | undefined;
  let error: unknown;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      text += decoder.decode(value, { stream: true });
      if (pagesAtFirstRow === undefined && text.split('\r\n').length > 2) pagesAtFirstRow = (pagesRead.get(userId) ?? 0) - before;
    }
  } catch (caught) {
    error = caught;
  }
  return { response, text, chunks, pagesAtFirstRow, pages: (pagesRead.get(userId) ?? 0) - before, error };
}

const rowsOf = (text: string) => text.split('\r\n').slice(1, -1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the streamed orders export', () => {
  it('is the one streamed route, and its handler is the streaming kind (the mark Lambda reads)', async () => {
    for (const route of ROUTES) {
      const { handler } = await apiFunctions[route.fn]!();
      expect(isStreamingHandler(handler), route.fn).toBe(Boolean(route.stream));
    }
  });

  it(`sends ${MANY} orders whole, chunked, its first rows before the handler read its last page`, async () => {
    const { response, text, chunks, pagesAtFirstRow, pages, error } = await download(api.url, a.owner, a.userId);
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('x-export-truncated')).toBeNull();
    expect(text.split('\r\n')[0]).toBe(EXPORT_COLUMNS.join(','));
    const rows = rowsOf(text);
    expect(rows).toHaveLength(MANY);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text).not.toContain('# EXPORT INCOMPLETE');
    const ids = new Set(rows.map((row) => row.split(',')[0]));
    expect(ids.size).toBe(MANY);
    expect([...ids].every((id) => a.ids.has(id!))).toBe(true);
    // Newest first: the seeded references count up going back in time.
    expect(rows[0]!.split(',')[1]).toBe('a-0');
    expect(rows.at(-1)!.split(',')[1]).toBe(`a-${MANY - 1}`);
    // Streamed: many chunks, and the first rows came while most pages were still unread.
    expect(pages).toBeGreaterThanOrEqual(MANY / EXPORT_PAGE);
    expect(chunks).toBeGreaterThan(MANY / EXPORT_PAGE / 2);
    expect(pagesAtFirstRow).toBeDefined();
    expect(pagesAtFirstRow!).toBeLessThan(pages / 2);
  }, 120_000);

  it('reads no further pages while the client does not read (backpressure), and stops when it goes away', async () => {
    const before = pagesRead.get(a.userId) ?? 0;
    const response = await fetch(`${api.url}${EXPORT}`, { headers: { cookie: a.owner.cookie! } });
    const reader = response.body!.getReader();
    await reader.read();
    // Whatever the sockets between can hold goes on being read; then the handler must wait.
    // Stalled: no page for 3 s (on a loaded machine one page has taken over a second).
    let stalled = -1;
    let still = 0;
    for (let waited = 0; waited < 30_000 && still < 6; waited += 500) {
      const now = (pagesRead.get(a.userId) ?? 0) - before;
      still = now === stalled ? still + 1 : 0;
      stalled = now;
      await sleep(500);
    }
    await sleep(2000);
    expect((pagesRead.get(a.userId) ?? 0) - before).toBe(stalled);
    expect(stalled).toBeLessThan(MANY / EXPORT_PAGE);
    await reader.cancel();
    await sleep(1000);
    const afterCancel = (pagesRead.get(a.userId) ?? 0) - before;
    expect(afterCancel).toBeLessThanOrEqual(stalled + 1);
  }, 60_000);

  it("never carries another merchant's orders", async () => {
    const { response, text } = await download(api.url, b.owner, b.userId);
    expect(response.status).toBe(200);
    const rows = rowsOf(text);
    expect(rows.map((row) => row.split(',')[0]).sort()).toEqual([...b.ids].sort());
    for (const row of rows) expect(a.ids.has(row.split(',')[0]!)).toBe(false);
  });

  it('filters as the list does (status), streamed the same way', async () => {
    const { response, text } = await download(api.url, a.owner, a.userId, '?status=CANCELED');
    expect(response.status).toBe(200);
    expect(text).toBe(`${EXPORT_COLUMNS.join(',')}\r\n`);
  });

  it('answers a refused session or a bad query with the usual JSON error, before any CSV', async () => {
    const id = randomBytes(32).toString('base64url');
    const members = await fetch(`${api.url}/v1/portal/session`, { headers: { cookie: a.owner.cookie! } }).then((answer) => answer.json() as Promise<{ user: { user_id: string } }>);
    await insertSession(sha256(id), {
      user_id: members.user.user_id,
      merchant_id: a.userId,
      csrf_token: 'x',
      created_at: new Date(Date.now() - 2 * 86_400_000).toISOString(),
      expires_at: new Date(Date.now() - 86_400_000).toISOString(),
    });
    for (const [headers, query, status, code] of [
      [{ cookie: `portal_session=${id}` }, '', 401, 'SESSION_REQUIRED'],
      [{}, '', 401, 'SESSION_REQUIRED'],
      [{ cookie: a.owner.cookie! }, '?status=BOGUS', 400, undefined],
    ] as [Record<string, string>, string, number, string | undefined][]) {
      const answer = await fetch(`${api.url}${EXPORT}${query}`, { headers });
      expect(answer.status).toBe(status);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = (await answer.json()) as { status: number; error_code: string };
      expect(body.status).toBe(status);
      if (code) expect(body.error_code).toBe(code);
    }
  });

  it('ends an export that runs out of time with its incomplete line, and cuts the transfer', async () => {
    // The same handler with a function timeout inside the export's stop margin: the header goes, then it stops.
    const server: Server = createApiServer(ROUTES.map((route) => ({ ...route, ...(route.stream ? { timeoutSeconds: EXPORT_STOP_MARGIN_MS / 1000 } : {}), load: apiFunctions[route.fn]! })));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { response, text, error } = await download(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, a.owner, a.userId);
      expect(response.status).toBe(200);
      expect(text).toBe(`${EXPORT_COLUMNS.join(',')}\r\n# EXPORT INCOMPLETE after 0 orders: this file is not the whole export. Export again, or narrow the dates.\r\n`);
      // The client learns it from the transfer too: the body never ended cleanly.
      expect(error).toBeInstanceOf(Error);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
