/**
 * Support for the HTTP fuzz and authorization-matrix tests: a raw HTTP client (exact bytes,
 * paths and headers, no fetch normalisation), route classification from ROUTES, fast-check
 * arbitraries for every part of a request, and the checks every answer must pass.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { isMailbox } from '#shared/domain/email-address';
import type { Route } from '#shared/http/routes';
import { OPERATIONS } from '#tools/openapi/operations';
import { getOrMake } from './memo';

// ---------------------------------------------------------------------------------------------
// Raw HTTP

export interface FuzzRequest {
  method: string;
  /** Sent exactly as given (already percent-encoded where needed). */
  path: string;
  headers: Record<string, string | string[]>;
  body?: string | Buffer;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed body; `parsed` is false when the body is not JSON. */
  json: any;
  parsed: boolean;
}

export type Send = (request: FuzzRequest) => Promise<RawResponse>;

/**
 * One keep-alive connection to the API over loopback, requests in sequence. node:http sends
 * paths, header bytes (latin1, so UTF-8 can be smuggled in) and bodies as given.
 */
export function rawClient(baseUrl: string): { send: Send; close: () => void } {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send: Send = (request) =>
    new Promise<RawResponse>((resolve, reject) => {
      const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
      const headers: Record<string, string | string[]> = { ...request.headers };
      if (body !== undefined) headers['content-length'] = String(body.length);
      const outgoing = httpRequest({ host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent, timeout: 20_000 }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          let parsed = false;
          try {
            json = JSON.parse(text);
            parsed = true;
          } catch {
            parsed = false;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json, parsed });
        });
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error('request timed out after 20 s')));
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  return { send, close: () => agent.destroy() };
}

/** A JSON request the way a well-behaved client sends it. */
export function jsonRequest(method: string, path: string, token: string | undefined, body?: unknown): FuzzRequest {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.token = token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method, path, headers, body: body === undefined ? undefined : JSON.stringify(body) };
}

/** For failure messages: the request as a curl command line (bodies cut at 2 KB). */
export function describeRequest(request: FuzzRequest): string {
  const headers = Object.entries(request.headers).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((v) => `-H ${JSON.stringify(`${name}: ${cut(v, 300)}`)}`));
  let body = '';
  if (request.body !== undefined) {
    const text = Buffer.isBuffer(request.body) ? `<${request.body.length} bytes, base64 ${cut(request.body.toString('base64'), 2000)}>` : request.body;
    body = ` --data-raw ${JSON.stringify(cut(text, 2000))}${typeof request.body === 'string' && request.body.length > 2000 ? ` (${request.body.length} chars)` : ''}`;
  }
  return `curl -X ${request.method} ${JSON.stringify(`$API${cut(request.path, 500)}`)} ${headers.join(' ')}${body}`;
}

export function describeResponse(response: RawResponse): string {
  return `HTTP ${response.status} content-type=${String(response.headers['content-type'])} body=${cut(response.text, 1500)}`;
}

