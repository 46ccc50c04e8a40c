import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { LambdaHandler, StreamingLambdaHandler } from '#shared/http/api-handler';
import { isStreamingHandler, streamAnswer } from '#infra/local/lambda-streaming';
import {
  ExpectationFailedError,
  HeadersTooLargeError,
  MalformedRequestError,
  PayloadTooLargeError,
  RateLimitedError,
  RouteNotFoundError,
  UriTooLongError,
} from '#shared/domain/errors';
import { type BucketLimit, clientAddressKey, TokenBuckets } from '#shared/core/token-bucket';
import { errorResponse } from '#shared/http/errors';
import { FUNCTION_TIMEOUT_SECONDS, type Route } from '#shared/http/routes';
import type { MerchantProfile } from '#shared/domain/merchant';

/** API Gateway's own limit on a request body (10 MB); larger ones never reach a function. */
const GATEWAY_BODY_LIMIT = 10 * 1024 * 1024;
/** HTTP API's limit on the request line and header values together (10240 bytes). */
export const GATEWAY_HEADER_LIMIT = 10240;

export interface RouteBinding extends Route {
  /** A streaming handler (routes with `stream: true`) is answered as a function URL would, chunk by chunk. */
  load: () => Promise<{ handler: LambdaHandler | StreamingLambdaHandler }>;
}

/**
 * The local runtime's request quotas, the same limits the AWS handlers count in the table
 * (shared/http/middlewares/quota.ts), kept here in memory: a token bucket per merchant and, on the payment
 * page's routes, per client address. `clientIpHeader` names a header to take the client's
 * address from (its last entry, the one a proxy in front appended); only set it behind such a
 * proxy: otherwise any client can write any address there and pick a fresh bucket each time.
 */
