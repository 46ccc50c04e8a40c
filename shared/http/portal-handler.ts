import { createHash, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ValidateFunction } from 'ajv';
import { portalConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { MalformedJsonError, OrderNotFoundError, PayloadTooLargeError, UnknownOrderError } from '#shared/domain/errors';
import { MAX_BODY_BYTES } from '#shared/domain/limits';
import { CsrfRefusedError, OriginRequiredError, PortalNotFoundError } from '#shared/domain/portal-errors';
import type { LambdaHandler, StreamingLambdaHandler } from '#shared/http/api-handler';
import { errorResponse } from '#shared/http/errors';
import { json } from '#shared/http/responses';
import { validationError } from '#shared/http/validation';
import { authenticateSession, csrfTokenMatches, type IssuedSession, type PortalContext } from '#shared/services/portal/sessions';
import type { PortalSession, PortalView } from '#shared/schemas/portal-responses';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type Request = middy.Request<Event, Result, Error, Context>;

/**
 * The portal API's one place for sessions and CSRF (STYLE.md habit 14). Browsers authenticate
 * with a session cookie (HttpOnly, SameSite=Strict, Secure outside loopback, `__Host-` prefixed
 * when Secure), never with the merchant API's `token` header. Every POST must come from the
 * portal's own origin (the Origin header, or Sec-Fetch-Site: same-origin) and, once signed in,
 * carry the session's CSRF token in `x-csrf-token`: SameSite alone does not cover old browsers
 * or a sibling subdomain.
 */

export interface PortalInput<TBody, TQuery> {
  body: TBody;
  query: TQuery;
  path: Readonly<Record<string, string | undefined>>;
  /** The signed-in user (routes with `auth: 'session'`). */
  context: PortalContext;
  /** The session cookie the browser sent, if any (sign-in ends it: rotation). */
  sessionId: string | undefined;
  now: Date;
  clientIp: string | undefined;
  /** Milliseconds until the function's timeout (a streamed answer stops in time with it). */
  remainingTimeMs: () => number;
}

export interface PortalOptions<TBody, TQuery> {
  /** 'session' (default): a valid session is required. 'none': sign-in routes. */
  auth?: 'session' | 'none';
  body?: ValidateFunction<TBody>;
  query?: ValidateFunction<TQuery>;
}

/** The session cookie's name: `__Host-` (Secure, Path=/, no Domain) wherever cookies are Secure. */
export const sessionCookieName = (): string => (portalConfig().secureCookies ? '__Host-portal_session' : 'portal_session');

/** The Set-Cookie value that hands a browser its session. */
export function sessionCookie(issued: IssuedSession): string {
  const { secureCookies } = portalConfig();
  const maxAge = Math.max(0, Math.floor((Date.parse(issued.session.expires_at) - Date.now()) / 1000));
  return `${sessionCookieName()}=${issued.id}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secureCookies ? '; Secure' : ''}`;
}

/** The Set-Cookie value that removes the session cookie. */
export function clearedSessionCookie(): string {
  return `${sessionCookieName()}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict${portalConfig().secureCookies ? '; Secure' : ''}`;
}

/** A JSON answer that also sets cookies (API Gateway v2's `cookies`; the local adapter writes them as Set-Cookie). */
export function withCookies(result: Result, cookies: string[]): Result {
  return { ...result, cookies };
}

/** The session id among the request's cookies (API Gateway v2 lists them in `cookies`). */
function sessionIdOf(event: Event): string | undefined {
  const name = sessionCookieName();
  const all = event.cookies ?? (event.headers?.cookie ? event.headers.cookie.split(';') : []);
  for (const cookie of all) {
    const [key, ...value] = cookie.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** The secret's digest, once per process: compared in constant time with the digest of what a request carries. */
let originDigest: { secret: string; digest: Buffer } | undefined;
const digestOf = (value: string) => createHash('sha256').update(value).digest();

/**
 * In AWS the portal's API is reached through the portal's CloudFront, which adds the configured
 * secret to every request: a request without it came to the API's own URL, where nothing stops
 * a caller from writing the viewer-address header the sign-in limit trusts. Locally (no secret)
 * every request passes.
 */
function assertThroughPortalOrigin(event: Event): void {
  const secret = portalConfig().originSecret;
  if (secret === undefined) return;
  if (originDigest?.secret !== secret) originDigest = { secret, digest: digestOf(secret) };
  const given = event.headers?.['x-origin-verify'];
  if (given === undefined || !timingSafeEqual(digestOf(given), originDigest.digest)) throw new OriginRequiredError();
}

/** The client's address: the proxy's header when one is configured (`address:port`), else the connection's. */
function clientIpOf(event: Event): string | undefined {
  const header = portalConfig().clientIpHeader;
  const viewer = header ? event.headers?.[header.toLowerCase()] : undefined;
  if (viewer && viewer.lastIndexOf(':') > 0) return viewer.slice(0, viewer.lastIndexOf(':'));
  return event.requestContext?.http?.sourceIp;
}

/** A state change from anywhere but the portal's own pages is refused. */
function assertSameOrigin(event: Event): void {
  const origin = event.headers?.origin;
  if (origin !== undefined) {
    if (origin !== portalConfig().origin) throw new CsrfRefusedError();
    return;
  }
  if (event.headers?.['sec-fetch-site'] !== 'same-origin') throw new CsrfRefusedError();
}

const parsed = new WeakMap<Event, { body?: unknown; query?: unknown; context?: PortalContext; sessionId?: string }>();
const stateOf = (event: Event) => {
  let state = parsed.get(event);
  if (!state) parsed.set(event, (state = {}));
  return state;
};

const sessionAndCsrf = (auth: 'session' | 'none'): middy.MiddlewareObj<Event, Result> => ({
  before: async (request: Request) => {
    const { event } = request;
    assertThroughPortalOrigin(event);
    const state = stateOf(event);
    state.sessionId = sessionIdOf(event);
    const changes = event.requestContext?.http?.method === 'POST';
    if (changes) assertSameOrigin(event);
    if (auth === 'none') return;
    state.context = await authenticateSession(state.sessionId);
    if (changes && !csrfTokenMatches(state.context.session, event.headers?.['x-csrf-token'])) throw new CsrfRefusedError();
  },
});

const inputs = <TBody, TQuery>(options: PortalOptions<TBody, TQuery>): middy.MiddlewareObj<Event, Result> => ({
  before: (request: Request) => {
    const { event } = request;
    const state = stateOf(event);
    if (options.body) {
      const raw = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
      if (Buffer.byteLength(raw, 'utf8') > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
      // Plain JSON: the portal sends no amounts (the API's lossless reader would hand numbers over as objects).
      const body = raw.trim() === '' ? {} : parsePlainJson(raw);
      if (!options.body(body)) throw validationError(options.body.errors?.[0], 'body');
      state.body = body;
    }
    if (options.query) {
      const query = { ...(event.queryStringParameters ?? {}) };
      if (!options.query(query)) throw validationError(options.query.errors?.[0], 'query');
      state.query = query;
    }
  },
});

function parsePlainJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedJsonError();
  }
}

/** Portal errors: the uniform `{status, error, error_code}`; the API's order not-found becomes the portal's 404. */
const errorMapper = (): middy.MiddlewareObj<Event, Result> => ({
  onError: (request: Request) => {
    const error = request.error;
    const portalError = error instanceof OrderNotFoundError || error instanceof UnknownOrderError ? new PortalNotFoundError() : error;
    request.response = errorResponse(portalError);
  },
});

/** The portal's middleware stack (session, CSRF, typed input, its errors) on a middy instance. */
function withPortalStack<TBody, TQuery, R>(instance: middy.MiddyfiedHandler<Event, R>, options: PortalOptions<TBody, TQuery>, endpoint: (input: PortalInput<TBody, TQuery>) => Promise<R>) {
  const stack = instance as unknown as middy.MiddyfiedHandler<Event, Result>;
  stack
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpEventNormalizer())
    .use(httpHeaderNormalizer())
    // No per-address request quota: in AWS every portal request comes from a CloudFront edge's
    // address (many merchants would share one quota). Sign-in attempts have their own limit
    // (per viewer address); everything else needs a session; API Gateway's route limits hold
    // (a streamed route's function has a reserved concurrency instead).
    .use(sessionAndCsrf(options.auth ?? 'session'))
    .use(inputs(options))
    .use(errorMapper());
  return instance.handler(async (event, context) => {
    const state = stateOf(event);
    return endpoint({
      body: state.body as TBody,
      query: state.query as TQuery,
      path: event.pathParameters ?? {},
      context: state.context as PortalContext,
      sessionId: state.sessionId,
      now: new Date(),
      clientIp: clientIpOf(event),
      remainingTimeMs: () => context.getRemainingTimeInMillis(),
    });
  });
}

/** A portal route's handler: the session and CSRF checks, then typed input for the endpoint. */
export function portalHandler<TBody = undefined, TQuery = undefined>(
  options: PortalOptions<TBody, TQuery>,
  endpoint: (input: PortalInput<TBody, TQuery>) => Promise<Result>,
): LambdaHandler {
  return withPortalStack(middy<Event, Result>(), options, endpoint) as unknown as LambdaHandler;
}

/** A streamed answer: status and headers go first, then the body as its stream produces it. */
export interface StreamedResult {
  statusCode: number;
  headers: Record<string, string>;
  body: Readable;
}

/**
 * A streamed portal route's handler (routes with `stream: true`): the same stack as
 * {@link portalHandler}, so a refused session or a bad query is the same JSON error before any
 * byte of the body; then middy (`streamifyResponse`) writes the status and headers and pipes the
 * endpoint's body stream into Lambda's response stream, backpressure included (stream.pipeline).
 * An error of the body stream after that ends the response unfinished (the client sees the
 * transfer cut, never a clean end). Needs the Lambda runtime's `awslambda` global at load time;
 * the local runtime provides the same (infra/local/lambda-streaming.ts).
 */
export function portalStreamHandler<TQuery = undefined>(
  options: PortalOptions<undefined, TQuery>,
  endpoint: (input: PortalInput<undefined, TQuery>) => Promise<StreamedResult>,
): StreamingLambdaHandler {
  return withPortalStack(middy<Event, StreamedResult>({ streamifyResponse: true }), options, endpoint) as unknown as StreamingLambdaHandler;
}

export { json };

/** What the portal learns about its signed-in user (and the CSRF token it must send back). */
export function sessionView(user: PortalContext['user'], session: PortalContext['session'], merchant?: PortalContext['merchant']): PortalView<PortalSession> {
  return {
    user: { user_id: user.user_id, name: user.name, role: user.role, merchant_id: user.merchant_id },
    // The merchant's name and mode (sandbox or live): every page shows them plainly.
    ...(merchant ? { merchant: { name: merchant.name, sandbox: merchant.sandbox } } : {}),
    csrf_token: session.csrf_token,
    expires_at: session.expires_at,
  };
}

/** A sign-in's answer: the new session's cookie (the old one is gone) and who is signed in. */
export function signedIn(issued: IssuedSession & { user: PortalContext['user'] }, extra: Pick<PortalSession, 'recovery_codes'> = {}): Result {
  return withCookies(json(200, { status: 200, ...sessionView(issued.user, issued.session), ...extra } satisfies PortalSession), [sessionCookie(issued)]);
}

