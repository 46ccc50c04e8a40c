import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type Route } from '#shared/http/routes';
import { SCHEMA_FORMATS } from '#shared/http/validation';
import { buildOpenApiDocument, OPENAPI_DOCUMENT_FILE, renderOpenApiDocument } from '#tools/openapi/document';
import { errorSchema, merchantOrderIdExistsErrorSchema, orderDoesNotExistErrorSchema, orderNotFoundErrorSchema, priceNotValidErrorSchema } from '#shared/schemas/error-responses';
import {
  checkoutOrderResponseSchema,
  createdOrderSchema,
  createOrderResponseSchema,
  getOrderResponseSchema,
  getOrdersResponseSchema,
  invoiceSchema,
  orderSchema,
} from '#shared/schemas/order-responses';
import { payOrderResponseSchema } from '#shared/schemas/pay-responses';
import { RESPONSE_SCHEMAS } from '#shared/schemas/response-catalog';
import { listPlansResponseSchema, listSubscriptionsResponseSchema, planResponseSchema, planSchema, subscriptionResponseSchema, subscriptionSchema } from '#shared/schemas/subscriptions';
import { client, newMerchant, startApi, type ApiResponse } from '../support/api';

/**
 * The OpenAPI document and the response schemas against the real service: the committed
 * document is current and well-formed, its examples match its schemas, and every answer the
 * API really gives (success and error) matches both the response schema and what the document
 * says that operation answers with that HTTP status.
 */

const doc = buildOpenApiDocument();
const DOC_ID = 'openapi.json';

/** Strict ajv (unknown keywords and formats are errors), as the service compiles its schemas. */
function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  for (const [name, validate] of Object.entries(SCHEMA_FORMATS)) ajv.addFormat(name, validate);
  return ajv;
}

/** The response schemas as exported (relative `$ref`s between their `$id`s). */
const responseAjv = strictAjv();
for (const schema of RESPONSE_SCHEMAS) responseAjv.addSchema(schema);

/**
 * The document itself as a schema resource, so any schema in it can be compiled by JSON
 * pointer and its `#/components/...` refs resolve inside the document. Its top-level OpenAPI
 * keys are declared as inert keywords so strict mode still rejects typos in the schemas.
 */
const docAjv = strictAjv();
for (const key of Object.keys(doc)) docAjv.addKeyword(key);
docAjv.addSchema(structuredClone(doc), DOC_ID);

const escapePart = (part: string) => encodeURIComponent(part.replaceAll('~', '~0').replaceAll('/', '~1'));
const pointer = (parts: readonly string[]) => `${DOC_ID}#${parts.map((part) => `/${escapePart(part)}`).join('')}`;

const compiled = new Map<string, ValidateFunction>();
function docValidator(parts: readonly string[]): ValidateFunction {
  const ref = pointer(parts);
  let validate = compiled.get(ref);
  if (!validate) compiled.set(ref, (validate = docAjv.compile({ $ref: ref })));
  return validate;
}

function expectValid(validate: ValidateFunction, value: unknown, what: string): void {
  const valid = validate(value);
  expect(valid, `${what}: ${docAjv.errorsText(validate.errors)}\n${JSON.stringify(value)}`).toBe(true);
}

function expectInvalid(validate: ValidateFunction, value: unknown, what: string): void {
  expect(validate(value), `${what} should be refused: ${JSON.stringify(value)}`).toBe(false);
}

type Json = Record<string, any>;

const operationOf = (method: string, path: string): Json => (doc.paths[path] as Json | undefined)?.[method.toLowerCase()];
const operations = (): { method: string; path: string; operation: Json }[] =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ method, path, operation: operation as Json })));

