/**
 * The edges an attacker tried against the local runtime (issue 21, item 5): each is answered
 * with a JSON error in the service's shape (`status`, `error`, `error_code`), never a 5xx and
 * never Node's empty default answer. Raw sockets, so the requests are exactly what is sent.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '#infra/local/http-adapter';
import { apiFunctions } from '#infra/local/handlers';
import { staticFiles } from '#infra/local/static-files';
import { ROUTES } from '#shared/http/routes';

let port: number;
let close: () => Promise<void>;

beforeAll(async () => {
  const page = mkdtempSync(join(tmpdir(), 'edges-page-'));
  writeFileSync(join(page, 'index.html'), '<!doctype html><title>Pay</title>');
  const server = createApiServer(
    ROUTES.map((route) => ({ ...route, load: apiFunctions[route.fn]! })),
    [staticFiles('/pay/', page, 'page')],
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  close = () => new Promise((resolve) => (server.close(() => resolve()), server.closeAllConnections()));
});
afterAll(() => close());

/** Sends `head` (and `body`) as written and reads the whole answer (the server closes or sends its length). */
function raw(head: string, body: Buffer = Buffer.alloc(0)): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text.slice(0, end))?.[1];
      if (end >= 0 && length !== undefined && Buffer.byteLength(text.slice(end + 4)) >= Number(length)) socket.destroy();
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      resolve({ status: Number(text.slice(9, 12)), headers: text.slice(0, end), body: text.slice(end + 4) });
    });
    socket.on('error', reject);
    socket.write(head);
    if (body.length) socket.write(body);
  });
}

const expectJsonError = (answer: { status: number; headers: string; body: string }, status: number, code: string) => {
  expect(answer.status, answer.headers).toBe(status);
  expect(answer.headers).toMatch(/content-type: application\/json/i);
  expect(JSON.parse(answer.body)).toEqual({ status, error: expect.any(String), error_code: code });
};

describe('the local runtime at its edges', () => {
  it('a page path that is not percent-encoded UTF-8 (/pay/%ff) is a JSON 400, not a 500', async () => {
    expectJsonError(await raw('GET /pay/%ff HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'), 400, 'BAD_REQUEST');
    // A well-formed one still gets the page.
    expect((await raw('GET /pay/some%20order HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).status).toBe(200);
  });

  it('a request target that is not a plain path (//, an absolute URL) is a JSON 4xx, not a 500', async () => {
    expectJsonError(await raw('GET // HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'), 404, 'NOT_FOUND');
    expectJsonError(await raw('GET http://elsewhere.example/v1/orders HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'), 400, 'BAD_REQUEST');
  });

  it('an HTTP/1.1 request without Host is a JSON 400', async () => {
    expectJsonError(await raw('GET /v1/orders HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'BAD_REQUEST');
  });

  it('an unknown Expect is a JSON 417; Expect: 100-continue goes on', async () => {
    expectJsonError(await raw('POST /v1/orders HTTP/1.1\r\nHost: localhost\r\nExpect: teapot\r\nContent-Length: 2\r\nConnection: close\r\n\r\n', Buffer.from('{}')), 417, 'EXPECTATION_FAILED');
    const continued = await raw('POST /v1/orders HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\n', Buffer.from('{}'));
    expect(continued.body).toContain('AUTHENTICATION_FAILED');
  });

  it('a body over 10 MB is a JSON 413 PAYLOAD_TOO_LARGE in the documented shape', async () => {
    const body = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
    const answer = await raw(`POST /v1/orders HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`, body);
    expectJsonError(answer, 413, 'PAYLOAD_TOO_LARGE');
  });
});