const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}...<${text.length - max} more>` : text);

// ---------------------------------------------------------------------------------------------
// Routes

/** Routes under this prefix are the payment page's: no token, the order id is the capability. */
export const PUBLIC_PREFIX = '/v1/pay/';
/** Routes under this prefix are payment gateways' notification endpoints: no token, the gateway's signature, the gateway's answers. */
export const GATEWAY_PREFIX = '/v1/gateways/';
/** Operators' monitors: no token, no order, nothing secret (GET /v1/health). */
export const MONITOR_PATHS: ReadonlySet<string> = new Set(['/v1/health']);
/** What a path parameter holds: an order's id, or recurring billing's plan or subscription id. */
export type IdKind = 'order' | 'plan' | 'subscription';
/** The path parameters the tests know, by what they hold. Any other parameter fails classification. */
const PATH_IDS: Readonly<Record<string, IdKind>> = { order_id: 'order', id: 'order', orderId: 'order', plan_id: 'plan', subscription_id: 'subscription' };

/**
 * Payment links' routes (the merchant's /v1/links and the link page's /v1/pay/links): their
 * capability is a link id, not an order's, so the order-based matrix and fuzzer leave them to
 * tests/integration/payment-links.test.ts (every bad field, another merchant's link, anonymous).
 */
export const isLinkRoute = (route: Route): boolean => route.path.startsWith('/v1/links') || route.path.startsWith('/v1/pay/links/');

export interface PropertySchema {
  type?: string | readonly string[];
  enum?: readonly unknown[];
  maxLength?: number;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  format?: string;
  pattern?: string;
  default?: unknown;
}

export interface ObjectSchema {
  type?: string;
  properties?: Readonly<Record<string, PropertySchema>>;
  required?: readonly string[];
  additionalProperties?: boolean;
}

export interface RouteInfo {
  route: Route;
  /** "POST /v1/orders/{order_id}/cancel" */
  key: string;
  audience: 'public' | 'merchant' | 'gateway' | 'monitor';
  /** The path parameter holding an id (undefined: a collection route), and what it is the id of. */
  idParam?: string;
  idKind?: IdKind;
  /** The path parameter when it holds an order id (undefined for any other route). */
  orderParam?: string;
  /** The route's declared schemas (shared/http/routes.ts). */
  body?: ObjectSchema;
  query?: ObjectSchema;
  /** Documented request examples (valid bodies). */
  examples: Record<string, unknown>[];
  /** Reads or writes the store (Route.access). */
  writes: boolean;
}

/**
 * What the tests need to know about a route, derived from ROUTES (and the OpenAPI operation
 * metadata of its function). Throws, naming the route, when the route cannot be classified:
 * a new kind of route must be taught to these tests rather than silently skipped.
 */
export function describeRoute(route: Route): RouteInfo {
  const key = `${route.method} ${route.path}`;
  const params = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  if (params.length > 1 || params.some((param) => !Object.hasOwn(PATH_IDS, param))) {
    throw new Error(
      `route ${key} has path parameters {${params.join('}, {')}} that tests/support/fuzz.ts cannot classify ` + `(known: ${Object.keys(PATH_IDS).join(', ')}): teach describeRoute what they hold`,
    );
  }
  if (route.method !== 'GET' && route.method !== 'POST') throw new Error(`route ${key}: unexpected method`);
  if (route.access !== 'read' && route.access !== 'write') throw new Error(`route ${key}: unexpected access ${String(route.access)}`);
  const operation = (OPERATIONS as Record<string, any>)[route.fn];
  const body = route.body as ObjectSchema | undefined;
  const examples = Object.values((operation?.requestExamples ?? {}) as Record<string, { value: unknown }>)
    .map((example) => example.value)
    .filter((value): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value));
  const audience = MONITOR_PATHS.has(route.path) ? 'monitor' : route.path.startsWith(PUBLIC_PREFIX) ? 'public' : route.path.startsWith(GATEWAY_PREFIX) ? 'gateway' : 'merchant';
  if (audience === 'monitor' && (route.method !== 'GET' || params.length > 0 || route.public !== true)) {
    throw new Error(`route ${key}: a monitor route is a public GET without path parameters`);
  }
  if ((route.gateway === true) !== (audience === 'gateway')) {
    throw new Error(`route ${key}: gateway=${String(route.gateway)} disagrees with its path (gateway routes live under ${GATEWAY_PREFIX})`);
  }
  // Routes may also flag themselves public: the flag and the prefix must agree.
  const flagged = (route as { public?: unknown }).public;
  if (flagged !== undefined && (flagged === true) !== (audience === 'public' || audience === 'monitor')) {
    throw new Error(`route ${key}: public=${String(flagged)} disagrees with its path (public routes live under ${PUBLIC_PREFIX})`);
  }
  return {
    route,
    key,
    audience,
    idParam: params[0],
    idKind: params[0] === undefined ? undefined : PATH_IDS[params[0]],
    orderParam: params[0] !== undefined && PATH_IDS[params[0]] === 'order' ? params[0] : undefined,
    // Only a declared body is validated (some POSTs read no body at all).
    body,
    query: route.query as ObjectSchema | undefined,
    examples: examples.length ? examples : route.method === 'POST' ? [{}] : [],
    writes: route.access === 'write' || route.method === 'POST',
  };
}

/** The route's path with its id parameter replaced by `rawId` (sent as is). */
export function pathOf(info: RouteInfo, rawId?: string): string {
  if (!info.idParam) return info.route.path;
  if (rawId === undefined) throw new Error(`${info.key} needs ${info.idKind === 'order' ? 'an order' : `a ${info.idKind}`} id`);
  return info.route.path.replace(`{${info.idParam}}`, rawId);
}

/**
 * The route with its documented examples naming real ids instead of the document's (the plan a
 * Create Subscription example subscribes to): without them every valid body is refused at the
 * lookup, and nothing after it is ever reached.
 */
export function withExampleIds(info: RouteInfo, ids: Readonly<Record<string, string | undefined>>): RouteInfo {
  const examples = info.examples.map((example) => {
    const named = { ...example };
    for (const [field, id] of Object.entries(ids)) if (field in named && id !== undefined) named[field] = id;
    return named;
  });
  return { ...info, examples };
}

/** Fields of a body that name the order of the path (replaced by the path's id in valid bodies). */
const ORDER_ID_FIELDS = new Set(['order_id', 'id']);

/**
 * A valid body for the route from its documented examples: order ids point at `orderId`,
 * `merchant_order_id` is made unique with `unique`, and a loopback-free callback URL is kept.
 */
export function validBody(info: RouteInfo, orderId: string | undefined, unique: string, exampleIndex = 0): Record<string, unknown> | undefined {
  if (info.route.method !== 'POST') return undefined;
  const example = { ...(info.examples[exampleIndex % info.examples.length] ?? {}) };
  for (const field of Object.keys(example)) {
    if (ORDER_ID_FIELDS.has(field)) {
      if (orderId === undefined) delete example[field];
      else example[field] = orderId;
    }
  }
  if ('merchant_order_id' in example) example.merchant_order_id = unique;
  return example;
}

// ---------------------------------------------------------------------------------------------
// Checks on every answer

const MERCHANT_GUIDE = fileURLToPath(new URL('../../docs/merchant-guide.md', import.meta.url));

/** The error codes docs/merchant-guide.md documents (its paragraph that starts "Error codes" and `<status> <CODE>` spans), with the status it gives, if any. */
export function documentedErrorCodes(): Map<string, number | undefined> {
  const text = readFileSync(MERCHANT_GUIDE, 'utf8');
  const start = text.search(/^Error codes\b/m);
  if (start < 0) throw new Error('docs/merchant-guide.md has no paragraph that starts "Error codes"');
  const end = text.indexOf('\n\n', start);
  const paragraph = text.slice(start, end < 0 ? undefined : end);
  const codes = new Map<string, number | undefined>();
  for (const match of paragraph.matchAll(/`([A-Z][A-Z0-9_]+)`(?:\s*\((\d{3})[^)]*\))?/g)) {
    codes.set(match[1]!, match[2] ? Number(match[2]) : undefined);
  }
  // Codes documented elsewhere in the prose, written as `<status> <CODE>` (e.g. `409 IDEMPOTENCY_IN_PROGRESS`).
  for (const match of text.matchAll(/`(\d{3})\s+([A-Z][A-Z0-9_]+)`/g)) codes.set(match[2]!, Number(match[1]));
  if (codes.size < 5) throw new Error(`docs/merchant-guide.md's error codes could not be read (${[...codes.keys()].join(', ')})`);
  return codes;
}

/** What must never appear in an answer (unless the caller sent it and it is echoed back). */
export const LEAK_PATTERNS: readonly (readonly [string, RegExp])[] = [
  ['a stack frame', /\bat\s+(?:async\s+)?(?:[^\s()]+\s+)?\(?(?:file:\/\/|node:|\/|[A-Za-z]:\\)[^\s)]*:\d+(?::\d+)?\)?/],
  ['an anonymous stack frame', /\bat\s+<anonymous>/],
  ['node_modules', /node_modules/],
  ['a source file name', /\.[cm]?[jt]s:\d*/],
  ['an error class', /\b[A-Za-z]*Error:|\b(?:TypeError|ReferenceError|RangeError|SyntaxError|URIError|EvalError)\b/],
  ['DynamoDB', /dynamodb/i],
  ['a DynamoDB exception', /ConditionalCheckFailed|TransactionCanceled|ValidationException|ResourceNotFound|ProvisionedThroughput/i],
  ['a table attribute name', /\b(?:PK|SK|GSI\d(?:PK|SK))\b/],
  ['a table key prefix', /\b(?:ORDER|INVOICE|MERCHANT|APITOKEN|MOID|COUNTER|RATES|ADDRESS|DELIVERY|IDEMPOTENCY|OUTBOX|EXPIRY|QUOTA)#/],
  ['an AWS ARN', /\barn:aws:/],
  ['an internal error', /\bundefined is not|Cannot read propert|is not a function|Maximum call stack/],
];

const INTERNAL_KEYS = /^(?:PK|SK|GSI\d+(?:PK|SK)|token_hash|tokenHash|api_token_hash)$/;

/** Every string (keys included) in a JSON value. */
export function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      stringsOf(item, into);
    }
  }
  return into;
}

function keysOf(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) keysOf(item, into);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      keysOf(item, into);
    }
  }
  return into;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** Everything the caller sent, as text, for telling an echo from a leak. */
function haystackOf(request: FuzzRequest): string {
  const parts: string[] = [request.path, safeDecode(request.path)];
  for (const [name, value] of Object.entries(request.headers)) {
    parts.push(name, ...(Array.isArray(value) ? value : [value]));
    for (const v of Array.isArray(value) ? value : [value]) parts.push(Buffer.from(v, 'latin1').toString('utf8'));
  }
  if (request.body !== undefined) {
    const text = Buffer.isBuffer(request.body) ? request.body.toString('utf8') : request.body;
    parts.push(text);
    try {
      parts.push(...stringsOf(JSON.parse(text)));
    } catch {
      // not JSON: the raw text is enough
    }
  }
  return parts.join('\n').toLowerCase();
}