/** The schema the document gives for this operation's answer with this HTTP status. */
function documentedResponse(method: string, path: string, status: number): ValidateFunction {
  const response = operationOf(method, path)?.responses?.[String(status)];
  expect(response, `${method} ${path} documents HTTP ${status}`).toBeDefined();
  return docValidator(['paths', path, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema']);
}

/** All `$ref` values in a JSON value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => (key === '$ref' ? [String(inner)] : refsIn(inner)));
}

function resolveLocal(ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>((node, part) => (node as Json | undefined)?.[part], doc);
}

describe('docs/openapi.json', () => {
  it('is exactly what buildOpenApiDocument() generates (run `npm run openapi` after a change)', () => {
    const committed = readFileSync(OPENAPI_DOCUMENT_FILE, 'utf8');
    expect(JSON.parse(committed)).toEqual(buildOpenApiDocument());
    expect(committed).toBe(renderOpenApiDocument());
  });
});

describe('the OpenAPI document', () => {
  it('is OpenAPI 3.1.0 with a token apiKey scheme and a base_url server variable', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toEqual(expect.any(String));
    expect(doc.info.version).toEqual(expect.any(String));
    expect(doc.components.securitySchemes.ApiToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'token' });
    expect(doc.servers).toEqual([expect.objectContaining({ url: '{base_url}', variables: { base_url: expect.objectContaining({ default: 'http://127.0.0.1:3000' }) } })]);
  });

  it('resolves every $ref inside the document', () => {
    const refs = refsIn(doc);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) {
      expect(ref, 'refs are local').toMatch(/^#\//);
      expect(resolveLocal(ref), `${ref} resolves`).toBeDefined();
    }
  });

  it('has one operation for every route of ROUTES and nothing else', () => {
    for (const route of ROUTES) expect(operationOf(route.method, route.path), `${route.method} ${route.path}`).toBeDefined();
    expect(operations()).toHaveLength(ROUTES.length);
    expect(doc.paths['/v1/orders/']?.get).toBeDefined();
    expect(doc.paths['/v1/orders']?.get).toBeDefined();
  });

  it('gives every operation a unique id, responses with descriptions and a security requirement (none for the public page routes)', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { method, path, operation } of operations()) {
      const where = `${method} ${path}`;
      // One success: 200, 201 for a route that answers Created, or 204 for a gateway's notification.
      expect(
        ['200', '201', '204'].filter((status) => operation.responses?.[status]),
        where,
      ).toHaveLength(1);
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        expect(status, where).toMatch(/^[1-5]\d\d$/);
        expect(response.description, `${where} ${status}`).toEqual(expect.any(String));
        const route = ROUTES.find((entry) => entry.method.toLowerCase() === method && entry.path === path);
        // Gateways' notification endpoints answer in the gateway's own format.
        const type = route?.gateway || route?.portal ? Object.keys(response.content ?? {})[0] : 'application/json';
        if (route?.gateway && status === '204') expect(response.content, `${where} ${status}`).toBeUndefined();
        else expect(response.content?.[type ?? '']?.schema, `${where} ${status}`).toBeDefined();
      }
      const route = ROUTES.find((entry) => entry.method.toLowerCase() === method && entry.path === path);
      expect(operation.security, where).toEqual(route?.public || route?.gateway ? [] : route?.portal ? [{ PortalSession: [] }] : [{ ApiToken: [] }]);
      for (const requirement of operation.security) {
        for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes[scheme], where).toBeDefined();
      }
    }
  });

  it('declares each {param} of a path as a required path parameter, and no other', () => {
    for (const { method, path, operation } of operations()) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      const declared = (operation.parameters ?? []).filter((p: Json) => p.in === 'path');
      expect(
        declared.map((p: Json) => p.name),
        `${method} ${path}`,
      ).toEqual(inPath);
      for (const parameter of declared) expect(parameter.required).toBe(true);
    }
  });

  it('compiles every component schema in strict mode', () => {
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => docValidator(['components', 'schemas', name]), name).not.toThrow();
    }
  });

  it('documents Get Orders paging from the query schema: limit 1..50 (10), offset 0 or more (0)', () => {
    const parameters: Json[] = operationOf('GET', '/v1/orders/').parameters;
    const byName = Object.fromEntries(parameters.map((p) => [p.name, p]));
    expect(byName.limit.schema).toEqual({ type: 'integer', minimum: 1, maximum: 50, default: 10 });
    expect(byName.offset.schema).toMatchObject({ type: 'integer', minimum: 0, default: 0 });
    expect(byName.status.schema.enum).toContain('PAID');
    expect(operationOf('GET', '/v1/orders/').description).toContain('newest first');
  });

  it.each([
    ['POST', '/v1/orders', 400, ['PRICE_NOT_VALID', 'PARAMETERS_MISSING', 'PARAMETERS_INVALID', 'INVALID_JSON', 'ORDER_MERCHANTID_EXIST', 'PAYMENT_NOT_AVAILABLE']],
    ['POST', '/v1/orders', 401, ['AUTHENTICATION_FAILED']],
    ['POST', '/v1/orders', 413, ['PAYLOAD_TOO_LARGE']],
    ['POST', '/v1/orders', 503, ['SERVICE_UNAVAILABLE']],
    ['GET', '/v1/orders/{order_id}', 401, ['AUTHENTICATION_FAILED']],
    ['GET', '/v1/orders/{order_id}', 404, ['ORDER_NOT_FOUND']],
    ['GET', '/v1/orders/{order_id}', 503, ['SERVICE_UNAVAILABLE']],
    ['POST', '/v1/orders/{order_id}/checkout', 400, ['PARAMETERS_MISSING', 'PARAMETERS_INVALID', 'INVALID_JSON', 'ORDER_NOT_NEW', 'PAYMENT_NOT_AVAILABLE']],
    ['POST', '/v1/orders/{order_id}/checkout', 401, ['AUTHENTICATION_FAILED']],
    ['POST', '/v1/orders/{order_id}/checkout', 409, ['ORDER_CONFLICT']],
    ['POST', '/v1/orders/{order_id}/checkout', 413, ['PAYLOAD_TOO_LARGE']],
    ['POST', '/v1/orders/{order_id}/checkout', 422, ['ORDER_DOES_NOT_EXIST']],
    ['GET', '/v1/orders/', 400, ['PARAMETERS_INVALID']],
    ['GET', '/v1/orders', 401, ['AUTHENTICATION_FAILED']],
  ] as const)('documents %s %s HTTP %i with %j', (method, path, status, names) => {
    const examples = operationOf(method, path).responses[String(status)].content['application/json'].examples;
    expect(Object.keys(examples)).toEqual(expect.arrayContaining([...names]));
  });

  it('states the contract quirks in the operation descriptions', () => {
    expect(operationOf('POST', '/v1/orders').description).toMatch(/HTTP \*\*200\*\* with `"status": 201`/);
    expect(operationOf('GET', '/v1/orders/{order_id}').description).toContain('"eror": "Order not found"');
    expect(operationOf('POST', '/v1/orders/{order_id}/checkout').description).toMatch(/HTTP \*\*422\*\*/);
  });

  it('fails loudly for a route without operation metadata or with undocumented path parameters', () => {
    const archive: Route = { method: 'POST', path: '/v1/orders/{order_id}/archive', fn: 'archive-order', access: 'write' };
    expect(() => buildOpenApiDocument([...ROUTES, archive])).toThrow(/no operation metadata .*archive-order/);
    const renamed = ROUTES.map((route) => (route.fn === 'get-order' ? { ...route, path: '/v1/orders/{orderId}' } : route));
    expect(() => buildOpenApiDocument(renamed)).toThrow(/path parameters/);
  });

  /**
   * An example made invalid: answers gain an unknown field (answer schemas are strict); request
   * bodies ignore unknown fields, so a known field gets an object, which no field accepts.
   */
  const broken = (where: string, value: Record<string, unknown>) => {
    if (where !== 'requestBody') return { ...value, unexpected: true };
    const [field] = Object.keys(value);
    return field === undefined ? 'not an object' : { ...value, [field]: { not: 'a value' } };
  };

  it('has examples that validate against their schemas (and the schemas refuse a broken example)', () => {
    let count = 0;
    for (const { method, path, operation } of operations()) {
      const bodies: [string[], Json][] = [];
      if (operation.requestBody) bodies.push([['requestBody'], operation.requestBody]);
      for (const [status, response] of Object.entries<Json>(operation.responses)) bodies.push([['responses', status], response]);
      for (const [where, holder] of bodies) {
        const media = holder.content?.['application/json'];
        // Gateways' notification endpoints take forms and answer text: no JSON examples.
        if (!media) continue;
        const validate = docValidator(['paths', path, method, ...where, 'content', 'application/json', 'schema']);
        for (const [name, example] of Object.entries<Json>(media.examples ?? {})) {
          expectValid(validate, example.value, `${method} ${path} ${where.join(' ')} example ${name}`);
          expectInvalid(validate, broken(where[0]!, example.value), `${method} ${path} ${where.join(' ')} example ${name}`);
          count += 1;
        }
      }
    }
    expect(count).toBeGreaterThan(40);
  });
});

