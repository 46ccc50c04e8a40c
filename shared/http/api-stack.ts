import middy from '@middy/core';
import type { ValidateFunction } from 'ajv';
import type { MerchantProfile } from '#shared/domain/merchant';
import { type ExactField, lenientBody, parseJsonBody } from '#shared/http/json-body';
import { jsonBody } from '#shared/http/middlewares/body';
import { errorMapper } from '#shared/http/middlewares/error-mapper';
import { normalized } from '#shared/http/middlewares/normalizers';
import { quota } from '#shared/http/middlewares/quota';
import { merchantOf } from '#shared/http/middlewares/token-auth';
import type { Event, LambdaHandler, Middleware, Result } from '#shared/http/middlewares/types';
import { validatedInput, validator } from '#shared/http/middlewares/validator';

/** What an endpoint function receives: parsed, validated and authenticated. */
export interface ApiInput<TBody, TQuery> {
  body: TBody;
  query: TQuery;
  path: Readonly<Record<string, string | undefined>>;
  /** The authenticated merchant (a public route has none: never read it there). */
  merchant: MerchantProfile;
  now: Date;
  /** The caller's IP address as API Gateway saw it (the buyer's, on the payment page's endpoints). */
  clientIp: string | undefined;
  /** The request's Idempotency-Key, hashed with its merchant (undefined: none sent, or a read route). */
  requestKey: string | undefined;
}

export interface ApiOptions<TBody, TQuery> {
  /** Compiled body schema; endpoints without one read no body. */
  body?: ValidateFunction<TBody>;
  query?: ValidateFunction<TQuery>;
  /**
   * Body fields whose JSON numbers reach the endpoint as their exact text (see
   * shared/http/json-body.ts): amounts, and a numeric merchant_order_id's digits.
   */
  exact?: Readonly<Record<string, ExactField>>;
}

/**
 * What each kind of route adds to the stack: a merchant route its token authentication
 * (shared/http/api-handler.ts, read-handler.ts); a write route its Idempotency-Key; a public
 * route (the buyer's pages, shared/http/public-handler.ts) no authentication at all.
 */
export interface StackParts {
  /** Token authentication: the `token` header must name a merchant. None: a public route, where the unguessable id in the path is the only capability. */
  auth?: () => Middleware;
  /** The Idempotency-Key middleware, after validation. */
  idempotency?: () => Middleware;
  /** The request's hashed Idempotency-Key, once `idempotency` has run. */
  requestKey?: (event: Event) => string | undefined;
}

/**
 * The merchant API's stack (and the payment page's public one), composed of the shared
 * middlewares (shared/http/middlewares/): normalizers, token auth (first, so an anonymous caller
 * learns nothing of the schema), the client's request quota (after auth, so only a merchant's
 * own requests count against it), body reader, ajv validation, a write route's Idempotency-Key,
 * then the error mapper. The endpoint function gets typed input and returns the response.
 * Each kind of route imports its own parts, so that a read function's bundle (and so its role)
 * carries none of the writes only a write route makes.
 */
export function apiStack<TBody, TQuery>(options: ApiOptions<TBody, TQuery>, parts: StackParts, endpoint: (input: ApiInput<TBody, TQuery>) => Promise<Result>): LambdaHandler {
  const stack = normalized(middy<Event, Result>());
  const merchantRoute = parts.auth !== undefined;
  if (parts.auth) stack.use(parts.auth());
  stack.use(quota(merchantRoute ? 'merchant' : 'public'));
  const exact = options.exact ?? {};
  if (options.body) stack.use(jsonBody({ parse: (text) => lenientBody(parseJsonBody(text), exact), measure: 'sent' }));
  stack.use(validator(options));
  if (parts.idempotency) stack.use(parts.idempotency());
  const handler = stack.use(errorMapper()).handler(async (event) => {
    const input = validatedInput(event);
    return endpoint({
      body: input?.body as TBody,
      query: input?.query as TQuery,
      path: event.pathParameters ?? {},
      merchant: merchantOf(event) as MerchantProfile,
      now: new Date(),
      clientIp: event.requestContext?.http?.sourceIp,
      requestKey: parts.requestKey?.(event),
    });
  });
  // Lambda calls handlers with (event, context); middy's third argument is optional at run time.
  return handler as unknown as LambdaHandler;
}
