import { afterAll, describe, expect, it } from 'vitest';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import { isIP, type AddressInfo, type LookupFunction } from 'node:net';
import { createSecureContext } from 'node:tls';
import { recordAttack } from '../support/security-report';
import { CallbackTransportError, type CallbackTransportErrorKind, callbackAgent, postJson, type PostJsonOptions } from '#shared/callbacks/http-post';

/**
 * Real node http servers on 127.0.0.1 (port 0) stand in for merchants. Every server counts the
 * requests it receives, so "refused before connecting" and "redirect not followed" are
 * observed at the receiving end, not inferred from the client.
 */
interface TestServer {
  port: number;
  url: string;
  /** Requests received (counted as soon as their headers arrive). */
  requests: number;
  /** TCP connections accepted. */
  connections: number;
  /** Bodies of completed requests. */
  bodies: string[];
  server: Server;
}

const servers: TestServer[] = [];

async function startServer(handle: (req: IncomingMessage, res: ServerResponse, self: TestServer) => void): Promise<TestServer> {
  const self = { requests: 0, connections: 0, bodies: [] as string[] } as TestServer;
  const server = createServer((req, res) => {
    self.requests += 1;
    handle(req, res, self);
  });
  server.on('connection', () => {
    self.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self.server = server;
  self.port = (server.address() as AddressInfo).port;
  self.url = `http://127.0.0.1:${self.port}`;
  servers.push(self);
  return self;
}

/** Answers 200 with a small JSON body once the request body has been read. */
const ok = (req: IncomingMessage, res: ServerResponse, self: TestServer) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => {
    self.bodies.push(body);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
};

async function closeServer({ server }: TestServer): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

afterAll(async () => {
  await Promise.all(servers.splice(0).map(closeServer));
});

/** A DNS stand-in: the table's names resolve to its addresses, anything else is ENOTFOUND. */
function fakeDns(table: Record<string, string | string[]>): LookupFunction {
  return (hostname, options, callback) => {
    setImmediate(() => {
      const entry = table[hostname];
      if (entry === undefined) {
        const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: 'ENOTFOUND',
          syscall: 'getaddrinfo',
          hostname,
        });
        callback(error, options.all ? [] : '');
        return;
      }
      const answers = (Array.isArray(entry) ? entry : [entry]).map((address) => ({ address, family: isIP(address) }));
      if (options.all) callback(null, answers);
      else callback(null, answers[0]!.address, answers[0]!.family);
    });
  };
}

const post = (url: string, options: Partial<PostJsonOptions> = {}) => postJson(url, { body: '{"event":"test"}', headers: { 'webhook-id': 'evt_1' }, allowLoopback: false, ...options });