export interface LocalQuotas {
  merchant: BucketLimit;
  public: BucketLimit;
  /**
   * Failed authentications per client address (QUOTA_AUTH_FAILURES in a window): past them the
   * address's failures get 429, and its token checks run one at a time, so a flood of bad
   * tokens cannot take the process from other merchants. A good token always goes through.
   */
  authFailures?: { limit: number; windowSeconds: number };
  /** At most this many buckets are kept (least recently used ones go first). */
  maxKeys: number;
  clientIpHeader?: string;
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

/** The API Gateway v2 (HTTP API, payload 2.0) event for a request, as AWS would build it. */
export function toEvent(request: IncomingMessage, body: Buffer, matched: Matched): APIGatewayProxyEventV2 {
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
    ...(headers.cookie ? { cookies: headers.cookie.split(';').map((cookie) => cookie.trim()).filter(Boolean) } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
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
  const result = errorResponse(
    error.code === 'HPE_HEADER_OVERFLOW' ? new HeadersTooLargeError(GATEWAY_HEADER_LIMIT) : new MalformedRequestError('not parseable HTTP'),
  );
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

/** The client's address: the socket's, or the last entry of the trusted header when one is configured. */
export function clientAddress(request: IncomingMessage, trustedHeader: string | undefined): string {
  const forwarded = trustedHeader ? request.headers[trustedHeader.toLowerCase()] : undefined;
  const last = (Array.isArray(forwarded) ? forwarded.join(',') : (forwarded ?? '')).split(',').at(-1)?.trim();
  return last || (request.socket.remoteAddress ?? 'unknown');
}

/**
 * Takes one request from its client's bucket; the RateLimitedError to answer, if it is empty.
 * A merchant route's client is the merchant its token names (a token that names none is left
 * to the handler's 401); a public route's, the client's address; gateway notifications have none.
 */
/** The state of the failed-authentication count: buckets, and the addresses now past their budget. */
interface AuthFailures {
  buckets: TokenBuckets;
  /** Address -> until when it is past its budget (ms), and the tail of its serialized token checks. */
  limited: Map<string, { until: number; queue: Promise<unknown> }>;
}

/**
 * Checks a token; for an address past its failure budget, its checks run one after another
 * (never refused: a good token from that address still authenticates, only later).
 */
async function checkToken(token: string | undefined, address: string, failures: AuthFailures | undefined): Promise<MerchantProfile | undefined> {
  // Loaded on first use, as the handlers are: the store reads the environment the runtime sets.
  const { authenticate } = await import('#shared/http/auth');
  const check = () => authenticate(token).catch(() => undefined);
  const limited = failures?.limited.get(address);
  if (!limited || limited.until <= Date.now()) {
    if (limited) failures?.limited.delete(address);
    return check();
  }
  const turn = limited.queue.then(check);
  limited.queue = turn;
  return turn;
}

async function overQuota(
  request: IncomingMessage,
  route: Route,
  quotas: LocalQuotas,
  buckets: TokenBuckets,
  failures: AuthFailures | undefined,
): Promise<RateLimitedError | undefined> {
  // A gateway's signed notification is not a client's request: it is never refused for quota.
  if (route.gateway) return undefined;
  // The portal's routes have no request quota (shared/http/portal-handler.ts), as in AWS.
  if (route.portal) return undefined;
  let key: string;
  let limit: BucketLimit;
  if (route.public) {
    key = `P${clientAddressKey(clientAddress(request, quotas.clientIpHeader))}`;
    limit = quotas.public;
  } else {
    const token = request.headers.token;
    const address = clientAddressKey(clientAddress(request, quotas.clientIpHeader));
    const merchant = await checkToken(Array.isArray(token) ? token[0] : token, address, failures);
    if (!merchant) {
      // A failure: counted against the address; within its budget the handler answers the 401.
      if (!failures || !quotas.authFailures) return undefined;
      const { limit, windowSeconds } = quotas.authFailures;
      const taken = failures.buckets.take(`A${address}`, { rate: limit / windowSeconds, burst: limit });
      if (taken.allowed) return undefined;
      const limited = failures.limited.get(address);
      const until = Date.now() + taken.retryAfterSeconds * 1000;
      if (limited) limited.until = Math.max(limited.until, until);
      else {
        // Bounded like the buckets: the oldest entry goes first (it is the nearest to its end anyway).
        if (failures.limited.size >= quotas.maxKeys) failures.limited.delete(failures.limited.keys().next().value as string);
        failures.limited.set(address, { until, queue: Promise.resolve() });
      }
      return new RateLimitedError(taken.retryAfterSeconds);
    }
    key = `M${merchant.user_id}`;
    limit = quotas.merchant;
  }
  const taken = buckets.take(key, limit);
  return taken.allowed ? undefined : new RateLimitedError(taken.retryAfterSeconds);
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
 * events API Gateway would send. Anything else goes to the fallbacks (the payment page).
 */
export function createApiServer(
  bindings: readonly RouteBinding[],
  fallbacks: readonly FallbackHandler[] = [],
  options: { quotas?: LocalQuotas } = {},
): Server {
  const { quotas } = options;
  const buckets = quotas && new TokenBuckets({ maxKeys: quotas.maxKeys });
  const failures: AuthFailures | undefined =
    quotas?.authFailures && quotas.authFailures.limit > 0 ? { buckets: new TokenBuckets({ maxKeys: quotas.maxKeys }), limited: new Map() } : undefined;
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
      const limited = quotas && buckets && (await overQuota(request, matched.binding, quotas, buckets, failures));
      if (limited) {
        request.resume();
        return send(response, errorResponse(limited));
      }
      const body = await readBody(request);
      // API Gateway's own 413 is {"message": ...}; the local runtime answers in the documented shape.
      if (body === 'too-large') return send(response, errorResponse(new PayloadTooLargeError(GATEWAY_BODY_LIMIT)));
      const { handler } = await matched.binding.load();
      const event = toEvent(request, body, matched);
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