const isInt = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);
const sameKeys = (value: object, keys: string[]) => {
  const actual = Object.keys(value).sort();
  return actual.length === keys.length && [...keys].sort().every((key, i) => actual[i] === key);
};

/**
 * Everything wrong with one answer: a 5xx, a non-JSON answer, a leaked stack trace or internal
 * name, an error body of no documented shape. Empty when the answer is fine.
 */
export function violations(request: FuzzRequest, response: RawResponse, codes: Map<string, number | undefined>): string[] {
  if (request.method === 'POST' && GATEWAY_NOTIFY.test(servedPath(request.path))) return gatewayViolations(request, response);
  const found: string[] = [];
  if (response.status >= 500) found.push(`answered ${response.status} (a server error)`);
  if (response.status < 200) found.push(`answered ${response.status}`);
  const contentType = String(response.headers['content-type'] ?? '');
  if (!/^application\/json\b/i.test(contentType)) found.push(`content-type is ${JSON.stringify(contentType)}, not JSON`);
  if (!response.parsed) {
    found.push('the body is not JSON');
    return found;
  }
  const body = response.json;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    found.push('the body is not a JSON object');
    return found;
  }
  for (const key of keysOf(body)) if (INTERNAL_KEYS.test(key)) found.push(`the body has the internal attribute ${key}`);
  if (response.status >= 400) {
    const haystack = haystackOf(request);
    for (const text of stringsOf(body)) {
      for (const [what, pattern] of LEAK_PATTERNS) {
        const match = pattern.exec(text);
        if (match && !haystack.includes(match[0].toLowerCase())) found.push(`the body leaks ${what}: ${JSON.stringify(match[0])} in ${JSON.stringify(cut(text, 200))}`);
      }
    }
    found.push(...errorShapeViolations(response.status, body, codes));
  } else if (!isInt(body.status)) {
    found.push('a success body without a numeric status');
  }
  return found;
}

/** A gateway's notification endpoint (the path as served). */
const GATEWAY_NOTIFY = /^\/v1\/gateways\/(alipay|aliglobal|wechat)\/notify$/;

/** The path a server sees: the client resolves dot segments (`/v1/./x/../gateways/...`) before sending. */
const servedPath = (path: string): string => new URL(path, 'http://fuzz.invalid').pathname;

/**
 * The answers each gateway expects (docs/operator-guide.md "Gateways"): Alipay's text `success` (HTTP 200)
 * or `fail` (4xx; 503 only when we cannot decide now, never for what a sender controls).
 */
function gatewayViolations(request: FuzzRequest, response: RawResponse): string[] {
  const found: string[] = [];
  if (response.status >= 500) found.push(`answered ${response.status} (a server error)`);
  const gateway = GATEWAY_NOTIFY.exec(servedPath(request.path))![1]!;
  const contentType = String(response.headers['content-type'] ?? '');
  if (gateway === 'alipay' || gateway === 'aliglobal') {
    if (!/^text\/plain\b/i.test(contentType)) found.push(`content-type is ${JSON.stringify(contentType)}, not text/plain`);
    const expected = response.status === 200 ? 'success' : 'fail';
    if (response.text !== expected) found.push(`answered ${JSON.stringify(cut(response.text, 80))} with HTTP ${response.status}, not ${expected}`);
    if (response.status !== 200 && (response.status < 400 || response.status >= 500)) found.push(`refused with HTTP ${response.status}`);
  } else {
    if (response.status !== 204 && response.status !== 200) {
      const body = response.json;
      if (!/^application\/json\b/i.test(contentType) || !body || body.code !== 'FAIL' || typeof body.message !== 'string') {
        found.push(`a WeChat Pay refusal must be JSON {code: "FAIL", message}, got ${JSON.stringify(cut(response.text, 120))}`);
      }
    }
  }
  return found;
}

/** The five documented error bodies (docs/merchant-guide.md "API"). */
export function errorShapeViolations(status: number, body: any, codes: Map<string, number | undefined>): string[] {
  if (sameKeys(body, ['status', 'error', 'error_code'])) {
    const problems: string[] = [];
    if (body.status !== status) problems.push(`body status ${JSON.stringify(body.status)} differs from HTTP ${status}`);
    if (typeof body.error !== 'string' || body.error === '') problems.push('error is not a non-empty string');
    if (typeof body.error_code !== 'string' || !codes.has(body.error_code)) {
      problems.push(`error_code ${JSON.stringify(body.error_code)} is not documented in docs/merchant-guide.md`);
    } else {
      const documented = codes.get(body.error_code);
      if (documented !== undefined && documented !== status) problems.push(`${body.error_code} answered with HTTP ${status}, docs/merchant-guide.md says ${documented}`);
    }
    return problems;
  }
  if (sameKeys(body, ['status', 'error', 'error_code', 'order', 'payment_url'])) {
    // A repeated merchant_order_id: the error and the order holding it (docs/merchant-guide.md "API").
    const shaped = status === 400 && body.status === 400 && body.error_code === 'ORDER_MERCHANTID_EXIST' && typeof body.payment_url === 'string';
    return shaped && typeof body.order?.order_id === 'string' ? [] : [`malformed ORDER_MERCHANTID_EXIST body at HTTP ${status}`];
  }
  if (sameKeys(body, ['eror', 'status'])) {
    return status === 404 && body.status === '404' && typeof body.eror === 'string' ? [] : [`malformed {eror, status} body at HTTP ${status}`];
  }
  if (sameKeys(body, ['error', 'status']) && body.status === 422) {
    return status === 422 && typeof body.error === 'string' ? [] : [`malformed {error, status: 422} body at HTTP ${status}`];
  }
  if (sameKeys(body, ['status', 'error']) && body.status === 400) {
    return status === 400 && body.error === 'Price is not valid' ? [] : [`malformed {status: 400, error} body at HTTP ${status}`];
  }
  return [`an error body of no documented shape at HTTP ${status}: keys ${JSON.stringify(Object.keys(body))}`];
}

/** Sends, checks, and throws a reproducible report when anything is wrong. */
export async function sendChecked(send: Send, request: FuzzRequest, codes: Map<string, number | undefined>, extra?: (response: RawResponse) => string[]): Promise<RawResponse> {
  let response: RawResponse;
  try {
    response = await send(request);
  } catch (error) {
    throw new Error(`request failed at the transport level (${String(error)}):\n  ${describeRequest(request)}`);
  }
  const problems = [...violations(request, response, codes), ...(extra?.(response) ?? [])];
  if (problems.length) {
    throw new Error(`${problems.join('; ')}\n  request:  ${describeRequest(request)}\n  response: ${describeResponse(response)}`);
  }
  return response;
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Header-safe text: node refuses control characters; UTF-8 goes out as its latin1 bytes. */
export const headerSafe = (text: string): string =>
  Buffer.from(text, 'utf8')
    .toString('latin1')
    .replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

const encode = (text: string): string => encodeURIComponent(text);

/** Strings with every kind of code unit, lone surrogates included. */
const anyUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 40 });

