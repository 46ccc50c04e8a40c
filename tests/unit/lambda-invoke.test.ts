/**
 * The wake function's asynchronous Lambda Invoke (shared/aws/lambda-invoke.ts), against a local
 * server that checks the request as the Lambda API does: the path, InvocationType Event, and the
 * SigV4 signature recomputed here from the AWS specification (canonical request, string to
 * sign, the HMAC key chain), independently of the signer the module uses.
 */
import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asyncInvoker } from '#shared/aws/lambda-invoke';
import { readWakeConfig } from '#shared/core/config';
import { ConfigError } from '#shared/core/env';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token-example' };

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let endpoint: string;
const received: Received[] = [];
let answer = 202;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(answer, { 'content-type': 'application/json' }).end(answer === 202 ? '' : '{"Type":"User","message":"not allowed"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** The signature AWS computes for a request (Signature Version 4, as the Lambda API checks it). */
function expectedSignature(request: Received, region: string): { signature: string; scope: string } {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(String(request.headers.authorization));
  if (!auth) throw new Error(`not a SigV4 Authorization header: ${request.headers.authorization}`);
  const [, , date, , service, signedHeaders] = auth;
  const names = signedHeaders!.split(';');
  const amzDate = String(request.headers['x-amz-date']);
  const canonical = [request.method, request.path, '', ...names.map((name) => `${name}:${String(request.headers[name]).trim()}`), '', signedHeaders, sha256(request.body)].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${CREDENTIALS.secretAccessKey}`, date!), region), service!), 'aws4_request');
  return { signature: createHmac('sha256', key).update(toSign).digest('hex'), scope };
}

describe('asyncInvoker', () => {
  it('POSTs the payload to the function with InvocationType Event, signed as SigV4 for lambda in the region', async () => {
    const invoke = asyncInvoker({ region: 'eu-west-1', endpoint, credentials: async () => CREDENTIALS });
    await invoke('CryptoPayOrders-Watchers-WatchChainBtc-AbC123', { source: 'wake-watchers', chain: 'BTC' });
    const request = received.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', path: '/2015-03-31/functions/CryptoPayOrders-Watchers-WatchChainBtc-AbC123/invocations' });
    expect(JSON.parse(request.body)).toEqual({ source: 'wake-watchers', chain: 'BTC' });
    expect(request.headers['x-amz-invocation-type']).toBe('Event');
    expect(request.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
    const signedHeaders = /SignedHeaders=([^,]+)/.exec(String(request.headers.authorization))![1]!.split(';');
    // The invocation type and the session token are signed: neither can be changed in flight.
    expect(signedHeaders).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'x-amz-invocation-type', 'x-amz-security-token']));
    const { signature, scope } = expectedSignature(request, 'eu-west-1');
    expect(String(request.headers.authorization)).toContain(`Credential=${CREDENTIALS.accessKeyId}/${scope}`);
    expect(String(request.headers.authorization)).toMatch(new RegExp(`Signature=${signature}$`));
  });

  it('fails when the Lambda API does not queue the invocation (anything but 202), naming the function and the answer', async () => {
    answer = 403;
    try {
      const invoke = asyncInvoker({ region: 'eu-west-1', endpoint, credentials: async () => CREDENTIALS });
      await expect(invoke('watch-chain-ltc', {})).rejects.toThrow(/Lambda Invoke of watch-chain-ltc answered HTTP 403: .*not allowed/);
    } finally {
      answer = 202;
    }
  });
});

describe('the wake configuration', () => {
  const env = { AWS_REGION: 'eu-west-1' };
  it('reads the watcher function of each chain', () => {
    expect(readWakeConfig({ ...env, WATCHER_FUNCTIONS: '{"BTC":"fn-btc","TRON":"fn-tron"}' })).toEqual({
      watcherFunctions: { BTC: 'fn-btc', TRON: 'fn-tron' },
      region: 'eu-west-1',
      lambdaEndpoint: undefined,
    });
  });
  it('refuses a missing, malformed or wrongly shaped WATCHER_FUNCTIONS', () => {
    expect(() => readWakeConfig(env)).toThrow(ConfigError);
    expect(() => readWakeConfig({ ...env, WATCHER_FUNCTIONS: '{BTC:' })).toThrow(/WATCHER_FUNCTIONS must be JSON/);
    expect(() => readWakeConfig({ ...env, WATCHER_FUNCTIONS: '["fn"]' })).toThrow(/must map chains to function names/);
    expect(() => readWakeConfig({ ...env, WATCHER_FUNCTIONS: '{"BTC":""}' })).toThrow(/must map chains to function names/);
  });
});