/** The transport error `promise` rejects with; fails the test if it resolves. */
async function transportFailure(promise: Promise<unknown>): Promise<CallbackTransportError> {
  const error = await promise.then(
    () => expect.fail('expected the delivery to be refused'),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(CallbackTransportError);
  return error as CallbackTransportError;
}

async function expectKind(promise: Promise<unknown>, kind: CallbackTransportErrorKind): Promise<CallbackTransportError> {
  const error = await transportFailure(promise);
  expect(error.kind).toBe(kind);
  // Safe to show a merchant: one line, no stack frames.
  expect(error.message).not.toMatch(/\n|\bat .+:\d+:\d+/);
  return error;
}

describe('postJson to a loopback address', () => {
  it('is refused when loopback is not allowed, and the server receives nothing', async () => {
    const merchant = await startServer(ok);

    const error = await expectKind(post(`${merchant.url}/callback`), 'forbidden-address');

    expect(error.message).toMatch(/loopback/);
    expect(merchant.requests).toBe(0);
    expect(merchant.connections).toBe(0);
  });

  it('is delivered when loopback is allowed (the local runtime)', async () => {
    const merchant = await startServer(ok);

    const result = await post(`${merchant.url}/callback`, { allowLoopback: true });

    expect(result.status).toBe(200);
    expect(result.body).toBe('{"ok":true}');
    expect(result.headers['content-type']).toBe('application/json');
    expect(result.latencyMs).toBeGreaterThan(0);
    expect(merchant.requests).toBe(1);
    expect(merchant.bodies).toEqual(['{"event":"test"}']);
  });

  it('is refused at connect time by the agent itself, without the URL pre-check', async () => {
    const merchant = await startServer(ok);
    const agent = callbackAgent('http:', { allowLoopback: false });

    const error = await new Promise<unknown>((resolve) => {
      const req = request(`${merchant.url}/`, { method: 'POST', agent }, () => resolve(undefined));
      req.on('error', resolve);
      req.end('{}');
    });

    expect(error).toBeInstanceOf(CallbackTransportError);
    expect((error as CallbackTransportError).kind).toBe('forbidden-address');
    expect(merchant.connections).toBe(0);
  });
});

/** What docs/security.md reports of the connect-time checks. */
const delivery = { rebindsRefused: 0, redirectsKept: 0 };
const REBIND_CASES: [name: string, address: string | string[], reason: RegExp][] = [
  ['evil.example', '10.0.0.1', /private/],
  ['rebind.example', '127.0.0.1', /loopback/],
  ['mapped.example', '::ffff:127.0.0.1', /loopback.*IPv4-mapped/],
  ['metadata.example', '169.254.169.254', /metadata/],
  ['v6metadata.example', 'fd00:ec2::254', /metadata/],
  ['compat.example', '::7f00:1', /IPv4-compatible/],
  ['mixed.example', ['93.184.215.14', '127.0.0.1'], /loopback/],
];
const REDIRECT_CASES: [label: string, location: (target: TestServer) => string][] = [
  ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'],
  ['a second loopback server', (target: TestServer) => `${target.url}/internal`],
];
const REBINDS = REBIND_CASES.length;
const REDIRECTS = REDIRECT_CASES.length;
afterAll(() => {
  recordAttack('ssrf-at-delivery', {
    attack: 'Callbacks to names that resolve to internal addresses at delivery time (DNS rebinding, IPv4-mapped and -compatible IPv6, metadata), and redirects to internal targets',
    count: REBINDS + REDIRECTS,
    outcome: `${delivery.rebindsRefused} of ${REBINDS} refused before connecting (the target saw no connection, the message names no address); ${delivery.redirectsKept} of ${REDIRECTS} redirects returned as a failure, never followed`,
    test: 'tests/integration/ssrf-delivery.test.ts',
  });
});

describe('postJson to a name that resolves to an internal address', () => {
  it.each(REBIND_CASES)('%s -> %s is refused before connecting', async (name, address, reason) => {
    const merchant = await startServer(ok);
    const lookup = fakeDns({ [name]: address });

    const error = await expectKind(post(`http://${name}:${merchant.port}/callback`, { lookup }), 'forbidden-address');

    expect(error.message).toMatch(reason);
    // The merchant-facing message does not reveal what the name resolved to.
    expect(error.message).not.toContain(Array.isArray(address) ? address[1] : address);
    expect(merchant.connections).toBe(0);
    expect(merchant.requests).toBe(0);
    delivery.rebindsRefused += 1;
  });

  it('still refuses private addresses when loopback is allowed', async () => {
    const lookup = fakeDns({ 'evil.example': '10.0.0.1', 'meta.example': '::ffff:169.254.169.254' });

    await expectKind(post('http://evil.example:9/', { lookup, allowLoopback: true }), 'forbidden-address');
    await expectKind(post('http://meta.example:9/', { lookup, allowLoopback: true }), 'forbidden-address');
  });

  it('delivers to a loopback name (IPv4-mapped too) when loopback is allowed', async () => {
    const merchant = await startServer(ok);
    const lookup = fakeDns({ 'rebind.example': '127.0.0.1', 'mapped.example': '::ffff:127.0.0.1' });

    const plain = await post(`http://rebind.example:${merchant.port}/`, { lookup, allowLoopback: true });
    const mapped = await post(`http://mapped.example:${merchant.port}/`, { lookup, allowLoopback: true });

    expect([plain.status, mapped.status]).toEqual([200, 200]);
    expect(merchant.requests).toBe(2);
  });

  it('reports a name that does not resolve as a DNS failure', async () => {
    const error = await expectKind(post('http://nowhere.example/', { lookup: fakeDns({}) }), 'dns');

    expect(error.code).toBe('ENOTFOUND');
  });
});

describe('postJson never follows redirects', () => {
  it.each(REDIRECT_CASES)('returns a 302 to %s as is', async (_label, location) => {
    const target = await startServer(ok);
    const redirecting = await startServer((req, res) => {
      req.resume();
      res.writeHead(302, { location: location(target) }).end();
    });

    const result = await post(`${redirecting.url}/callback`, { allowLoopback: true });

    expect(result.status).toBe(302);
    expect(result.headers.location).toBe(location(target));
    expect(redirecting.requests).toBe(1);
    expect(target.requests).toBe(0);
    expect(target.connections).toBe(0);
    delivery.redirectsKept += 1;
  });
});

describe('postJson bounds time and size', () => {
  it("rejects with 'timeout' when the server never answers, and drops the connection", async () => {
    let serverSideClosed: Promise<void> = Promise.resolve();
    const silent = await startServer((req) => {
      serverSideClosed = new Promise((resolve) => req.socket.on('close', () => resolve()));
    });

    const error = await expectKind(post(silent.url, { allowLoopback: true, timeoutMs: 300 }), 'timeout');

    expect(error.message).toMatch(/300 ms/);
    expect(silent.requests).toBe(1);
    await serverSideClosed;
  });

  it('keeps a status that came in time when the body never ends: cut off at the deadline, not a timeout', async () => {
    const trickling = await startServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });

    const started = Date.now();
    const response = await post(trickling.url, { allowLoopback: true, timeoutMs: 300 });
    expect(response).toMatchObject({ status: 200, body: 'partial', truncated: true });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(trickling.requests).toBe(1);
  });

  it('reads at most maxResponseBytes of a 5 MB body and still returns the status', async () => {
    const total = 5 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const streaming = await startServer((req, res) => {
      req.resume();
      res.writeHead(201, { 'content-type': 'text/plain', 'content-length': String(total) });
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('error', () => undefined);
      pump();
    });

    const result = await post(streaming.url, { allowLoopback: true, maxResponseBytes: 64 * 1024 });

    expect(result.status).toBe(201);
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.body)).toBe(64 * 1024);
    expect(result.body).toMatch(/^x+$/);
  });

  it('returns a small body whole and untruncated', async () => {
    const merchant = await startServer(ok);

    const result = await post(merchant.url, { allowLoopback: true, maxResponseBytes: 64 * 1024 });

    expect(result.truncated).toBe(false);
    expect(result.body).toBe('{"ok":true}');
  });
});