export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\u0000',
  '\t\r\n',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '0',
  '1e308',
  '1e-400',
  '0x1F',
  ' 10 ',
  '١٢٣',
  '10abc',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  "' OR '1'='1",
  '"; DROP TABLE orders; --',
  '../../etc/passwd',
  '%00',
  '%',
  '\u202e',
  '\ud800',
  '\udfff\ud800',
  '\ufeff',
  '\u2028\u2029',
  '😀',
  '👩‍👩‍👧‍👦',
  'Ω≈ç√∫',
  'ORDER#x',
  'MERCHANT#1',
  'a#b#c',
  '#',
  '*',
  '?',
  '\\',
  'BTC',
  'btc',
  'USD',
  'usd',
  'ALIPAY',
  'LBTC ',
  'NEW',
  'new',
  'PAID',
];

export const NASTY_NUMBERS: readonly number[] = [
  0,
  -0,
  -1,
  1,
  0.1,
  0.5,
  0.01,
  0.001,
  1e-7,
  1e-8,
  1e-9,
  5e-324,
  -5e-324,
  1e308,
  -1e308,
  1.7976931348623157e308,
  1e21,
  1e12,
  1e12 - 0.01,
  999999999999.99,
  0.1 + 0.2,
  1.005,
  9.995,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  Number.MAX_SAFE_INTEGER,
  1234567890123.4567,
  123456789.123456789,
  1000,
  1001,
  50,
  51,
  1e3 + 0.5,
  4294967296,
  2147483648,
];

/** Raw JSON number literals that JSON.stringify never writes. */
export const RAW_LITERALS: readonly string[] = [
  '1e308',
  '-1e308',
  '1e309',
  '1e999',
  '-1e999',
  '-0',
  '-0.0',
  '0.30000000000000004',
  '1E-400',
  '1e-7',
  '5e-324',
  '2e-324',
  '123456789012345678901234567890',
  '0.000000000000000000000000000001',
  '1.0',
  '1.50',
  '1e2',
  '1E+2',
  '0e0',
  '9.99e0',
  '99999999999.99',
  '999999999999.999',
  '12345678901234567',
  '1' + '0'.repeat(400),
  '0.' + '0'.repeat(400) + '1',
  // Not JSON at all: the parser must refuse them cleanly.
  '00',
  '01',
  '.5',
  '+1',
  '1.',
  'NaN',
  'Infinity',
  '-Infinity',
  '0x10',
  '1_000',
  'undefined',
  "'x'",
  '"\\ud800"',
  '"\\u0000"',
];

const HTTP_URLS: readonly string[] = ['https://shop.example/callback', 'http://shop.example:8080/cb?x=1&y=2#f', 'https://xn--fsqu00a.xn--0zwm56d/cb', ''];

const EMAIL_ADDRESSES: readonly string[] = ['buyer@example.test', "o'brien+tag@mail.example.co", 'kaeufer@münchen.example', 'a@例子.测试'];

/** Address strings mail software reads as something else (issue #43): each must be a 400. */
const NASTY_EMAILS: readonly string[] = ['a@x.test,b', 'Eve<a@x.test>', 'undisclosed:a@x.test;', '=?utf-8?Q?victim=40evil.test?=@example.test', '"q"@example.test', 'a@[127.0.0.1]'];

const NASTY_URLS: readonly string[] = [
  'javascript:alert(1)',
  'ftp://shop.example/x',
  'file:///etc/passwd',
  'data:text/plain,hi',
  '//shop.example/x',
  '/relative',
  'http://',
  'http:///x',
  'https://user:pw@shop.example/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[::1]/',
  'http://[::ffff:127.0.0.1]/',
  'http://127.1/',
  'http://0x7f000001/',
  'http://2130706433/',
  'http://0/',
  'http://localhost./',
  'http://LOCALHOST/',
  'http://a.localhost/',
  'http://metadata.google.internal/',
  'http://[fe80::1%25eth0]/',
  'http://10.0.0.1:22/',
  'http://例え.テスト/',
  'http://a..b/',
  'http://-a-/',
  'http://%00/',
  'http://a b/',
  'http://a\tb/',
  'http://shop.example/\r\nX-Injected: 1',
  `https://a.example/${'x'.repeat(2030)}`,
  `https://a.example/${'x'.repeat(2031)}`,
  `https://a.example/${'😀'.repeat(1100)}`,
  'HTTP://SHOP.EXAMPLE/',
  'https://shop.example:99999/',
  'https://shop.example:0/',
  'http://[::]/',
  'http://0.0.0.0/',
  'http://100.64.0.1/',
  'http://192.168.1.1/',
  'http://shop.example@127.0.0.1/',
];

/**
 * Arbitraries made once per schema (or id list). The request arbitraries are made anew for each
 * run (they depend on the order id the run drew), and making fast-check's string arbitraries is
 * not cheap (`stringMatching` tokenizes its pattern and checks its slices: about a third of this
 * fuzzer's CPU when it was done for every run). Arbitraries hold no state, so one serves every run.
 */
function madeOnce<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => getOrMake(made, key, () => make(key));
}

/** A value that fits the schema of one property (or is close enough to pass it). */
function validValue(name: string, schema: PropertySchema, orderId: string | undefined): fc.Arbitrary<unknown> {
  if (ORDER_ID_FIELDS.has(name) && orderId !== undefined) return fc.constant(orderId);
  return anyValidValue(schema);
}

const anyValidValue = madeOnce((schema: PropertySchema): fc.Arbitrary<unknown> => {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.format === 'http-url') return fc.oneof(fc.constantFrom(...HTTP_URLS), fc.webUrl({ validSchemes: ['http', 'https'] }));
  // fast-check's addresses include forms the service refuses (quoted, literals): the valid ones.
  if (schema.format === 'email-address' || schema.format === 'email-address-or-empty') return fc.oneof(fc.constantFrom(...EMAIL_ADDRESSES), fc.emailAddress().filter(isMailbox));
  const types = schema.type === undefined ? ['string'] : Array.isArray(schema.type) ? schema.type : [schema.type as string];
  return fc.oneof(
    ...types.map((type): fc.Arbitrary<unknown> => {
      switch (type) {
        case 'string': {
          if (schema.pattern) {
            // The pattern fixes the lengths it allows (a refund link's secret is exactly 43): keep
            // the schema's own bounds, never the free strings' cap below, or nothing ever matches.
            const pattern = new RegExp(schema.pattern);
            const [least, most] = [schema.minLength ?? 0, schema.maxLength ?? Number.POSITIVE_INFINITY];
            return fc.stringMatching(pattern, { size: 'xsmall' }).filter((s) => s.length >= least && s.length <= most);
          }
          const max = Math.min(schema.maxLength ?? 40, 40);
          const min = Math.min(schema.minLength ?? 0, max);
          return fc.oneof(fc.string({ minLength: min, maxLength: max }), fc.string({ unit: 'grapheme', minLength: min, maxLength: max }));
        }
        case 'integer':
          return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
        case 'number':
          return fc.oneof(fc.constantFrom(1, 9.99, 0.01, 100, 0.5, 12.34), fc.integer({ min: 1, max: 1_000_000 }), fc.double({ min: 1e-8, max: 1e6, noNaN: true }));
        case 'boolean':
          return fc.boolean();
        default:
          return fc.jsonValue({ maxDepth: 1 });
      }
    }),
  );
});

