/**
 * Throughput under load: autocannon (in its own process, bench/load-driver.ts) against the
 * local runtime's HTTP adapter in this process, then the same writes straight at DynamoDB
 * Local. Needs TABLE_NAME, DYNAMODB_ENDPOINT and PAYMENT_PAGE_URL set before it is imported
 * (as bench/api-latency.ts).
 */
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { runChild } from './child';
import type { LoadFigures, LoadJob } from './load-driver';

export interface LoadReport {
  /** Creates, reads, checkouts and lists in a mix (1 create : 2 gets : 1 checkout : 1 list). */
  mix: LoadFigures;
  /** Create Order only (each with a merchant_order_id: one conditional PutItem of the order). */
  create: LoadFigures;
  /** The same PutItem straight at DynamoDB Local, same connections and duration. */
  dynamodb: LoadFigures;
  /** create.throughput_rps / dynamodb.throughput_rps. */
  create_vs_dynamodb_ratio: number;
  /** Errors of the API runs together: non-2xx, connection errors, error bodies. */
  api_errors: number;
  goals: { ratio_min: number; errors_max: number };
}

const DRIVER = 'bench/load-driver.ts';

export async function measureLoad(options: { connections: number; seconds: number }): Promise<LoadReport> {
  const { ROUTES } = await import('#shared/http/routes');
  const { createApiServer } = await import('#infra/local/http-adapter');
  const { apiFunctions } = await import('#infra/local/handlers');
  const { createMerchant } = await import('#shared/services/merchants');
  const { db, tableName } = await import('#shared/store/client');
  const { orderKey } = await import('#shared/store/keys');

  const server = createApiServer(ROUTES.map((route) => ({ ...route, load: apiFunctions[route.fn]! })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const merchant = await createMerchant({ name: 'Bench load', sandbox: true });

    // The items a Create Order with a merchant_order_id writes, to replay at DynamoDB Local.
    const moid = `load-template-${Date.now()}`;
    const response = await fetch(`${url}/v1/orders`, {
      method: 'POST',
      headers: { token: merchant.api_token, 'content-type': 'application/json' },
      body: JSON.stringify({ price_amount: 19.99, price_currency: 'USD', title: 'Load test order', merchant_order_id: moid }),
    });
    const created = (await response.json()) as { order?: { order_id: string } };
    if (response.status !== 200 || !created.order) throw new Error(`load: template order not created (${response.status})`);
    const orderId = created.order.order_id;
    const order = (await db().send(new GetCommand({ TableName: tableName(), Key: orderKey(orderId) }))).Item;
    if (!order) throw new Error('load: the template order is missing');
    // What the API writes for it: one conditional PutItem of the order (its id derives from the reference).
    const template = JSON.stringify({
      TableName: tableName(),
      Item: marshall(order, { removeUndefinedValues: true }),
      ConditionExpression: 'attribute_not_exists(PK)',
      ReturnConsumedCapacity: 'TOTAL',
    }).replaceAll(orderId, '__ID__');

    const job = (extra: Pick<LoadJob, 'mode' | 'url'> & Partial<LoadJob>): Record<string, string> => ({
      BENCH_LOAD_JOB: JSON.stringify({ connections: options.connections, seconds: options.seconds, token: merchant.api_token, ...extra }),
    });
    const mix = await runChild<LoadFigures>(DRIVER, job({ mode: 'mix', url }));
    const create = await runChild<LoadFigures>(DRIVER, job({ mode: 'create', url }));
    const dynamodb = await runChild<LoadFigures>(DRIVER, job({ mode: 'dynamodb', url: process.env.DYNAMODB_ENDPOINT!, template }));
    const errorsOf = (figures: LoadFigures) => figures.non2xx + figures.errors + figures.body_errors;
    return {
      mix,
      create,
      dynamodb,
      create_vs_dynamodb_ratio: Math.round((create.throughput_rps / dynamodb.throughput_rps) * 100) / 100,
      api_errors: errorsOf(mix) + errorsOf(create),
      goals: { ratio_min: 0.6, errors_max: 0 },
    };
  } finally {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
