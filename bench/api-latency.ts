/**
 * Warm latency of each endpoint through the local runtime's HTTP adapter, against the same
 * DynamoDB requests made directly (the "raw store" baseline), and the DynamoDB capacity each
 * API call consumes. The ratio p50(API) / p50(raw) is our overhead.
 */
import type { AddressInfo } from 'node:net';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { meterCapacity } from './capacity';
import { summarize, timeSequential, type LatencyFigures } from './stats';

export interface EndpointFigures {
  endpoint: string;
  api: LatencyFigures;
  raw: LatencyFigures;
  overheadP50: number;
  /** Per API call: DynamoDB requests, read and write capacity units. */
  dynamodb: { requests: number; readUnits: number; writeUnits: number };
}

const round2 = (value: number) => Math.round(value * 100) / 100;

export async function measureApiLatency(iterations: number): Promise<EndpointFigures[]> {
  const { ROUTES } = await import('#shared/http/routes');
  const { createApiServer } = await import('#infra/local/http-adapter');
  const { apiFunctions } = await import('#infra/local/handlers');
  const { createMerchant } = await import('#shared/services/merchants');
  const { db, tableName } = await import('#shared/store/client');
  const { reset: resetCapacityMeter } = meterCapacity(db());
  const { addressKey, counterKey, invoiceKey, orderKey, merchantOrdersPartition } = await import('#shared/store/keys');

  const server = createApiServer(ROUTES.map((route) => ({ ...route, load: apiFunctions[route.fn]! })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const merchant = await createMerchant({ name: 'Bench', sandbox: true });
  const headers = { token: merchant.api_token, 'content-type': 'application/json' };

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text);
  };

  // Orders to read and check out.
  const orderIds: string[] = [];
  for (let i = 0; i < iterations; i += 1) {
    orderIds.push((await api('POST', '/v1/orders', { price_amount: 10 + i, title: `bench ${i}` })).order.order_id);
  }
  const sampleOrder = (await db().send(new GetCommand({ TableName: tableName(), Key: orderKey(orderIds[0]!) }))).Item!;
  await api('POST', `/v1/orders/${orderIds[0]}/checkout`, { pay_currency: 'BTC' });
  const sampleInvoice = (
    await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :invoice)',
        ExpressionAttributeValues: { ':pk': orderKey(orderIds[0]!).PK, ':invoice': 'INVOICE#' },
      }),
    )
  ).Items![0]!;

  // What Get Order (and every order action) reads: the order and its latest invoice.
  const readOrder = (id: string) =>
    db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :invoices AND :order',
        ExpressionAttributeValues: { ':pk': orderKey(id).PK, ':invoices': 'INVOICE', ':order': orderKey(id).SK },
        ScanIndexForward: false,
        Limit: 2,
        ConsistentRead: true,
      }),
    );

  // Warm functions authenticate from their token cache (AUTH_CACHE_SECONDS), so the raw
  // baseline is the order's own requests only.
  const cases: { endpoint: string; call: (i: number) => Promise<unknown>; raw: (i: number) => Promise<unknown> }[] = [
    {
      endpoint: 'POST /v1/orders',
      call: (i) => api('POST', '/v1/orders', { price_amount: 9.99, merchant_order_id: `b-${Date.now()}-${i}`, title: 'Bench' }),
      raw: async (i) => {
        const id = `raw-${Date.now()}-${i}`;
        // An order with a merchant_order_id is one conditional PutItem (its id is derived from the reference).
        await db().send(
          new PutCommand({ TableName: tableName(), Item: { ...sampleOrder, ...orderKey(id), order_id: id }, ConditionExpression: 'attribute_not_exists(PK)' }),
        );
      },
    },
    {
      endpoint: 'GET /v1/orders/:order_id',
      call: (i) => api('GET', `/v1/orders/${orderIds[i % orderIds.length]}`),
      raw: (i) => readOrder(orderIds[i % orderIds.length]!),
    },
    {
      endpoint: 'POST /v1/orders/:id/checkout',
      call: (i) => api('POST', `/v1/orders/${orderIds[i % orderIds.length]}/checkout`, { pay_currency: 'BTC' }),
      raw: async (i) => {
        const id = orderIds[i % orderIds.length]!;
        await readOrder(id);
        await db().send(new UpdateCommand({ TableName: tableName(), Key: counterKey('bench-raw'), UpdateExpression: 'ADD #v :one', ExpressionAttributeNames: { '#v': 'value' }, ExpressionAttributeValues: { ':one': 1 } }));
        // The new invoice and its address index (together), then the order's conditional write.
        const copy = `raw-co-${i}`;
        await Promise.all([
          db().send(new PutCommand({ TableName: tableName(), Item: { ...sampleInvoice, ...invoiceKey(copy, sampleInvoice.invoice_id) } })),
          db().send(new PutCommand({ TableName: tableName(), Item: { ...addressKey('BTC', `${copy}-address`), order_id: copy, invoice_id: sampleInvoice.invoice_id } })),
        ]);
        await db().send(
          new PutCommand({
            TableName: tableName(),
            Item: { ...sampleOrder, ...orderKey(copy) },
            ConditionExpression: 'attribute_not_exists(PK) OR #status = :status',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':status': 'NEW' },
          }),
        );
      },
    },
    {
      endpoint: 'GET /v1/orders/',
      call: () => api('GET', '/v1/orders/?limit=10'),
      raw: async () => {
        await db().send(
          new QueryCommand({
            TableName: tableName(),
            IndexName: 'GSI1',
            KeyConditionExpression: 'GSI1PK = :pk',
            ExpressionAttributeValues: { ':pk': merchantOrdersPartition(merchant.user_id) },
            ScanIndexForward: false,
            Limit: 10,
          }),
        );
      },
    },
  ];

  const figures: EndpointFigures[] = [];
  for (const { endpoint, call, raw } of cases) {
    // Warm both paths (DynamoDB Local's JIT too), then alternate them so drift and GC pauses
    // of the shared machine fall on both sides alike.
    const warm = Math.min(100, iterations);
    await timeSequential(warm, call);
    await timeSequential(warm, raw);
    const apiSamples: number[] = [];
    const rawSamples: number[] = [];
    const used = { requests: 0, readUnits: 0, writeUnits: 0 };
    for (let i = 0; i < iterations; i += 1) {
      resetCapacityMeter();
      apiSamples.push(...(await timeSequential(1, () => call(i))));
      const consumed = resetCapacityMeter();
      used.requests += consumed.requests;
      used.readUnits += consumed.readUnits;
      used.writeUnits += consumed.writeUnits;
      rawSamples.push(...(await timeSequential(1, () => raw(i))));
    }
    resetCapacityMeter();
    const apiFigures = summarize(apiSamples);
    const rawFigures = summarize(rawSamples);
    figures.push({
      endpoint,
      api: apiFigures,
      raw: rawFigures,
      overheadP50: round2(apiFigures.p50 / rawFigures.p50),
      dynamodb: {
        requests: round2(used.requests / iterations),
        readUnits: round2(used.readUnits / iterations),
        writeUnits: round2(used.writeUnits / iterations),
      },
    });
  }
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  return figures;
}