/** A value of the wrong type, at a boundary, or otherwise hostile, for one property. */
const nastyValue = madeOnce((schema: PropertySchema): fc.Arbitrary<unknown> => {
  const max = schema.maxLength ?? 255;
  const boundaries = [max - 1, max, max + 1].filter((n) => n >= 0);
  return fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(), // NaN and Infinity are written as null, -0 as 0
    fc.constantFrom(...NASTY_NUMBERS),
    fc.constantFrom(...NASTY_STRINGS),
    fc.string({ unit: 'binary', maxLength: 60 }),
    anyUnits,
    fc.constantFrom(...boundaries).chain((n) => fc.constantFrom('x'.repeat(n), '😀'.repeat(n), '付'.repeat(n), 'e\u0301'.repeat(n))),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    ...(schema.format === 'http-url' || schema.type === 'string' ? [fc.constantFrom(...NASTY_URLS)] : []),
    ...(schema.type === 'string' ? [fc.constantFrom(...NASTY_EMAILS)] : []),
  );
});

/** Keys no body schema knows, some of them with meaning elsewhere. */
const unknownKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'user_id', 'status', 'version', 'PK', 'sandbox', 'merchant', 'api_token', ''),
  fc.string({ maxLength: 20 }),
);

/** Objects built from the route's real field names: each absent, valid, or hostile. */
function fieldObject(info: RouteInfo, orderId: string | undefined): fc.Arbitrary<Record<string, unknown>> {
  const properties = info.body?.properties ?? {};
  const fields = Object.entries(properties);
  if (fields.length === 0) return fc.dictionary(unknownKey, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, schema] of fields) {
    // Mostly valid fields, so that a good share of bodies passes validation and reaches the service.
    model[name] = fc.oneof({ weight: 6, arbitrary: validValue(name, schema, orderId) }, { weight: 1, arbitrary: nastyValue(schema) });
  }
  return fc
    .tuple(
      // Required fields are always there (mutatedExample drops them); optional ones come and go.
      fc.record(model, { requiredKeys: (info.body?.required ?? []).filter((name) => name in model) }),
      fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.dictionary(unknownKey, fc.jsonValue({ maxDepth: 2 }), { minKeys: 1, maxKeys: 2 }) }),
    )
    .map(([known, extra]) => (extra ? { ...known, ...extra } : known));
}

/** A documented example with one field removed, replaced by a hostile value, or an extra key added. */
function mutatedExample(info: RouteInfo, orderId: string | undefined, unique: () => string): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries(info.body?.properties ?? {});
  return fc.nat({ max: Math.max(0, info.examples.length - 1) }).chain((index) => {
    const base = validBody(info, orderId, unique(), index) ?? {};
    const keys = Object.keys(base);
    const choices: fc.Arbitrary<Record<string, unknown>>[] = [fc.constant(base)];
    if (keys.length) choices.push(fc.constantFrom(...keys).map((key) => Object.fromEntries(Object.entries(base).filter(([k]) => k !== key))));
    if (properties.length) {
      choices.push(fc.constantFrom(...properties).chain(([name, schema]) => nastyValue(schema).map((value) => ({ ...base, [name]: value }))));
    }
    choices.push(fc.tuple(unknownKey, fc.jsonValue({ maxDepth: 1 })).map(([key, value]) => ({ ...base, [key]: value })));
    return fc.oneof(...choices);
  });
}

/** `{"field": <literal>}` (next to the rest of a valid example) with a literal JSON.stringify never writes. */
function rawLiteralBody(info: RouteInfo, orderId: string | undefined, unique: () => string): fc.Arbitrary<string> {
  const names = Object.keys(info.body?.properties ?? {});
  const fieldName = names.length ? fc.constantFrom(...names) : fc.constantFrom('amount', 'x');
  return fc.tuple(fieldName, fc.constantFrom(...RAW_LITERALS), fc.boolean()).map(([field, literal, withRest]) => {
    const rest = withRest ? { ...(validBody(info, orderId, unique()) ?? {}) } : {};
    delete rest[field];
    const text = JSON.stringify(rest);
    return `${text.slice(0, -1)}${text === '{}' ? '' : ','}${JSON.stringify(field)}:${literal}}`;
  });
}

const SPECIAL_BODIES: readonly (string | Buffer)[] = [
  '',
  ' ',
  '\n\t ',
  'null',
  '""',
  '"{}"',
  '[]',
  '[{}]',
  '0',
  '-0',
  'true',
  '{',
  '}',
  '{"',
  '{"a":',
  '{"a":1',
  '{"a":1,}',
  "{'a':1}",
  '{a:1}',
  '\ufeff{}',
  '{}\u0000',
  '\u0000',
  '{} {}',
  '/*c*/{}',
  '{}//x',
  '{"a":1,"a":2}',
  '{"order_id":"a","order_id":"b"}',
  '{"price_amount":1,"price_amount":-1}',
  '{"price_amount":-1,"price_amount":1}',
  '{"__proto__":{"price_amount":1}}',
  '{"__proto__":null}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"title":"\\ud800"}',
  '{"title":"\\u0000"}',
  '{"txid":"\\ud800"}',
  'price_amount=1&title=x',
  '--x\r\nContent-Disposition: form-data; name="price_amount"\r\n\r\n1\r\n--x--',
  '<xml/>',
  Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
  Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
  Buffer.from([0xc3, 0x28]),
  Buffer.from([0x7b, 0x22, 0x74, 0x69, 0x74, 0x6c, 0x65, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]),
  Buffer.from([0x1f, 0x8b, 0x08, 0x00]),
];

const specialBodies = fc.constantFrom(...SPECIAL_BODIES);
const binaryText = fc.string({ unit: 'binary', maxLength: 200 });
const binaryBytes = fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes));

/** Non-JSON or barely-JSON bodies: random text and bytes, truncated JSON, odd encodings. */
function rawBody(info: RouteInfo, orderId: string | undefined, unique: () => string): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    specialBodies,
    binaryText,
    anyUnits,
    binaryBytes,
    fc.nat().map((cutAt) => {
      const text = JSON.stringify(validBody(info, orderId, unique()) ?? { a: 1 });
      return text.slice(0, cutAt % text.length);
    }),
  );
}

const LIMIT = 64 * 1024;

/** Big and deep: long strings, deep nesting, many keys, bodies right at and over 64 KB. */
function hugeBody(info: RouteInfo): fc.Arbitrary<string> {
  const names = Object.keys(info.body?.properties ?? {});
  const field = names.length ? fc.constantFrom(...names) : fc.constant('title');
  return fc.oneof(
    fc.tuple(field, fc.constantFrom(200, 201, 800, 801, 2049, 60_000, LIMIT, 70_000, 300_000)).map(([name, n]) => JSON.stringify({ [name]: 'x'.repeat(n) })),
    fc.tuple(field, fc.constantFrom(16_000, 16_384, 21_000)).map(([name, n]) => JSON.stringify({ [name]: '😀'.repeat(n) })),
    fc.constantFrom(100, 1000, 10_000, 32_000).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
    fc.tuple(field, fc.constantFrom(100, 5000, 12_000)).map(([name, depth]) => `{${JSON.stringify(name)}:${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`),
    fc.constantFrom(1000, 6000).map((n) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])))),
    fc.constantFrom(10_000, 30_000).map((n) => JSON.stringify(Array.from({ length: n }, () => 0))),
    fc.constantFrom(LIMIT - 2, LIMIT - 1, LIMIT, LIMIT + 1).map((n) => `{}${' '.repeat(n - 2)}`),
  );
}

