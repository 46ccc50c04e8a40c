import type { Readable } from 'node:stream';
import middy from '@middy/core';
import type { ValidateFunction } from 'ajv';
import { OrderNotFoundError, UnknownOrderError } from '#shared/domain/errors';
import { PortalNotFoundError } from '#shared/domain/portal-errors';
import { jsonBody, plainJson } from '#shared/http/middlewares/body';
import { errorMapper } from '#shared/http/middlewares/error-mapper';
import { normalized } from '#shared/http/middlewares/normalizers';
import { sessionCookie, withCookies } from '#shared/http/middlewares/portal-cookies';
import { portalClientIp, portalOrigin } from '#shared/http/middlewares/portal-origin';
import { portalSessionOf, portalSession } from '#shared/http/middlewares/portal-session';
import type { Event, LambdaHandler, Result, StreamingLambdaHandler } from '#shared/http/middlewares/types';
import { validatedInput, validator } from '#shared/http/middlewares/validator';
import { json } from '#shared/http/responses';
import type { PortalSession, PortalView } from '#shared/schemas/portal-responses';
import type { IssuedSession, PortalContext } from '#shared/services/portal/sessions';

export { clearedSessionCookie, sessionCookie, sessionCookieName, withCookies } from '#shared/http/middlewares/portal-cookies';

/**
 * The portal API's stack (docs/architecture.md, "Layers and the direction of imports"), composed of the shared middlewares
 * (shared/http/middlewares/): the portal's origin rules (portal-origin.ts), its session and CSRF
 * token (portal-session.ts, cookies in portal-cookies.ts), typed input, its errors. Browsers
 * authenticate with a session cookie, never with the merchant API's `token` header.
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

/** Portal errors: the uniform `{status, error, error_code}`; the API's order not-found becomes the portal's 404. */
const portalError = (error: unknown): unknown => (error instanceof OrderNotFoundError || error instanceof UnknownOrderError ? new PortalNotFoundError() : error);

/** The portal's middleware stack (session, CSRF, typed input, its errors) on a middy instance. */
function withPortalStack<TBody, TQuery, R>(instance: middy.MiddyfiedHandler<Event, R>, options: PortalOptions<TBody, TQuery>, endpoint: (input: PortalInput<TBody, TQuery>) => Promise<R>) {
  const stack = instance as unknown as middy.MiddyfiedHandler<Event, Result>;
  // No per-address request quota: in AWS every portal request comes from a CloudFront edge's
  // address (many merchants would share one quota). Sign-in attempts have their own limit
  // (per viewer address); everything else needs a session; API Gateway's route limits hold
  // (a streamed route's function has a reserved concurrency instead).
  normalized(stack)
    .use(portalOrigin())
    .use(portalSession(options.auth ?? 'session'));
  if (options.body) stack.use(jsonBody({ parse: plainJson, measure: 'decoded' }));
  stack.use(validator(options)).use(errorMapper(portalError));
  return instance.handler(async (event, context) => {
    const input = validatedInput(event);
    const session = portalSessionOf(event);
    return endpoint({
      body: input?.body as TBody,
      query: input?.query as TQuery,
      path: event.pathParameters ?? {},
      context: session?.context as PortalContext,
      sessionId: session?.sessionId,
      now: new Date(),
      clientIp: portalClientIp(event),
      remainingTimeMs: () => context.getRemainingTimeInMillis(),
    });
  });
}

/** A portal route's handler: the session and CSRF checks, then typed input for the endpoint. */
export function portalHandler<TBody = undefined, TQuery = undefined>(options: PortalOptions<TBody, TQuery>, endpoint: (input: PortalInput<TBody, TQuery>) => Promise<Result>): LambdaHandler {
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
