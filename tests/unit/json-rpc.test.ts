import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SourceError } from '#shared/core/source-error';
import { JsonRpcClient, JsonRpcError, type JsonRpcOptions } from '#shared/watchers/sources/json-rpc';

/**
 * The chain sources' JSON-RPC client (shared/watchers/sources/json-rpc.ts) over their HTTP client
 * (http.ts), against a local server answering each request as the test says: what is asked
 * again (a transport failure, a timeout, 429, 5xx) and what never is (the node's answer: a
 * JSON-RPC error object, a body that is not JSON, another status, an answer too large).
 */

type Call = { id: number; method: string };
/** A fixed answer (or none: `hang`), or one made from the request (a call or a batch). */
type Reply = { status?: number; body?: string; hang?: boolean } | ((request: Call | Call[]) => { status?: number; body: string });

let server: Server;
let base: string;
/** What the next requests are answered, in order; the last one for all after it. */
let replies: Reply[] = [];
/** The requests seen: their parsed bodies and authorization headers. */
let seen: { body: unknown; authorization: string | undefined }[] = [];
const open = new Set<ServerResponse>();

/** The node answering each call with `<method>:<id>`. */
const answer = (request: Call | Call[]) => {
  const result = (call: Call) => ({ jsonrpc: '2.0', id: call.id, result: `${call.method}:${call.id}` });
  return { body: JSON.stringify(Array.isArray(request) ? request.map(result) : result(request)) };
};

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      seen.push({ body, authorization: request.headers.authorization });
      const reply = replies.length > 1 ? replies.shift()! : replies[0]!;
      const made = typeof reply === 'function' ? reply(body) : reply;
      if ('hang' in made && made.hang) return void open.add(response);
      response.writeHead(made.status ?? 200, { 'content-type': 'application/json' }).end(made.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of open) response.destroy();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  replies = [answer];
  seen = [];
});

const client = (options: Partial<JsonRpcOptions> = {}) => new JsonRpcClient({ url: `${base}/v3/secret-key`, label: 'test-rpc', attempts: 3, backoffMs: 1, timeoutMs: 1000, ...options });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('it should fail'),
    (error: unknown) => error as Error,
  );

describe('JsonRpcClient', () => {
  it('matches a batch answered in another order by id, and names the source by its host', async () => {
    replies = [(calls) => ({ body: JSON.stringify([...(calls as Call[])].reverse().map((call) => ({ jsonrpc: '2.0', id: call.id, result: call.method }))) })];
    const rpc = client();
    expect(rpc.source).toBe(`test-rpc:${new URL(base).host}`);
    expect(
      await rpc.batch([
        { method: 'a', params: [] },
        { method: 'b', params: [1] },
        { method: 'c', params: [] },
      ]),
    ).toEqual(['a', 'b', 'c']);
    expect(seen).toHaveLength(1);
  });

  it('asks again after a 503, a 429 and a timeout, and gives the answer', async () => {
    replies = [{ status: 503, body: 'busy' }, { status: 429, body: 'slow down' }, answer];
    expect(await client().call('eth_chainId', [])).toBe('eth_chainId:1');
    expect(seen).toHaveLength(3);

    seen = [];
    replies = [{ hang: true }, answer];
    expect(await client({ timeoutMs: 100 }).call('getSlot', [])).toBe('getSlot:1');
    expect(seen).toHaveLength(2);
  });

  it('still failing after the last try: a SourceError naming the method and the tries, not the URL (its path may hold an API key)', async () => {
    replies = [{ status: 502, body: 'bad gateway' }];
    const error = await failure(client({ attempts: 2 }).call('eth_blockNumber', []));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toBe(`test-rpc:${new URL(base).host}: eth_blockNumber: HTTP 502 after 2 tries`);
    expect(seen).toHaveLength(2);

    seen = [];
    replies = [{ hang: true }];
    const timeout = await failure(
      client({ attempts: 2, timeoutMs: 100 }).batch([
        { method: 'a', params: [] },
        { method: 'b', params: [] },
      ]),
    );
    expect(timeout.message).toMatch(/batch of 2 \(a, b\): no answer within 100 ms after 2 tries$/);
    expect(timeout.message).not.toContain('secret-key');
  });

  it.each<[string, Reply, RegExp]>([
    ['a JSON-RPC error object', { body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found"}}' }, /eth_getBlockByNumber failed: -32000 header not found/],
    ['a body that is not JSON', { body: '<html>oops' }, /eth_getBlockByNumber: answer is not JSON/],
    ['an answer to another request', { body: '{"jsonrpc":"2.0","id":7,"result":"0x1"}' }, /no answer to eth_getBlockByNumber \(id 1\)/],
    ['a malformed error object', { body: '{"jsonrpc":"2.0","id":1,"error":"boom"}' }, /malformed error object/],
    ['another status', { status: 401, body: '{"error":"unauthorized"}' }, /eth_getBlockByNumber: HTTP 401$/],
    ['an answer too large', { body: `{"x":"${'a'.repeat(2_000)}"}` }, /eth_getBlockByNumber: answer larger than 1000 bytes/],
  ])('never asks again after %s: the node answered', async (_name, reply, message) => {
    replies = [reply];
    const error = await failure(client({ maxBodyBytes: 1000 }).call('eth_getBlockByNumber', ['latest', false]));
    expect(error).toBeInstanceOf(SourceError);
    expect(error.message).toMatch(message);
    expect(seen).toHaveLength(1);
  });

  it('a JSON-RPC error is a JsonRpcError with the method, code and the node words; a status the caller reads (TronGrid 400) carries one too', async () => {
    replies = [{ status: 400, body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"exceed max block range: 5000"}}' }];
    const error = await failure(client({ answerStatuses: [200, 400] }).call('eth_getLogs', [{}]));
    expect(error).toBeInstanceOf(JsonRpcError);
    expect(error).toMatchObject({ method: 'eth_getLogs', code: -32602, rpcMessage: 'exceed max block range: 5000' });
    expect(seen).toHaveLength(1);
  });

  it('sends credentials in the URL as a Basic authorization header (fetch refuses such a URL), never in an error', async () => {
    const rpc = client({ url: `${base.replace('://', '://user:p%40ss@')}/`, attempts: 1 });
    expect(await rpc.call('getHealth', [])).toBe('getHealth:1');
    expect(seen[0]!.authorization).toBe(`Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    replies = [{ status: 500, body: 'down' }];
    const error = await failure(rpc.call('getHealth', []));
    expect(error.message).not.toMatch(/user|p@ss|p%40ss/);
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => new JsonRpcClient({ url: 'ftp://node.example/' })).toThrow(/JSON-RPC URL must be http\(s\), got "ftp:"/);
  });
});
