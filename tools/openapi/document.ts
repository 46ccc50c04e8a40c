import { fileURLToPath } from 'node:url';
import { ROUTES, type Route } from '#shared/http/routes';
import { type NamedSchema, buildComponentSchemas, ref } from '#tools/openapi/components';
import { errorResponses, rateLimited } from '#tools/openapi/errors';
import type { Examples } from '#tools/openapi/examples';
import { type OperationMeta, queryParameters } from '#tools/openapi/operation';
import { OPERATIONS } from '#tools/openapi/operations';
import { gatewayOperation } from '#tools/openapi/operations/gateways';
import { portalOperation } from '#tools/openapi/operations/portal';

/**
 * The OpenAPI 3.1 document of the merchant API, generated from the route table
 * (shared/http/routes.ts: each route's path, method and its request schemas, `body` and
 * `query`) and the response schemas (shared/schemas/*-responses.ts). Nothing here restates a
 * field list or which schema a route takes: the document only adds prose, examples and the
 * mapping from each route's function to its operation.
 * `npm run openapi` writes it to docs/openapi.json; a test keeps that file current.
 */

/** Where the generated document is committed. */
export const OPENAPI_DOCUMENT_FILE = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

// ---------------------------------------------------------------------------------------------
// Paths, one operation per route.

const SECURITY = [{ ApiToken: [] }];

function pathParameterNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

function metadataFor(route: Route): OperationMeta {
  const meta = OPERATIONS[route.fn];
  if (!meta) throw new Error(`OpenAPI: no operation metadata for ${route.method} ${route.path} (fn "${route.fn}")`);
  const documented = Object.keys(meta.pathParameters ?? {})
    .sort()
    .join(',');
  if (pathParameterNames(route.path).sort().join(',') !== documented) {
    throw new Error(`OpenAPI: path parameters of ${route.method} ${route.path} do not match the metadata of "${route.fn}"`);
  }
  // The body is the route's (shared/http/routes.ts); the metadata only shows it.
  if (Boolean(route.body) !== Boolean(meta.requestExamples)) {
    throw new Error(
      `OpenAPI: ${route.method} ${route.path} ${route.body ? 'declares a body but "' + route.fn + '" has no requestExamples' : 'declares no body but "' + route.fn + '" has requestExamples'}`,
    );
  }
  const undescribed = Object.keys(meta.queryDescriptions ?? {}).filter((name) => !(name in (route.query?.properties ?? {})));
  if (undescribed.length) throw new Error(`OpenAPI: "${route.fn}" describes query parameters its route's query does not have: ${undescribed.join(', ')}`);
  return meta;
}

function parameters(route: Route, meta: OperationMeta): unknown[] {
  const inPath = pathParameterNames(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    description: meta.pathParameters?.[name],
    // Every path parameter is an id (a UUID) of an order, a link, a plan or a subscription; anything else reads as a missing one.
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
  }));
  const inQuery = queryParameters(route, meta.queryDescriptions);
  return route.method === 'POST' ? [...inPath, ...inQuery, IDEMPOTENCY_KEY_PARAMETER] : [...inPath, ...inQuery];
}

/** Every POST takes an Idempotency-Key (shared/http/middlewares/idempotency.ts). */
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: [
    'Makes a retry safe: the same key with the same request answers the first answer again (header',
    '`idempotent-replayed: true`) without doing the work twice; with a different request 422',
    'IDEMPOTENCY_KEY_REUSED; while the first is still running 409 IDEMPOTENCY_IN_PROGRESS. Kept 24 hours,',
    'per merchant; answers of 5xx and 409 ORDER_CONFLICT are not kept (a retry runs again), nor a key sent for an',
    "order that does not exist or is not the caller's.",
  ].join(' '),
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};

function jsonContent(schema: NamedSchema, examples: Examples) {
  return { 'application/json': { schema: ref(schema), examples } };
}

/** Routes that share a function (GET /v1/orders and /v1/orders/) get numbered operation ids. */
function operation(route: Route, meta: OperationMeta, routes: readonly Route[]) {
  const siblings = routes.filter((other) => other.fn === route.fn);
  const index = siblings.indexOf(route);
  const aliases = siblings.filter((other) => other !== route).map((other) => `\`${other.method} ${other.path}\``);
  const params = parameters(route, meta);
  return {
    tags: [meta.tag ?? 'Orders'],
    operationId: index === 0 ? meta.operationId : `${meta.operationId}${index + 1}`,
    summary: meta.summary,
    description: aliases.length ? `${meta.description}\n\nSame operation as ${aliases.join(', ')}.` : meta.description,
    ...(params.length ? { parameters: params } : {}),
    ...(route.body && meta.requestExamples ? { requestBody: { required: true, content: jsonContent(route.body, meta.requestExamples) } } : {}),
    responses: {
      [meta.success.status ?? 200]: { description: meta.success.description, content: jsonContent(meta.success.schema, meta.success.examples) },
      ...errorResponses([...meta.errors, rateLimited(route.public ? 'public' : 'merchant')]),
    },
    // The payment page's endpoints take no token.
    security: route.public ? [] : SECURITY,
  };
}