export interface FuzzContext {
  /** The fuzzing merchant's token (most requests carry it). */
  token: string;
  /** Tokens that must count as invalid when sent mangled (the fuzzing merchant's and others'). */
  knownTokens: readonly string[];
  /** Real order ids of the fuzzing merchant, for path parameters. */
  orderIds: readonly string[];
  /** Its real plan and subscription ids, for the recurring billing routes' path parameters. */
  planIds: readonly string[];
  subscriptionIds: readonly string[];
  /** A fresh string each call (merchant_order_id values). */
  unique: () => string;
}

/** The fuzzing merchant's real ids of the kind the route's path parameter holds. */
export function idsOf(info: RouteInfo, ctx: Pick<FuzzContext, 'orderIds' | 'planIds' | 'subscriptionIds'>): readonly string[] {
  return info.idKind === 'plan' ? ctx.planIds : info.idKind === 'subscription' ? ctx.subscriptionIds : ctx.orderIds;
}

/** Bodies of every kind for a route; `orderId` is what a valid body names. */
export function bodyArb(info: RouteInfo, orderId: string | undefined, ctx: FuzzContext): fc.Arbitrary<string | Buffer | undefined> {
  if (info.route.method === 'GET') {
    return fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: rawBody(info, orderId, ctx.unique) });
  }
  return fc.oneof(
    { weight: 7, arbitrary: fieldObject(info, orderId).map((value) => JSON.stringify(value)) },
    { weight: 4, arbitrary: mutatedExample(info, orderId, ctx.unique).map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: rawLiteralBody(info, orderId, ctx.unique) },
    { weight: 3, arbitrary: rawBody(info, orderId, ctx.unique) },
    { weight: 1, arbitrary: hugeBody(info) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

/** Mangled, missing, foreign-looking and oversized tokens: never one that authenticates. */
export function invalidTokenArb(ctx: Pick<FuzzContext, 'knownTokens'>): fc.Arbitrary<string | string[] | undefined> {
  const known = ctx.knownTokens;
  const base = fc.constantFrom(...known);
  return fc
    .oneof(
      fc.constant(undefined),
      fc.constantFrom('', 'null', 'undefined', 'token', '0', '*', 'Bearer', '%00'),
      base.map((t) => `Bearer ${t}`),
      base.map((t) => t.slice(0, -1)),
      base.map((t) => t.slice(1)),
      base.map((t) => `${t}x`),
      base.map((t) => t.toUpperCase()),
      base.map((t) => t.toLowerCase()),
      base.map((t) => `${t.slice(0, 8)}\u00e9${t.slice(9)}`),
      base.map((t) => [...t].reverse().join('')),
      base.map((t) => `${t},${t}`),
      base.map((t) => [t, t]),
      base.chain((t) => fc.nat({ max: t.length - 1 }).map((i) => `${t.slice(0, i)}${t[i] === 'A' ? 'B' : 'A'}${t.slice(i + 1)}`)),
      fc.string({ unit: 'binary-ascii', minLength: 16, maxLength: 64 }).map(headerSafe),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map(headerSafe),
      fc.integer({ min: 257, max: 6000 }).map((n) => 'A'.repeat(n)),
      fc.constant('A'.repeat(256)),
      fc.constant('A'.repeat(16)),
      fc.constant('A'.repeat(15)),
    )
    .filter((value) => {
      if (value === undefined) return true;
      const sent = (Array.isArray(value) ? value.join(', ') : value).trim();
      return !known.includes(sent);
    });
}

/** Mostly the fuzzing merchant's valid token, so validation (not just auth) is exercised. */
export function tokenArb(ctx: FuzzContext): fc.Arbitrary<string | string[] | undefined> {
  return fc.oneof({ weight: 7, arbitrary: fc.constant(ctx.token) }, { weight: 2, arbitrary: invalidTokenArb(ctx) });
}

const CONTENT_TYPES: readonly string[] = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=UTF-16',
  'application/json; charset=latin1',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
  'application/xml',
  '',
  '*/*',
  'application/json, text/plain',
  'application/octet-stream',
  ';;;',
  'application/json; boundary="',
];

const HEADER_NAMES: readonly string[] = [
  'idempotency-key',
  'Idempotency-Key',
  'x-http-method-override',
  'accept',
  'accept-encoding',
  'accept-language',
  'origin',
  'referer',
  'cookie',
  'authorization',
  'x-api-key',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-amzn-trace-id',
  'x-request-id',
  'user-agent',
  'content-encoding',
  'if-none-match',
  'if-modified-since',
  'range',
  'Token',
  'TOKEN',
  'x-token',
  'content-language',
  'forwarded',
  'via',
];

const headerValueArb = fc.oneof(
  fc.constantFrom('', '0', '-1', 'null', 'gzip', 'br', 'DELETE', 'PUT', '*/*', 'application/json', '127.0.0.1', 'bytes=0-1', '\u00ff\u00fe'),
  fc.string({ unit: 'binary-ascii', maxLength: 60 }).map(headerSafe),
  fc.string({ unit: 'binary', maxLength: 40 }).map(headerSafe),
  fc.integer({ min: 256, max: 3000 }).map((n) => 'v'.repeat(n)),
);

/** Odd extra headers; the total stays under Node's 16 KB header limit. */
const extraHeadersArb = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...HEADER_NAMES), fc.stringMatching(/^[a-z][a-z0-9-]{0,24}$/)), headerValueArb), { maxLength: 4 });

