/**
 * SSM parameters read through the AWS Parameters and Secrets Lambda extension (issue 21, item
 * 4): a local server speaking the extension's documented HTTP interface (GET
 * /systemsmanager/parameters/get?name=..&withDecryption=true, the caller's session token in
 * X-Aws-Parameters-Secrets-Token, GetParameter's JSON answer), in place of the extension the
 * stack adds to the function.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSecureParameter } from '#shared/aws/parameters';
import { readParameterExtensionConfig } from '#shared/core/config';

const SESSION = 'session-token-of-the-function';
const PARAMETERS: Record<string, string> = { '/crypto-pay/token-key': 'k'.repeat(48), '/crypto-pay/alipay creds': '{"app_id":"1"}' };
const asked: string[] = [];
let notReadyAnswers = 0;
let server: Server;
const saved = { ...process.env };

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    asked.push(url.searchParams.get('name') ?? '');
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (request.headers['x-aws-parameters-secrets-token'] !== SESSION) return answer(401, 'missing or bad token');
    if (url.pathname !== '/systemsmanager/parameters/get' || url.searchParams.get('withDecryption') !== 'true') return answer(400, 'bad request');
    if (notReadyAnswers > 0) {
      notReadyAnswers -= 1;
      return answer(400, 'not ready to serve traffic, please wait');
    }
    const name = url.searchParams.get('name') ?? '';
    const value = PARAMETERS[name];
    if (value === undefined) return answer(404, 'ParameterNotFound');
    answer(200, { Parameter: { Name: name, Type: 'SecureString', Value: value, Version: 1 }, ResultMetadata: {} });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT = String((server.address() as AddressInfo).port);
  process.env.AWS_SESSION_TOKEN = SESSION;
});
afterAll(async () => {
  process.env = saved;
  await new Promise((resolve) => server.close(resolve));
});

describe('readSecureParameter through the extension', () => {
  it('answers the decrypted value, the name URL-encoded, with the session token', async () => {
    expect(await readSecureParameter('/crypto-pay/token-key')).toBe('k'.repeat(48));
    expect(await readSecureParameter('/crypto-pay/alipay creds')).toBe('{"app_id":"1"}');
    expect(asked.slice(-2)).toEqual(['/crypto-pay/token-key', '/crypto-pay/alipay creds']);
  });

  it('asks again while the extension is still starting (400), then reads', async () => {
    notReadyAnswers = 2;
    expect(await readSecureParameter('/crypto-pay/token-key')).toBe('k'.repeat(48));
    expect(notReadyAnswers).toBe(0);
  });

  it('a missing parameter fails with its name and the HTTP status, after one request', async () => {
    const before = asked.length;
    await expect(readSecureParameter('/crypto-pay/missing')).rejects.toThrow(/\/crypto-pay\/missing .*HTTP 404/);
    expect(asked.length - before).toBe(1);
  });

  it('without the extension (no port, locally) a parameter source says what it needs', () => {
    expect(readParameterExtensionConfig({})).toEqual({ port: undefined, sessionToken: undefined });
    expect(() => readParameterExtensionConfig({ PARAMETERS_SECRETS_EXTENSION_HTTP_PORT: 'x' })).toThrow(/PARAMETERS_SECRETS_EXTENSION_HTTP_PORT/);
  });
});
