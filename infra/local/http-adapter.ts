import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { LambdaHandler, StreamingLambdaHandler } from '#shared/http/api-handler';
import { isStreamingHandler, streamAnswer } from '#infra/local/lambda-streaming';
import { ExpectationFailedError, HeadersTooLargeError, MalformedRequestError, PayloadTooLargeError, RouteNotFoundError, UriTooLongError } from '#shared/http/request-errors';
import { errorResponse } from '#shared/http/errors';
import { FUNCTION_TIMEOUT_SECONDS, type Route } from '#shared/http/routes';

/** API Gateway's own limit on a request body (10 MB); larger ones never reach a function. */
const GATEWAY_BODY_LIMIT = 10 * 1024 * 1024;
/** HTTP API's limit on the request line and header values together (10240 bytes). */
export const GATEWAY_HEADER_LIMIT = 10240;

export interface RouteBinding extends Route {
  /** A streaming handler (routes with `stream: true`) is answered as a function URL would, chunk by chunk. */
  load: () => Promise<{ handler: LambdaHandler | StreamingLambdaHandler }>;
}

/** Extra handlers for non-API paths (the payment page's static files). */
export type FallbackHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

interface Matched {
  binding: RouteBinding;
  params: Record<string, string>;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The request's URL. Node hands over the request target as sent: `//x` or `*` or an absolute
 * form would make `new URL(target, base)` throw or name another host, so only an origin-form
 * target (a path) is read, against a fixed origin.
 */
export function requestUrl(request: IncomingMessage): URL {
  const target = request.url ?? '/';
  if (!target.startsWith('/')) throw new MalformedRequestError('the request target is not a path');
  return new URL(`http://localhost${target}`);
}

/** API Gateway's matching: literal segments beat `{param}` segments; a param is one segment. */
export function matchRoute(bindings: readonly RouteBinding[], method: string, path: string): Matched | undefined {
  const segments = path.split('/');
  let best: (Matched & { literals: number }) | undefined;
  for (const binding of bindings) {
    if (binding.method !== method) continue;
    const pattern = binding.path.split('/');
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let literals = 0;
    const matches = pattern.every((part, i) => {
      const segment = segments[i] ?? '';
      if (part.startsWith('{') && part.endsWith('}')) {
        if (segment === '') return false;
        params[part.slice(1, -1)] = decode(segment);
        return true;
      }
      literals += 1;
      return part === segment;
    });
    if (matches && (!best || literals > best.literals)) best = { binding, params, literals };
  }
  return best && { binding: best.binding, params: best.params };
}

function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > GATEWAY_BODY_LIMIT) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function queryParameters(rawQuery: string): Record<string, string> | undefined {
  if (rawQuery === '') return undefined;
  const result: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    // API Gateway v2 joins repeated parameters with commas.
    result[key] = key in result ? `${result[key]},${value}` : value;
  }
  return result;
}

/**
 * The API Gateway v2 (HTTP API, payload 2.0) event for a request, as AWS would build it. Its
 * `sourceIp` is the client's address (`clientAddress`): the handlers key the anonymous request
 * quota and the failed-authentication count on it, as in AWS.
 */
export function toEvent(request: IncomingMessage, body: Buffer, matched: Matched, clientIpHeader?: string): APIGatewayProxyEventV2 {
  const url = requestUrl(request);
  const rawQueryString = url.search.replace(/^\?/, '');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  // A streamed route is a function URL's in AWS: its events name the `$default` route.
  const routeKey = matched.binding.stream ? '$default' : `${matched.binding.method} ${matched.binding.path}`;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString,
    headers,
    queryStringParameters: queryParameters(rawQueryString),
    pathParameters: Object.keys(matched.params).length ? matched.params : undefined,
    body: body.length ? body.toString('utf8') : undefined,
    isBase64Encoded: false,
    // API Gateway v2 hands the Cookie header over as a list (and drops the header).
    ...(headers.cookie
      ? {
          cookies: headers.cookie
            .split(';')
            .map((cookie) => cookie.trim())
            .filter(Boolean),
        }
      : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: clientAddress(request, clientIpHeader),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
  };
}

/** A local function without its own timeout gets as long as in AWS. */
function lambdaContext(functionName: string, timeoutSeconds = FUNCTION_TIMEOUT_SECONDS): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/**
 * What API Gateway refuses before any function runs: a request line over its limit (414), or
 * the request line and headers together over it (431). Both answered as JSON errors.
 */