describe('postJson reports transport failures by kind', () => {
  it("rejects with 'connection' when the port is closed", async () => {
    const closed = await startServer(ok);
    const { url } = closed;
    servers.splice(servers.indexOf(closed), 1);
    await closeServer(closed);

    const error = await expectKind(post(url, { allowLoopback: true }), 'connection');

    expect(error.code).toBe('ECONNREFUSED');
    expect(error.message).not.toContain('127.0.0.1');
  });

  it("rejects with 'tls' when the server does not speak TLS", async () => {
    const plain = await startServer(ok);

    const error = await expectKind(post(`https://127.0.0.1:${plain.port}/`, { allowLoopback: true }), 'tls');

    expect(error.message).toMatch(/TLS/);
  });

  it("rejects a URL the creation-time check refuses as 'forbidden-address', without connecting", async () => {
    const merchant = await startServer(ok);

    await expectKind(post(`http://localhost:${merchant.port}/`), 'forbidden-address');
    await expectKind(post(`http://user:pw@127.0.0.1:${merchant.port}/`, { allowLoopback: true }), 'forbidden-address');
    await expectKind(post('ftp://shop.example.com/'), 'forbidden-address');
    expect(merchant.connections).toBe(0);
  });
});

describe('postJson over the wire', () => {
  it("rejects with 'connection' (reset) when the server drops the connection before the status line", async () => {
    const dropping = await startServer((req) => req.socket.destroy());

    const error = await expectKind(post(dropping.url, { allowLoopback: true }), 'connection');

    expect(error.message).toBe('connection reset by the callback host (ECONNRESET)');
    expect(dropping.requests).toBe(1);
  });

  it("rejects with 'timeout' when DNS never answers", async () => {
    const silentDns: LookupFunction = () => undefined;

    const error = await expectKind(post('http://slow-dns.example/', { lookup: silentDns, timeoutMs: 200 }), 'timeout');

    expect(error.message).toBe('no response from the callback host within 200 ms');
  });

  it('returns a header sent twice as both its values, in order', async () => {
    const merchant = await startServer((req, res) => {
      req.resume();
      res.setHeader('x-seen', ['one', 'two']);
      res.writeHead(204, { 'Retry-After': '30' }).end();
    });

    const result = await post(merchant.url, { allowLoopback: true });

    expect(result.status).toBe(204);
    expect(result.headers['x-seen']).toEqual(['one', 'two']);
    expect(result.headers['retry-after']).toBe('30');
  });

  it('sends the host name as SNI over https (none for a literal address) and fails an untrusted certificate as tls', async () => {
    const fixtures = new URL('../fixtures/lnd/', import.meta.url);
    const context = createSecureContext({ cert: readFileSync(new URL('node.cert', fixtures)), key: readFileSync(new URL('node.key', fixtures)) });
    const names: string[] = [];
    let requests = 0;
    const server = createTlsServer(
      {
        SNICallback: (name, callback) => {
          names.push(name);
          callback(null, context);
        },
        cert: readFileSync(new URL('node.cert', fixtures)),
        key: readFileSync(new URL('node.key', fixtures)),
      },
      (_req, res) => {
        requests += 1;
        res.end();
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const lookup = fakeDns({ 'shop.example': '127.0.0.1' });

      const named = await expectKind(post(`https://shop.example:${port}/`, { lookup, allowLoopback: true }), 'tls');
      const literal = await expectKind(post(`https://127.0.0.1:${port}/`, { allowLoopback: true }), 'tls');

      expect(named.message).toMatch(/^TLS with the callback host failed \(/);
      expect(literal.code).toBe(named.code);
      expect(names).toEqual(['shop.example']);
      expect(requests).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('opens a fresh connection for every callback to the same host, each one judged', async () => {
    const merchant = await startServer(ok);
    let lookups = 0;
    const dns = fakeDns({ 'shop.example': '127.0.0.1' });
    const lookup: LookupFunction = (hostname, options, callback) => {
      lookups += 1;
      dns(hostname, options, callback);
    };

    for (let i = 0; i < 3; i += 1) {
      expect((await post(`http://shop.example:${merchant.port}/`, { lookup, allowLoopback: true })).status).toBe(200);
    }

    expect(lookups).toBe(3);
    expect(merchant.connections).toBe(3);
  });
});
