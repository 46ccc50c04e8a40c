import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GATEWAY_HEADER_LIMIT } from '#infra/local/http-adapter';
import { MAX_SANDBOX_PAYMENT_FACTOR } from '#shared/domain/limits';
import { type TestApi, useTestApi } from '../support/api';

/**
 * Bounds (issue 14, item 5): a sandbox payment's amount, the size of every request field and
 * of the request line and headers. Each refusal is a JSON error, never an empty body.
 */

let call: TestApi['call'];
let token: string;
useTestApi((api) => ({ call, token } = api));

async function checkedOut(): Promise<{ id: string; payAmount: number }> {
  const created = await call('POST', '/v1/orders', { token, body: { price_amount: 10, pay_currency: 'BTC' } });
  expect(created.status, created.text).toBe(200);
  const id = created.body.order.order_id as string;
  const got = await call('GET', `/v1/orders/${id}`, { token });
  return { id, payAmount: got.body.invoice.pay_amount as number };
}

describe('a sandbox payment', () => {
  it(`is at most ${MAX_SANDBOX_PAYMENT_FACTOR}x the invoice amount`, async () => {
    const over = await checkedOut();
    const refused = await call('POST', `/v1/sandbox/orders/${over.id}/pay`, {
      token,
      body: { amount: Number((over.payAmount * (MAX_SANDBOX_PAYMENT_FACTOR + 1)).toFixed(8)) },
    });
    expect([refused.status, refused.body.error_code]).toEqual([400, 'PARAMETERS_INVALID']);
    expect(refused.body.error).toContain(`${MAX_SANDBOX_PAYMENT_FACTOR} times`);
    expect((await call('GET', `/v1/orders/${over.id}`, { token })).body.order.status).toBe('NEW');

    const atLimit = await checkedOut();
    const accepted = await call('POST', `/v1/sandbox/orders/${atLimit.id}/pay`, {
      token,
      body: { amount: Number((atLimit.payAmount * MAX_SANDBOX_PAYMENT_FACTOR).toFixed(8)) },
    });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body.order).toMatchObject({ status: 'UNRESOLVED', unresolved_reason: 'OVERPAID' });
  });
});

describe('request size', () => {
  it('refuses a query with more than 20 parameters, naming the query', async () => {
    const query = Array.from({ length: 21 }, (_, i) => `p${i}=1`).join('&');
    const response = await call('GET', `/v1/orders?${query}`, { token });
    expect([response.status, response.body.error_code]).toEqual([400, 'PARAMETERS_INVALID']);
    expect(response.body.error).toContain('query');
    expect((await call('GET', `/v1/orders?${query.split('&').slice(0, 20).join('&')}`, { token })).status).toBe(200);
  });

  it('answers a path over the limit with a JSON 414', async () => {
    const response = await call('GET', `/v1/pay/${'a'.repeat(GATEWAY_HEADER_LIMIT + 1)}`);
    expect(response.status).toBe(414);
    expect(response.body).toEqual({ status: 414, error: expect.stringContaining(`${GATEWAY_HEADER_LIMIT}`), error_code: 'URI_TOO_LONG' });
  });

  it("answers headers over the gateway's limit, and over Node's own cap, with a JSON 431", async () => {
    for (const size of [GATEWAY_HEADER_LIMIT + 1, 20_000]) {
      const response = await call('GET', '/v1/orders', { token, headers: { 'x-padding': 'a'.repeat(size) } });
      expect(response.status, `${size}`).toBe(431);
      expect(response.body).toMatchObject({ status: 431, error_code: 'HEADERS_TOO_LARGE' });
      expect(response.headers.get('content-type')).toContain('application/json');
    }
    // Just under the limit is served.
    const fits = await call('GET', '/v1/orders', { token, headers: { 'x-padding': 'a'.repeat(GATEWAY_HEADER_LIMIT - 2000) } });
    expect(fits.status).toBe(200);
  });
});

describe('the OpenAPI document states every bound', () => {
  type Schema = Record<string, any>;
  const doc = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as Schema;

  /** Every string in a request schema has a maxLength (or an enum), every object a bounded field set. */
  function unbounded(schema: Schema, path: string): string[] {
    if (schema.$ref) return unbounded(resolve(schema.$ref), path);
    const found: string[] = [];
    const types = ([] as unknown[]).concat(schema.type ?? []);
    if (types.includes('string') && schema.maxLength === undefined && schema.enum === undefined && schema.const === undefined) {
      found.push(`${path}: string without maxLength`);
    }
    if (types.includes('object') && schema.additionalProperties !== false && schema.maxProperties === undefined) {
      found.push(`${path}: object without a bound on its fields`);
    }
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
      found.push(...unbounded(property, `${path}.${name}`));
    }
    return found;
  }

  function resolve(ref: string): Schema {
    return ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: Schema, key) => node[key], doc);
  }

  it('for every request body, path, query and header parameter', () => {
    const found: string[] = [];
    let checked = 0;
    for (const [path, operations] of Object.entries(doc.paths as Schema)) {
      for (const [method, operation] of Object.entries(operations as Schema)) {
        const body = operation.requestBody?.content?.['application/json']?.schema;
        if (body) {
          found.push(...unbounded(body, `${method} ${path} body`));
          checked += 1;
        }
        for (const parameter of (operation.parameters ?? []) as Schema[]) {
          const resolved = parameter.$ref ? resolve(parameter.$ref) : parameter;
          found.push(...unbounded(resolved.schema, `${method} ${path} ${resolved.in} ${resolved.name}`));
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(found).toEqual([]);
  });
});