function buildPaths(routes: readonly Route[]): Record<string, Record<string, unknown>> {
  const stale = Object.keys(OPERATIONS).filter((fn) => !routes.some((route) => route.fn === fn));
  if (stale.length) throw new Error(`OpenAPI: metadata for functions without a route: ${stale.join(', ')}`);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = route.gateway ? gatewayOperation(route) : route.portal ? portalOperation(route) : operation(route, metadataFor(route), routes);
  }
  return paths;
}

// ---------------------------------------------------------------------------------------------
// The document.

const API_DESCRIPTION = [
  'Hosted crypto payment orders, compatible with the MugglePay merchant API v1, quirks included.',
  '',
  '**Authentication.** Every call carries the merchant API token in the `token` header. A missing or unknown',
  'token is HTTP 401 `AUTHENTICATION_FAILED`. (The `token` field of Create Order is a different thing: a',
  "merchant-chosen value echoed in callbacks.) The hosted payment page's endpoints under `/v1/pay/` take no",
  'token and answer only what a buyer needs.',
  '',
  '**Errors.** Errors are JSON `{"status": <HTTP status>, "error": <message>, "error_code": <CODE>}`, except the',
  "contract's three fixed bodies:",
  '- Get Order, unknown order: HTTP 404 `{"eror": "Order not found", "status": "404"}` (misspelt key, string status);',
  '- Checkout Order, unknown order: HTTP 422 `{"error": "Order does not exist", "status": 422}`;',
  '- Create Order, invalid price: HTTP 400 `{"status": 400, "error": "Price is not valid"}`.',
  '',
  'The order actions beyond the contract (cancel, refund, resolve, sandbox) answer a missing order with the',
  'generic body, HTTP 404 `ORDER_NOT_FOUND`.',
  '',
  'Bad input is always a 4xx naming the field, never a 5xx. Unknown paths are HTTP 404 `NOT_FOUND`;',
  'HTTP 503 `SERVICE_UNAVAILABLE` means nothing was changed and the call may be retried.',
  '',
  '**Success quirk.** Create Order answers HTTP 200 with `"status": 201` in the body.',
].join('\n');

/** The OpenAPI document type, loosely: tests walk it as plain JSON. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  servers: unknown[];
  tags: unknown[];
  security: unknown[];
  paths: Record<string, Record<string, unknown>>;
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
}

/**
 * Builds the OpenAPI 3.1.0 document for `routes` (the service's {@link ROUTES} by default).
 *
 * @throws Error when a route has no {@link OPERATIONS} entry or its path parameters are not
 *   documented, when metadata names a function no route serves, or when a `$ref` names no schema.
 */
export function buildOpenApiDocument(routes: readonly Route[] = ROUTES): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'Crypto Pay Orders API', version: '1.0.0', description: API_DESCRIPTION },
    servers: [
      {
        url: '{base_url}',
        description: 'A deployment of the service',
        variables: {
          base_url: {
            default: 'http://127.0.0.1:3000',
            description: 'Base address without a trailing slash (the default is `npm start` on this machine).',
          },
        },
      },
    ],
    tags: [
      { name: 'Orders', description: 'Payment orders and their invoices.' },
      { name: 'Callbacks', description: 'The delivery log of status-change callbacks, and redelivery.' },
      { name: 'Sandbox', description: 'Sandbox merchants only: simulate what a chain or a refund would report.' },
      { name: 'Payment page', description: 'Public endpoints of the hosted payment page (no token; the order id is the capability).' },
      { name: 'Gateways', description: "Payment gateways' signed notifications (called by Alipay and WeChat Pay, not by merchants)." },
      { name: 'Payment links', description: "A merchant's reusable payment pages (beyond the contract): each buyer who picks a currency gets an ordinary order." },
      {
        name: 'Subscriptions',
        description: "Recurring billing (beyond the contract): a merchant's plans and its customers' subscriptions to them, each period billed with an ordinary order.",
      },
      { name: 'Health', description: "Operators' monitors: the payment sources' health (no token, nothing secret)." },
      { name: 'Portal', description: "The merchant portal's own API (its pages call it with a session cookie; not for integrations)." },
    ],
    security: SECURITY,
    paths: buildPaths(routes),
    components: {
      securitySchemes: {
        ApiToken: {
          type: 'apiKey',
          in: 'header',
          name: 'token',
          description: "The merchant's API token from the merchant portal (`npm run merchant` locally).",
        },
        PortalSession: {
          type: 'apiKey',
          in: 'cookie',
          name: '__Host-portal_session',
          description: 'The portal session cookie (`portal_session` on a loopback http origin), set by a sign-in.',
        },
      },
      schemas: buildComponentSchemas(),
    },
  };
}

/** The document as committed: 2-space JSON and a final newline. */
export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
