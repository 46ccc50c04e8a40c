import { createHash } from 'node:crypto';
import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ValidateFunction } from 'ajv';
import { PayloadTooLargeError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { MAX_BODY_BYTES } from '#shared/domain/limits';
import { authenticate } from '#shared/http/auth';
import { errorResponse } from '#shared/http/errors';
import { idempotency } from '#shared/http/idempotency';
import { failedAuthentication, quota } from '#shared/http/quota';
import { type ExactField, lenientBody, parseJsonBody } from '#shared/http/json-body';
import { logger } from '#shared/core/logger';
import { validationError } from '#shared/http/validation';

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type Request = middy.Request<Event, Result, Error, Context>;

/** An API Gateway v2 (HTTP API) Lambda handler. */
export type LambdaHandler = (event: Event, context: Context) => Promise<Result>;

/**
 * A Lambda response-streaming handler (`awslambda.streamifyResponse`): it writes its answer to
 * the response stream (a function URL in RESPONSE_STREAM mode reads the status and headers from
 * the stream's prelude). Routes with `stream: true` (shared/http/routes.ts) have one.
 */
export type StreamingLambdaHandler = (event: Event, responseStream: NodeJS.WritableStream, context: Context) => Promise<void>;

/** What an endpoint function receives: parsed, validated and authenticated. */
export interface ApiInput<TBody, TQuery> {
  body: TBody;
  query: TQuery;
  path: Readonly<Record<string, string | undefined>>;
  /** The authenticated merchant (public endpoints: never read it). */
  merchant: MerchantProfile;
  now: Date;
  /** The caller's IP address as API Gateway saw it (the buyer's, on the payment page's endpoints). */
  clientIp: string | undefined;
}

export interface ApiOptions<TBody, TQuery> {
  /** Compiled body schema; endpoints without one read no body. */
  body?: ValidateFunction<TBody>;
  query?: ValidateFunction<TQuery>;
  /**
   * 'merchant' (default): the `token` header must name a merchant. 'public': no credentials
   * (the payment page's endpoints, where the unguessable order id is the only capability).
   */
  auth?: 'merchant' | 'public';
  /**
   * Body fields whose JSON numbers reach the endpoint as their exact text (see
   * shared/http/json-body.ts): amounts, and a numeric merchant_order_id's digits.
   */
  exact?: Readonly<Record<string, ExactField>>;
}

/** State the middlewares hand to the endpoint, kept off the event's public shape. */
const parsed = new WeakMap<Event, { body?: unknown; query?: unknown; merchant?: MerchantProfile }>();

const stateOf = (event: Event) => {
  let state = parsed.get(event);
  if (!state) parsed.set(event, (state = {}));
  return state;
};

/**
 * Reads the body: refuses an oversized one before parsing, parses the rest losslessly whatever
 * the content-type says (clients that forget the header still work), and applies the leniency
 * real MugglePay clients need (shared/http/json-body.ts). An absent or blank body reads as `{}`.
 */
const bodyReader = (exact: Readonly<Record<string, ExactField>>): middy.MiddlewareObj<Event, Result> => ({
  before: (request: Request) => {
    const { event } = request;
    const raw = event.body ?? '';
    const size = event.isBase64Encoded ? Math.floor((raw.length * 3) / 4) : Buffer.byteLength(raw, 'utf8');
    if (size > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
    const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    const body = text.trim() === '' ? {} : lenientBody(parseJsonBody(text), exact);
    // The parsed body replaces the text: the Idempotency-Key fingerprint reads it.
    (event as { body?: unknown }).body = body;
    event.isBase64Encoded = false;
  },
});

const validate = <TBody, TQuery>(options: ApiOptions<TBody, TQuery>): middy.MiddlewareObj<Event, Result> => ({
  before: (request: Request) => {
    const state = stateOf(request.event);
    if (options.body) {
      const body: unknown = request.event.body;
      if (!options.body(body)) throw validationError(options.body.errors?.[0], 'body');
      state.body = body;
    }
    if (options.query) {
      // Coercion mutates its input: validate a copy, never the event.
      const query = { ...(request.event.queryStringParameters ?? {}) };
      if (!options.query(query)) throw validationError(options.query.errors?.[0], 'query');
      state.query = query;
    }
  },
});

const merchantAuth = (): middy.MiddlewareObj<Event, Result> => ({
  before: async (request: Request) => {
    try {
      stateOf(request.event).merchant = await authenticate(request.event.headers?.token);
    } catch (error) {
      // Failures are counted per client address (AWS: in the table); past the budget, a 429.
      throw await failedAuthentication(request.event, error);
    }
  },
});

/** Last in the chain, so its onError runs first and every failure becomes a JSON answer. */
const errorMapper = (): middy.MiddlewareObj<Event, Result> => ({
  onError: (request: Request) => {
    request.response = errorResponse(request.error);
  },
});

/**
 * The shared middy stack of every endpoint: header normalizer, token auth (first, so an
 * anonymous caller learns nothing of the schema), the client's request quota, body reader, ajv validation,
 * Idempotency-Key, then the error mapper. The endpoint function gets typed input and returns
 * the response.
 */
export function apiHandler<TBody = undefined, TQuery = undefined>(
  options: ApiOptions<TBody, TQuery>,
  endpoint: (input: ApiInput<TBody, TQuery>) => Promise<Result>,
): LambdaHandler {
  const stack = middy<Event, Result>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(httpEventNormalizer())
    .use(httpHeaderNormalizer());
  if (options.auth !== 'public') stack.use(merchantAuth());
  // Per-client quota (AWS): after auth, so only a merchant's own requests count against it.
  stack.use(quota(options.auth === 'public' ? 'public' : 'merchant', (event) => stateOf(event).merchant));
  if (options.body) stack.use(bodyReader(options.exact ?? {}));
  stack.use(validate(options));
  // Keys are per merchant; the page's public calls have one scope per path, hashed so that
  // any path (however long) makes a key DynamoDB accepts.
  stack.use(
    idempotency((request) => {
      const merchant = stateOf(request.event).merchant;
      if (merchant) return `M${merchant.user_id}`;
      // Anonymous callers store nothing for ids we never issued.
      if (!Object.values(request.event.pathParameters ?? {}).every(isId)) return undefined;
      return `P${createHash('sha256').update(request.event.rawPath).digest('hex').slice(0, 32)}`;
    }),
  );
  const handler = stack
    .use(errorMapper())
    .handler(async (event) => {
      const state = stateOf(event);
      return endpoint({
        body: state.body as TBody,
        query: state.query as TQuery,
        path: event.pathParameters ?? {},
        merchant: state.merchant as MerchantProfile,
        now: new Date(),
        clientIp: event.requestContext?.http?.sourceIp,
      });
    });
  // Lambda calls handlers with (event, context); middy's third argument is optional at run time.
  return handler as unknown as LambdaHandler;
}