/** Order ids for a path: real ones, random UUIDs, near misses, traversal, encodings, long and unicode. */
export const pathIdArb = madeOnce((orderIds: readonly string[]): fc.Arbitrary<string> => {
  const real = orderIds.length ? fc.constantFrom(...orderIds) : fc.uuid();
  return fc.oneof(
    { weight: 9, arbitrary: real },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.uuid({ version: [1, 2, 3, 4, 5, 6, 7, 8, 15] }).map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: real.map((id) => id.toUpperCase()) },
    { weight: 1, arbitrary: real.chain((id) => fc.nat({ max: id.length - 1 }).map((i) => `${id.slice(0, i)}%${id.charCodeAt(i).toString(16).toUpperCase()}${id.slice(i + 1)}`)) },
    { weight: 1, arbitrary: real.map((id) => [...id].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')) },
    {
      weight: 1,
      arbitrary: real.chain((id) => fc.constantFrom(`${id}%00`, `${id}%20`, `%20${id}`, `${id}.json`, `${id}x`, id.slice(0, -1), `${id}%2F..`, `ORDER%23${id}`, id.replaceAll('-', ''), `{${id}}`)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '..',
        '.',
        '%2e%2e',
        '%2E',
        '%2F',
        '..%2F..%2Fetc%2Fpasswd',
        '%00',
        '%',
        '%zz',
        '%E0%A4%A',
        '%C0%AF',
        '~',
        '*',
        '-',
        '0',
        'null',
        'undefined',
        '%7Border_id%7D',
        ':order_id',
        'NaN',
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff',
        '%3F',
        '%23',
        ';',
        '@',
        'a;b=c',
        '%FF%FE',
        '%F0%9F%98%80',
        '%ED%A0%80',
      ),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map(encode) },
    { weight: 1, arbitrary: fc.integer({ min: 64, max: 4000 }).map((n) => 'a'.repeat(n)) },
    { weight: 1, arbitrary: fc.stringMatching(/^[0-9A-Fa-f-]{30,40}$/) },
  );
});

const NASTY_QUERY_VALUES: readonly string[] = [
  '',
  '0',
  '-0',
  '-1',
  '1',
  '10',
  '50',
  '51',
  '1000',
  '1001',
  '1.5',
  '1e1',
  '1e308',
  '99999999999999999999999',
  '0x10',
  '+5',
  ' 10',
  '10 ',
  'NaN',
  'Infinity',
  '0010',
  '٣',
  '1,2',
  'null',
  'true',
  '[]',
  '%',
  'NEW',
  'new',
  'PAID',
  'EXPIRED',
  'REFUNDED',
  'NEW,PAID',
  'ALL',
  '*',
];

const QUERY_SPECIAL_KEYS: readonly string[] = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'status[]',
  'limit[0]',
  'offset[$gt]',
  '',
  'token',
  'order_id',
  'user_id',
  'LIMIT',
  'Status',
];

/** A query string (with its `?`, or ''): schema keys with odd values, repeated keys, random pairs. */
export function queryArb(info: RouteInfo): fc.Arbitrary<string> {
  const schemaKeys = Object.keys(info.query?.properties ?? {});
  const key = fc.oneof(
    ...(schemaKeys.length ? [{ weight: 5, arbitrary: fc.constantFrom(...schemaKeys) }] : []),
    { weight: 2, arbitrary: fc.constantFrom(...QUERY_SPECIAL_KEYS) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  );
  const value = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...NASTY_QUERY_VALUES) },
    { weight: 2, arbitrary: fc.integer({ min: -5, max: 1100 }).map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 3000 }).map((n) => '9'.repeat(n)) },
  );
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(key, value).map(([k, v]) => `${encode(k)}=${encode(v)}`) },
    { weight: 1, arbitrary: fc.tuple(key, fc.constantFrom('%', '%zz', '%E0%A4%A', '+', '%2B', '%00', '&', '=', '==', '%26')).map(([k, v]) => `${encode(k)}=${v}`) },
    { weight: 1, arbitrary: key.map((k) => encode(k)) },
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    { weight: 6, arbitrary: fc.array(pair, { minLength: 1, maxLength: 6 }).map((pairs) => `?${pairs.join('&')}`) },
    { weight: 1, arbitrary: fc.constantFrom('?', '??', '?&', '?&&=&', '?=', '?limit=1&limit=2', '?offset=1&offset=1', '?status=NEW&status=PAID') },
  );
}

/** One request to a route: path id, query, headers and body, each fuzzed. */
export function requestArb(info: RouteInfo, ctx: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const id = info.idParam ? pathIdArb(idsOf(info, ctx)) : fc.constant(undefined);
  return id.chain((rawId) => {
    const orderId = rawId === undefined ? undefined : safeDecode(rawId);
    return fc
      .record({
        query: queryArb(info),
        token: info.audience === 'public' || info.audience === 'monitor' ? fc.oneof(fc.constant(undefined), tokenArb(ctx)) : tokenArb(ctx),
        contentType: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
        extra: fc.oneof({ weight: 3, arbitrary: fc.constant([] as [string, string][]) }, { weight: 1, arbitrary: extraHeadersArb }),
        body: bodyArb(info, orderId, ctx),
      })
      .map(({ query, token, contentType, extra, body }) => {
        const headers: Record<string, string | string[]> = {};
        for (const [name, value] of extra) headers[name] = value;
        if (token !== undefined) headers.token = token;
        if (contentType !== undefined && body !== undefined) headers['content-type'] = contentType;
        return { method: info.route.method, path: `${pathOf(info, rawId)}${query}`, headers, body };
      });
  });
}

/** fast-check parameters shared by the tests: seeded, sequential, reproducible. */
export function fuzzSeed(): number {
  const raw = process.env.FUZZ_SEED;
  if (raw === 'random') return (Date.now() ^ (process.pid << 8)) | 0;
  return raw === undefined || raw === '' ? 0x5eed_2026 : Number(raw) | 0;
}

/** Runs a seeded property; on failure the message starts with how to replay it. */
export async function assertProperty<T>(name: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, options: { seed: number; numRuns: number }): Promise<void> {
  try {
    await fc.assert(fc.asyncProperty(arbitrary, predicate), { seed: options.seed, numRuns: options.numRuns, endOnFailure: process.env.FUZZ_SHRINK !== '1' });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`[${name}] fuzz failure; replay with FUZZ_SEED=${options.seed} (runs ${options.numRuns}; FUZZ_SHRINK=1 to shrink)\n${message}`, { cause: error });
  }
}

// ---------------------------------------------------------------------------------------------
// Merchant fixtures and snapshots over the API

export interface SeededOrder {
  status: string;
  order_id: string;
  merchant_order_id: string;
  /** The merchant's callback `token` given at creation. */
  callbackToken: string;
  callback_url: string;
}

async function ok(send: Send, request: FuzzRequest, what: string, status = 200): Promise<any> {
  const response = await send(request);
  if (response.status !== status || !response.parsed) throw new Error(`setup step "${what}" failed: ${describeResponse(response)}`);
  return response.json;
}

/**
 * Orders of one merchant in many statuses, moved there over the API (the sandbox pay and
 * complete-refund endpoints; statuses that need a missing endpoint are skipped).
 */