function oversize(request: IncomingMessage): Error | undefined {
  const line = Buffer.byteLength(request.url ?? '/', 'utf8');
  if (line > GATEWAY_HEADER_LIMIT) return new UriTooLongError(GATEWAY_HEADER_LIMIT);
  let total = line;
  for (let i = 1; i < request.rawHeaders.length; i += 2) total += Buffer.byteLength(request.rawHeaders[i]!, 'utf8');
  return total > GATEWAY_HEADER_LIMIT ? new HeadersTooLargeError(GATEWAY_HEADER_LIMIT) : undefined;
}

/**
 * Node's parser refuses what is over its own header cap (16 KB) before a request exists, and
 * would answer with an empty body: answer the same JSON error as the adapter's own checks.
 */
function onClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) return void socket.destroy();
  const result = errorResponse(error.code === 'HPE_HEADER_OVERFLOW' ? new HeadersTooLargeError(GATEWAY_HEADER_LIMIT) : new MalformedRequestError('not parseable HTTP'));
  const body = Buffer.from(result.body ?? '', 'utf8');
  const reason = result.statusCode === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  const head = [`HTTP/1.1 ${result.statusCode} ${reason}`, 'connection: close', `content-length: ${body.length}`];
  for (const [name, value] of Object.entries(result.headers ?? {})) head.push(`${name}: ${String(value)}`);
  socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body]));
}

/** What no gateway passes on: an HTTP/1.1 request without Host (RFC 9112 section 3.2), a target that is not a path. */
function malformed(request: IncomingMessage): Error | undefined {
  if (request.httpVersion === '1.1' && !request.headers.host) return new MalformedRequestError('no Host header');
  if (!(request.url ?? '/').startsWith('/')) return new MalformedRequestError('the request target is not a path');
  return undefined;
}

/**
 * The client's address, as API Gateway reports it (`sourceIp`): the socket's, or the last entry
 * of `trustedHeader` when one is configured (QUOTA_CLIENT_IP_HEADER). Only set it behind a proxy
 * that appends that entry: otherwise any client writes any address there and gets a fresh
 * request quota each time.
 */
export function clientAddress(request: IncomingMessage, trustedHeader: string | undefined): string {
  const forwarded = trustedHeader ? request.headers[trustedHeader.toLowerCase()] : undefined;
  const last = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').at(-1)?.trim();
  return last || (request.socket.remoteAddress ?? '127.0.0.1');
}

/** Writes a Lambda result as the HTTP answer (the page's file server answers its errors with it too). */
export function send(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  // API Gateway v2 writes a result's `cookies` as Set-Cookie headers.
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  const body = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : Buffer.from(result.body ?? '', 'utf8');
  response.writeHead(result.statusCode ?? 200, { ...headers, 'content-length': String(body.length) });
  response.end(body);
}

/**
 * An HTTP server that routes like API Gateway and calls the same Lambda handlers with the
 * events API Gateway would send. Anything else goes to the fallbacks (the payment page). It
 * counts no request quota of its own: the handlers count them in the table, as in AWS, where
 * the environment says so (QUOTA_STORE=table: the local runtime sets it, as the stack does).
 */
export function createApiServer(bindings: readonly RouteBinding[], fallbacks: readonly FallbackHandler[] = [], options: { clientIpHeader?: string } = {}): Server {
  // Without requireHostHeader Node would answer a missing Host with an empty 400; `malformed` answers it.
  const server = createServer({ requireHostHeader: false }, (request, response) => {
    void (async () => {
      const refused = oversize(request) ?? malformed(request);
      if (refused) {
        request.resume();
        return send(response, errorResponse(refused));
      }
      const url = requestUrl(request);
      const matched = matchRoute(bindings, request.method ?? 'GET', url.pathname);
      if (!matched) {
        if (fallbacks.some((fallback) => fallback(request, response))) return;
        request.resume();
        return send(response, errorResponse(new RouteNotFoundError()));
      }
      const body = await readBody(request);
      // API Gateway's own 413 is {"message": ...}; the local runtime answers in the documented shape.
      if (body === 'too-large') return send(response, errorResponse(new PayloadTooLargeError(GATEWAY_BODY_LIMIT)));
      const { handler } = await matched.binding.load();
      const event = toEvent(request, body, matched, options.clientIpHeader);
      const context = lambdaContext(matched.binding.fn, matched.binding.timeoutSeconds);
      if (isStreamingHandler(handler)) await streamAnswer(handler, event, context, response);
      else send(response, await handler(event, context));
    })().catch((error: unknown) => {
      if (!response.headersSent) send(response, errorResponse(error));
      else response.destroy();
    });
  });
  server.on('clientError', onClientError);
  // Node would answer an unknown Expect with an empty 417: answer it in the service's shape.
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => send(response, errorResponse(new ExpectationFailedError())));
  return server;
}