describe('real answers', () => {
  let api: Awaited<ReturnType<typeof startApi>>;
  let call: ReturnType<typeof client>;
  let token: string;
  let liveToken: string;

  beforeAll(async () => {
    api = await startApi();
    call = client(api.url);
    token = (await newMerchant()).api_token;
    liveToken = (await newMerchant(false, 'Live Shop')).api_token;
  });

  afterAll(async () => {
    await api.close();
  });

  /** The answer matches the response schema and what the document says for its route and status. */
  function expectAnswer(route: [string, string], response: ApiResponse, status: number, schema: { $id: string }): void {
    const [method, path] = route;
    const what = `${method} ${path} -> ${response.status} ${response.text}`;
    expect(response.status, what).toBe(status);
    expectValid(responseAjv.getSchema(schema.$id)!, response.body, `${what} against ${schema.$id}`);
    expectValid(documentedResponse(method, path, status), response.body, `${what} against the document`);
    if (typeof response.body.error_code === 'string') {
      const examples = operationOf(method, path).responses[String(status)].content['application/json'].examples;
      expect(Object.keys(examples), `${what}: error_code is documented`).toContain(response.body.error_code);
    }
  }

  const CREATE: [string, string] = ['POST', '/v1/orders'];
  const GET: [string, string] = ['GET', '/v1/orders/{order_id}'];
  const CHECKOUT: [string, string] = ['POST', '/v1/orders/{order_id}/checkout'];

  async function createOrder(body: Json = {}): Promise<Json> {
    const response = await call('POST', '/v1/orders', { token, body: { price_amount: 9.99, price_currency: 'USD', ...body } });
    expectAnswer(CREATE, response, 200, createOrderResponseSchema);
    return response.body.order;
  }

  it('Create Order: every documented request example is accepted and answered as documented', async () => {
    const examples = operationOf('POST', '/v1/orders').requestBody.content['application/json'].examples as Json;
    for (const [name, example] of Object.entries<Json>(examples)) {
      // A fresh merchant per example: they share merchant_order_ids.
      const merchant = await newMerchant();
      const response = await call('POST', '/v1/orders', { token: merchant.api_token, body: example.value });
      expectAnswer(CREATE, response, 200, createOrderResponseSchema);
      expect(Object.keys(response.body.order), name).toEqual(createdOrderSchema.required);
    }
  });

  it('Get Order: {} as invoice before checkout, the invoice after', async () => {
    const order = await createOrder({ token: 'cb-token' });
    const before = await call('GET', `/v1/orders/${order.order_id}`, { token });
    expectAnswer(GET, before, 200, getOrderResponseSchema);
    expect(before.body.invoice).toEqual({});
    expect(Object.keys(before.body.order)).toEqual(orderSchema.required);

    await call('POST', `/v1/orders/${order.order_id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    const after = await call('GET', `/v1/orders/${order.order_id}`, { token });
    expectAnswer(GET, after, 200, getOrderResponseSchema);
    expect(after.body.invoice.pay_currency).toBe('BTC');
  });

  it.each(['BTC', 'ETH', 'EOS', 'LBTC', 'ALIPAY'])('Checkout Order in %s', async (payCurrency) => {
    const order = await createOrder({ merchant_order_id: `oa-${randomUUID()}` });
    const response = await call('POST', `/v1/orders/${order.order_id}/checkout`, {
      token,
      body: { order_id: order.order_id, pay_currency: payCurrency },
    });
    expectAnswer(CHECKOUT, response, 200, checkoutOrderResponseSchema);
    // Field order is the schema's.
    expect(Object.keys(response.body.invoice)).toEqual(invoiceSchema.required);
    const got = await call('GET', `/v1/orders/${order.order_id}`, { token });
    expectAnswer(GET, got, 200, getOrderResponseSchema);
  });

  it('Create Order with pay_currency, then Get Orders on both spellings of the path', async () => {
    await createOrder({ pay_currency: 'EOS' });
    for (const path of ['/v1/orders/', '/v1/orders']) {
      const response = await call('GET', `${path}?limit=50&status=NEW`, { token });
      expectAnswer(['GET', path], response, 200, getOrdersResponseSchema);
      expect(response.body.orders.length).toBeGreaterThan(1);
      for (const order of response.body.orders) expect(Object.keys(order)).toEqual(orderSchema.required);
    }
    const past = await call('GET', '/v1/orders/?offset=1000', { token });
    expectAnswer(['GET', '/v1/orders/'], past, 200, getOrdersResponseSchema);
    expect(past.body.orders).toEqual([]);
  });

  it('the order actions beyond the contract: cancel, sandbox pay, refund, complete refund, resolve', async () => {
    async function action(name: string, template: string, orderId: string, body: Json = {}) {
      const response = await call('POST', template.replace(/\{[^}]+\}/, orderId), { token, body });
      return { route: ['POST', template] as [string, string], response, name };
    }
    const cancelled = await createOrder();
    const paid = await createOrder();
    await call('POST', `/v1/orders/${paid.order_id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    const steps = [
      [await action('cancel', '/v1/orders/{order_id}/cancel', cancelled.order_id, { order_id: cancelled.order_id }), 200, 'CANCELED'],
      [await action('cancel again', '/v1/orders/{order_id}/cancel', cancelled.order_id), 400, 'ORDER_CANCELED_FAIILED'],
      [await action('pay', '/v1/sandbox/orders/{order_id}/pay', paid.order_id), 200, 'PAID'],
      [await action('resolve a PAID order', '/v1/orders/{order_id}/resolve', paid.order_id), 400, 'ORDER_RESOLVE_FAILED'],
      [await action('refund', '/v1/orders/{order_id}/refund', paid.order_id), 200, 'REFUND_PENDING'],
      [await action('complete refund', '/v1/sandbox/orders/{order_id}/complete-refund', paid.order_id, { txid: 'oa-refund-1' }), 200, 'REFUNDED'],
      [await action('refund unknown', '/v1/orders/{order_id}/refund', randomUUID()), 404, 'ORDER_NOT_FOUND'],
      [await action('pay without checkout', '/v1/sandbox/orders/{order_id}/pay', (await createOrder()).order_id), 400, 'INVOICE_NOT_EXIST'],
    ] as const;
    for (const [{ route, response, name }, status, expected] of steps) {
      expect(response.status, `${name}: ${response.text}`).toBe(status);
      expectAnswer(route, response, status, status === 200 ? getOrderResponseSchema : errorSchema);
      expect(status === 200 ? response.body.order.status : response.body.error_code, name).toBe(expected);
    }
    const live = await call('POST', `/v1/sandbox/orders/${randomUUID()}/pay`, { token: liveToken, body: {} });
    expectAnswer(['POST', '/v1/sandbox/orders/{order_id}/pay'], live, 403, errorSchema);
  });

  it('the payment page routes (no token): get, checkout, sandbox pay, cancel, and their errors', async () => {
    const PAGE = (suffix = '') => ['POST', `/v1/pay/{order_id}${suffix}`] as [string, string];
    const paid = await createOrder();
    const got = await call('GET', `/v1/pay/${paid.order_id}`);
    expectAnswer(['GET', '/v1/pay/{order_id}'], got, 200, payOrderResponseSchema);
    const checkout = await call('POST', `/v1/pay/${paid.order_id}/checkout`, { body: { pay_currency: 'EOS' } });
    expectAnswer(PAGE('/checkout'), checkout, 200, payOrderResponseSchema);
    expectAnswer(PAGE('/sandbox-pay'), await call('POST', `/v1/pay/${paid.order_id}/sandbox-pay`), 200, payOrderResponseSchema);
    expectAnswer(PAGE('/cancel'), await call('POST', `/v1/pay/${paid.order_id}/cancel`), 400, errorSchema);
    expectAnswer(PAGE('/checkout'), await call('POST', `/v1/pay/${paid.order_id}/checkout`, { body: { pay_currency: 'BTC' } }), 400, errorSchema);
    const canceled = await createOrder();
    expectAnswer(PAGE('/sandbox-pay'), await call('POST', `/v1/pay/${canceled.order_id}/sandbox-pay`), 400, errorSchema);
    expectAnswer(PAGE('/cancel'), await call('POST', `/v1/pay/${canceled.order_id}/cancel`), 200, payOrderResponseSchema);
    expectAnswer(['GET', '/v1/pay/{order_id}'], await call('GET', `/v1/pay/${randomUUID()}`), 404, errorSchema);
    expectAnswer(PAGE('/checkout'), await call('POST', `/v1/pay/${randomUUID()}/checkout`, { body: { pay_currency: 'BTC' } }), 404, errorSchema);
    expectAnswer(PAGE('/checkout'), await call('POST', `/v1/pay/${canceled.order_id}/checkout`, { body: {} }), 400, errorSchema);
    const live = (await call('POST', '/v1/orders', { token: liveToken, body: { price_amount: 5 } })).body.order;
    expectAnswer(PAGE('/sandbox-pay'), await call('POST', `/v1/pay/${live.order_id}/sandbox-pay`), 403, errorSchema);
  });

  it('recurring billing: every request example of plans, subscriptions and the test clock is accepted and answered as documented, and so are their errors', async () => {
    const requestExamples = (method: string, path: string) => Object.values<Json>(operationOf(method, path).requestBody.content['application/json'].examples).map((example) => example.value as Json);
    const PLAN = '/v1/plans/{plan_id}';
    const SUBSCRIPTION = '/v1/subscriptions/{subscription_id}';
    const plans: Json[] = [];
    for (const body of requestExamples('POST', '/v1/plans')) {
      const created = await call('POST', '/v1/plans', { token, body });
      expectAnswer(['POST', '/v1/plans'], created, 201, planResponseSchema);
      expect(Object.keys(created.body.plan)).toEqual(planSchema.required);
      plans.push(created.body.plan);
    }
    const [monthly, trial] = plans as [Json, Json];
    expectAnswer(['GET', '/v1/plans'], await call('GET', '/v1/plans?limit=2', { token }), 200, listPlansResponseSchema);
    expectAnswer(['GET', PLAN], await call('GET', `/v1/plans/${monthly.plan_id}`, { token }), 200, planResponseSchema);
    expectAnswer(['GET', PLAN], await call('GET', `/v1/plans/${randomUUID()}`, { token }), 404, errorSchema);
    expectAnswer(['POST', '/v1/plans'], await call('POST', '/v1/plans', { token, body: { name: 'x', interval_unit: 'day', price_amount: -1 } }), 400, priceNotValidErrorSchema);
    expectAnswer(['POST', '/v1/plans'], await call('POST', '/v1/plans', { token, body: { name: 'x', price_amount: 1 } }), 400, errorSchema);
    expectAnswer(['POST', PLAN], await call('POST', `/v1/plans/${monthly.plan_id}`, { token, body: {} }), 400, errorSchema);

    // The subscriptions' examples name the example plan: here each names a plan just made.
    const subscriptions: Json[] = [];
    for (const [index, body] of requestExamples('POST', '/v1/subscriptions').entries()) {
      const created = await call('POST', '/v1/subscriptions', { token, body: { ...body, plan_id: (index === 0 ? monthly : trial).plan_id } });
      expectAnswer(['POST', '/v1/subscriptions'], created, 201, subscriptionResponseSchema);
      expect(Object.keys(created.body.subscription)).toEqual(subscriptionSchema.required);
      subscriptions.push(created.body.subscription);
    }
    const [incomplete, trialing] = subscriptions as [Json, Json];
    expect([incomplete.status, trialing.status]).toEqual(['incomplete', 'trialing']);
    expectAnswer(['GET', '/v1/subscriptions'], await call('GET', '/v1/subscriptions?status=trialing', { token }), 200, listSubscriptionsResponseSchema);
    expectAnswer(['GET', SUBSCRIPTION], await call('GET', `/v1/subscriptions/${incomplete.subscription_id}`, { token }), 200, subscriptionResponseSchema);
    expectAnswer(['GET', SUBSCRIPTION], await call('GET', `/v1/subscriptions/${randomUUID()}`, { token }), 404, errorSchema);
    expectAnswer(['GET', '/v1/subscriptions'], await call('GET', '/v1/subscriptions?status=PAID', { token }), 400, errorSchema);

    const ADVANCE: [string, string] = ['POST', '/v1/sandbox/subscriptions/{subscription_id}/advance'];
    // The clock's examples move a subscription whose first period is paid, as they describe.
    const paying = (await call('POST', '/v1/subscriptions', { token, body: { plan_id: monthly.plan_id } })).body.subscription;
    await call('POST', `/v1/orders/${paying.period_order_id}/checkout`, { token, body: { pay_currency: 'BTC' } });
    expect((await call('POST', `/v1/sandbox/orders/${paying.period_order_id}/pay`, { token, body: {} })).body.order.status).toBe('PAID');
    for (const body of requestExamples(...ADVANCE)) {
      const moved = await call('POST', `/v1/sandbox/subscriptions/${paying.subscription_id}/advance`, { token, body });
      expectAnswer(ADVANCE, moved, 200, subscriptionResponseSchema);
      expect(moved.body.subscription).toMatchObject({ status: 'active', period: 2, periods_paid: 1 });
    }
    const livePlan = (await call('POST', '/v1/plans', { token: liveToken, body: { name: 'Live', price_amount: 5, interval_unit: 'month' } })).body.plan;
    const live = (await call('POST', '/v1/subscriptions', { token: liveToken, body: { plan_id: livePlan.plan_id } })).body.subscription;
    expectAnswer(ADVANCE, await call('POST', `/v1/sandbox/subscriptions/${live.subscription_id}/advance`, { token: liveToken, body: { days: 1 } }), 403, errorSchema);

    const CANCEL: [string, string] = ['POST', `${SUBSCRIPTION}/cancel`];
    for (const [index, body] of requestExamples(...CANCEL).entries()) {
      const target = index === 0 ? incomplete : trialing;
      expectAnswer(CANCEL, await call('POST', `/v1/subscriptions/${target.subscription_id}/cancel`, { token, body }), 200, subscriptionResponseSchema);
    }
    expectAnswer(CANCEL, await call('POST', `/v1/subscriptions/${incomplete.subscription_id}/cancel`, { token, body: {} }), 409, errorSchema);
    expectAnswer(ADVANCE, await call('POST', `/v1/sandbox/subscriptions/${incomplete.subscription_id}/advance`, { token, body: { days: 1 } }), 409, errorSchema);

    // The plan's examples last: one archives it, and an archived plan takes no new subscriber.
    for (const body of requestExamples('POST', PLAN)) {
      expectAnswer(['POST', PLAN], await call('POST', `/v1/plans/${monthly.plan_id}`, { token, body }), 200, planResponseSchema);
    }
    expectAnswer(['POST', '/v1/subscriptions'], await call('POST', '/v1/subscriptions', { token, body: { plan_id: monthly.plan_id } }), 409, errorSchema);
  });

  describe('errors', () => {
    it('Get Order of an unknown order: the 404 quirk body', async () => {
      const response = await call('GET', `/v1/orders/${randomUUID()}`, { token });
      expectAnswer(GET, response, 404, orderNotFoundErrorSchema);
      expect(response.body).toEqual({ eror: 'Order not found', status: '404' });
    });

    it('Checkout of an unknown order: the 422 quirk body', async () => {
      const response = await call('POST', `/v1/orders/${randomUUID()}/checkout`, { token, body: { pay_currency: 'BTC' } });
      expectAnswer(CHECKOUT, response, 422, orderDoesNotExistErrorSchema);
    });

    it('Create Order with an invalid price: the contract 400 body', async () => {
      const response = await call('POST', '/v1/orders', { token, body: { price_amount: -1 } });
      expectAnswer(CREATE, response, 400, priceNotValidErrorSchema);
    });

    it('every route without a valid token: 401 AUTHENTICATION_FAILED', async () => {
      // Bodies are validated before the token is checked, so each route gets a valid one.
      const validBodies: Record<string, Json | undefined> = {
        'create-order': { price_amount: 1 },
        'checkout-order': { pay_currency: 'BTC' },
      };
      for (const route of ROUTES.filter((entry) => !entry.public && !entry.gateway && !entry.portal)) {
        const path = route.path.replace(/\{[^}]+\}/g, randomUUID());
        const response = await call(route.method, path, { token: 'not-a-valid-token-000000', body: validBodies[route.fn] });
        expectAnswer([route.method, route.path], response, 401, errorSchema);
        expect(response.body.error_code).toBe('AUTHENTICATION_FAILED');
      }
    });

    it.each([
      ['missing price_amount', CREATE, '/v1/orders', { body: { title: 'x' } }, 'PARAMETERS_MISSING'],
      ['a wrong type', CREATE, '/v1/orders', { body: { price_amount: 1, title: 42 } }, 'PARAMETERS_INVALID'],
      ['malformed JSON', CREATE, '/v1/orders', { rawBody: '{"price_amount":' }, 'INVALID_JSON'],
      ['missing pay_currency', CHECKOUT, '/v1/orders/{order_id}/checkout', { body: {} }, 'PARAMETERS_MISSING'],
      ['a bad limit', ['GET', '/v1/orders/'], '/v1/orders/?limit=51', {}, 'PARAMETERS_INVALID'],
      ['a bad status', ['GET', '/v1/orders'], '/v1/orders?status=DONE', {}, 'PARAMETERS_INVALID'],
    ] as const)('%s: 400 %s', async (_, route, path, options, code) => {
      const order = await createOrder();
      const response = await call(route[0], path.replace('{order_id}', order.order_id), { token, ...options });
      expectAnswer([...route], response, 400, errorSchema);
      expect(response.body.error_code).toBe(code);
    });

    it('a reused merchant_order_id: 400 ORDER_MERCHANTID_EXIST', async () => {
      const reference = `dup-${randomUUID()}`;
      await createOrder({ merchant_order_id: reference });
      const response = await call('POST', '/v1/orders', { token, body: { price_amount: 1, merchant_order_id: reference } });
      expectAnswer(CREATE, response, 400, merchantOrderIdExistsErrorSchema);
      expect(response.body.error_code).toBe('ORDER_MERCHANTID_EXIST');
      expect(response.body.order.merchant_order_id).toBe(reference);
    });

    it('a gateway the merchant has not enabled: 400 PAYMENT_NOT_AVAILABLE', async () => {
      const created = await call('POST', '/v1/orders', { token: liveToken, body: { price_amount: 5 } });
      const response = await call('POST', `/v1/orders/${created.body.order.order_id}/checkout`, {
        token: liveToken,
        body: { pay_currency: 'WECHAT' },
      });
      expectAnswer(CHECKOUT, response, 400, errorSchema);
      expect(response.body.error_code).toBe('PAYMENT_NOT_AVAILABLE');
    });

    it('an oversized body: 413 PAYLOAD_TOO_LARGE', async () => {
      const rawBody = JSON.stringify({ price_amount: 1, description: 'x'.repeat(128 * 1024) });
      const response = await call('POST', '/v1/orders', { token, rawBody });
      expectAnswer(CREATE, response, 413, errorSchema);
    });
  });
});