export async function seedOrders(send: Send, token: string, label: string, routes: readonly Route[]): Promise<SeededOrder[]> {
  const has = (method: string, path: string) => routes.some((route) => route.method === method && route.path === path);
  const canPay = has('POST', '/v1/sandbox/orders/{order_id}/pay');
  const canCompleteRefund = has('POST', '/v1/sandbox/orders/{order_id}/complete-refund');
  const plan: [string, string[]][] = [
    ['NEW', []],
    ['NEW (checked out)', ['checkout']],
    ['CANCELED', ['cancel']],
    ...(canPay
      ? ([
          ['PAID', ['checkout', 'pay']],
          ['PENDING', ['checkout', 'pay0']],
          ['UNRESOLVED', ['checkout', 'underpay']],
          ['RESOLVED', ['checkout', 'underpay', 'resolve']],
          ['REFUND_PENDING', ['checkout', 'pay', 'refund']],
          ...(canCompleteRefund ? ([['REFUNDED', ['checkout', 'pay', 'refund', 'complete-refund']]] as [string, string[]][]) : []),
        ] as [string, string[]][])
      : []),
  ];
  const orders: SeededOrder[] = [];
  for (const [index, [status, steps]] of plan.entries()) {
    const merchantOrderId = `${label}-${index}-${Math.random().toString(36).slice(2, 10)}`;
    const callbackToken = `cbtok-${label}-${index}-${Math.random().toString(36).slice(2, 12)}`;
    const callbackUrl = `https://shop.example/callback/${label}/${index}`;
    const created = await ok(
      send,
      jsonRequest('POST', '/v1/orders', token, {
        merchant_order_id: merchantOrderId,
        price_amount: 10 + index,
        price_currency: 'USD',
        title: `${label} order ${index}`,
        callback_url: callbackUrl,
        success_url: 'https://shop.example/thanks',
        token: callbackToken,
      }),
      `create ${status}`,
    );
    const id: string = created.order.order_id;
    for (const step of steps) {
      const [path, body] = (
        {
          checkout: [`/v1/orders/${id}/checkout`, { pay_currency: 'BTC' }],
          cancel: [`/v1/orders/${id}/cancel`, {}],
          pay: [`/v1/sandbox/orders/${id}/pay`, {}],
          pay0: [`/v1/sandbox/orders/${id}/pay`, { confirmations: 0 }],
          underpay: [`/v1/sandbox/orders/${id}/pay`, { amount: 0.00000001 }],
          resolve: [`/v1/orders/${id}/resolve`, {}],
          refund: [`/v1/orders/${id}/refund`, {}],
          'complete-refund': [`/v1/sandbox/orders/${id}/complete-refund`, {}],
        } as Record<string, [string, unknown]>
      )[step]!;
      await ok(send, jsonRequest('POST', path, token, body), `${step} for ${status}`);
    }
    const current = await ok(send, jsonRequest('GET', `/v1/orders/${id}`, token), `read ${status}`);
    const expected = status.replace(' (checked out)', '');
    if (current.order.status !== expected) throw new Error(`setup: order for ${status} is ${current.order.status}`);
    orders.push({ status, order_id: id, merchant_order_id: merchantOrderId, callbackToken, callback_url: callbackUrl });
  }
  return orders;
}

export interface SeededBilling {
  /** Plans: monthly without a trial, monthly after a 14-day trial, and an archived one. */
  plans: { label: string; plan_id: string }[];
  /** One subscription in each status a subscription can reach. */
  subscriptions: { status: string; subscription_id: string }[];
}

/**
 * Recurring billing's fixtures over the API (a sandbox merchant: its test clock and sandbox
 * payments bring each status): plans, and a subscription incomplete, trialing, active, past_due
 * and canceled.
 */
export async function seedSubscriptions(send: Send, token: string, label: string): Promise<SeededBilling> {
  const plan = async (name: string, body: Record<string, unknown>) =>
    (await ok(send, jsonRequest('POST', '/v1/plans', token, { name: `${label} ${name}`, description: `${label} plan`, price_amount: 10, interval_unit: 'month', ...body }), `create plan ${name}`, 201))
      .plan.plan_id as string;
  const monthly = await plan('monthly', { callback_url: `https://shop.example/callback/${label}/plan`, success_url: 'https://shop.example/thanks' });
  const trial = await plan('trial', { trial_days: 14 });
  const archived = await plan('archived', {});
  await ok(send, jsonRequest('POST', `/v1/plans/${archived}`, token, { archived: true }), 'archive a plan');
  const subscribe = async (planId: string) =>
    (await ok(send, jsonRequest('POST', '/v1/subscriptions', token, { plan_id: planId, customer_email: 'member@example.test', customer_id: `${label}-customer` }), 'subscribe', 201)).subscription as {
      subscription_id: string;
      period_order_id: string | null;
    };
  const advance = (id: string, days: number) => ok(send, jsonRequest('POST', `/v1/sandbox/subscriptions/${id}/advance`, token, { days }), `advance ${id}`);
  const incomplete = await subscribe(monthly);
  const trialing = await subscribe(trial);
  const active = await subscribe(monthly);
  await ok(send, jsonRequest('POST', `/v1/orders/${active.period_order_id}/checkout`, token, { pay_currency: 'BTC' }), 'check out a period order');
  await ok(send, jsonRequest('POST', `/v1/sandbox/orders/${active.period_order_id}/pay`, token, {}), 'pay a period order');
  await advance(active.subscription_id, 0.001);
  const pastDue = await subscribe(trial);
  await advance(pastDue.subscription_id, 14.5);
  const canceled = await subscribe(monthly);
  await ok(send, jsonRequest('POST', `/v1/subscriptions/${canceled.subscription_id}/cancel`, token, {}), 'cancel a subscription');
  const subscriptions = [
    { status: 'incomplete', subscription_id: incomplete.subscription_id },
    { status: 'trialing', subscription_id: trialing.subscription_id },
    { status: 'active', subscription_id: active.subscription_id },
    { status: 'past_due', subscription_id: pastDue.subscription_id },
    { status: 'canceled', subscription_id: canceled.subscription_id },
  ];
  for (const { status, subscription_id } of subscriptions) {
    const current = await ok(send, jsonRequest('GET', `/v1/subscriptions/${subscription_id}`, token), `read ${status}`);
    if (current.subscription.status !== status) throw new Error(`setup: subscription for ${status} is ${current.subscription.status}`);
  }
  return {
    plans: [
      { label: 'monthly', plan_id: monthly },
      { label: 'trial', plan_id: trial },
      { label: 'archived', plan_id: archived },
    ],
    subscriptions,
  };
}

/** Every page of a recurring billing list (`field` of each page), by cursor. */
async function allPages(send: Send, token: string, path: string, field: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await ok(send, jsonRequest('GET', `${path}?limit=50${cursor ? `&cursor=${cursor}` : ''}`, token), `list ${field}`);
    items.push(...page[field]);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

/**
 * A merchant's plans and subscriptions as the API lists them; a subscription's `clock` is left
 * out, as it reads the time of the request.
 */
export async function snapshotBilling(send: Send, token: string): Promise<{ plans: any[]; subscriptions: any[] }> {
  const subscriptions = (await allPages(send, token, '/v1/subscriptions', 'subscriptions')).map(({ clock: _clock, ...rest }) => rest);
  return { plans: await allPages(send, token, '/v1/plans', 'plans'), subscriptions };
}

/** Every order of a merchant as the API shows it: the full list, and each order's Get Order and callback log. */
export async function snapshotMerchant(send: Send, token: string): Promise<{ list: any[]; orders: Record<string, unknown> }> {
  const list: any[] = [];
  for (let offset = 0; offset <= 1000; offset += 50) {
    const page = await ok(send, jsonRequest('GET', `/v1/orders/?limit=50&offset=${offset}`, token), 'list orders');
    list.push(...page.orders);
    if (page.orders.length < 50) break;
  }
  const orders: Record<string, unknown> = {};
  for (const order of list) {
    const id = order.order_id as string;
    const detail = await ok(send, jsonRequest('GET', `/v1/orders/${id}`, token), `get ${id}`);
    const callbacks = await send(jsonRequest('GET', `/v1/orders/${id}/callbacks`, token));
    orders[id] = { detail, callbacks: { status: callbacks.status, body: callbacks.json } };
  }
  return { list, orders };
}
