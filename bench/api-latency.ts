/**
 * Warm latency of each endpoint through the local runtime's HTTP adapter, against the same
 * DynamoDB requests made directly (the "raw store" baseline; with QUOTA_STORE=table, the request
 * quota's count with them), and the DynamoDB capacity each API call consumes. The ratio
 * p50(API) / p50(raw) is our overhead.
 */
import { Agent, request } from 'node:http';
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

/**
 * How the bench calls the API: 'http', node:http with a keep-alive agent (one connection), as
 * the SDK calls DynamoDB on the raw side, so both sides pay the same for their client; 'fetch'
 * (undici), which costs about 0.3 ms more a request on this machine (docs/performance.md).
 */
export type ApiClient = 'http' | 'fetch';

export async function measureApiLatency(iterations: number, client: ApiClient = 'http'): Promise<EndpointFigures[]> {
  const { ROUTES } = await import('#shared/http/routes');
  const { createApiServer } = await import('#infra/local/http-adapter');
  const { apiFunctions } = await import('#infra/local/handlers');
  const { createMerchant } = await import('#shared/services/merchants');
  const { db, tableName } = await import('#shared/store/client');
  const { reset: resetCapacityMeter, idle: requestsAnswered } = meterCapacity(db());
  const { MAX_INVOICES_PER_ORDER } = await import('#shared/domain/limits');
  const { quotaConfig } = await import('#shared/core/config');
  const { takeFromWindow, windowLimit } = await import('#shared/store/quotas');
  const { addressKey, checkoutSlotsKey, counterKey, ENTITY, invoiceKey, openAddressKey, orderKey, merchantOrdersPartition } = await import('#shared/store/keys');

  const server = createApiServer(ROUTES.map((route) => ({ ...route, load: apiFunctions[route.fn]! })));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const merchant = await createMerchant({ name: 'Bench', sandbox: true });
  const headers = { token: merchant.api_token, 'content-type': 'application/json' };

  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, path: string, body: string | undefined): Promise<{ status: number; text: string }> => {
    if (client === 'fetch') return fetch(base + path, { method, headers, body }).then(async (response) => ({ status: response.status, text: await response.text() }));
    return new Promise((resolve, reject) => {
      const call = request(base + path, { method, headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      });
      call.on('error', reject);
      call.end(body);
    });
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const { status, text } = await send(method, path, body === undefined ? undefined : JSON.stringify(body));
    if (status !== 200) throw new Error(`${method} ${path}: ${status} ${text}`);
    return JSON.parse(text);
  };

  // Orders to read and check out: a measured checkout is always the order's first (a new
  // invoice, as the raw side writes), so the warm-up checks out orders of its own.
  const warm = Math.min(100, iterations);
  const orderIds: string[] = [];
  const warmOrderIds: string[] = [];
  for (let i = 0; i < iterations + warm; i += 1) {
    (i < iterations ? orderIds : warmOrderIds).push((await api('POST', '/v1/orders', { price_amount: 10 + i, title: `bench ${i}` })).order.order_id);
  }
  const sampleOrder = (await db().send(new GetCommand({ TableName: tableName(), Key: orderKey(orderIds[0]!) }))).Item!;
  await api('POST', `/v1/orders/${warmOrderIds[0]}/checkout`, { pay_currency: 'BTC' });
  const sampleInvoice = (
    await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :invoice)',
        ExpressionAttributeValues: { ':pk': orderKey(warmOrderIds[0]!).PK, ':invoice': 'INVOICE#' },
      }),
    )
  ).Items![0]!;
  // The invoice's entry on its chain's open-address list (the watcher looks for it).
  const sampleOpenAddress = (
    await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        FilterExpression: 'address = :address',
        ExpressionAttributeValues: { ':pk': openAddressKey('BTC', '', '', '').PK, ':address': sampleInvoice.payment_address },
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
  const cases: { endpoint: string; call: (i: number) => Promise<unknown>; warmCall?: (i: number) => Promise<unknown>; raw: (i: number) => Promise<unknown> }[] = [
    {
      endpoint: 'POST /v1/orders',
      call: (i) => api('POST', '/v1/orders', { price_amount: 9.99, merchant_order_id: `b-${Date.now()}-${i}`, title: 'Bench' }),
      raw: async (i) => {
        const id = `raw-${Date.now()}-${i}`;
        // An order with a merchant_order_id is one conditional PutItem (its id is derived from the reference).
        await db().send(new PutCommand({ TableName: tableName(), Item: { ...sampleOrder, ...orderKey(id), order_id: id }, ConditionExpression: 'attribute_not_exists(PK)' }));
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
      warmCall: (i) => api('POST', `/v1/orders/${warmOrderIds[i]}/checkout`, { pay_currency: 'BTC' }),
      raw: async (i) => {
        const id = orderIds[i % orderIds.length]!;
        const copy = `raw-co-${i}-${Date.now()}`;
        await readOrder(id);
        // One of the order's bounded invoice slots (issue 14), then the address counter.
        await db().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: checkoutSlotsKey(copy),
            UpdateExpression: 'SET invoices = if_not_exists(invoices, :existing) + :one, #type = :type',
            ConditionExpression: 'attribute_not_exists(invoices) OR invoices < :max',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':existing': 0, ':one': 1, ':max': MAX_INVOICES_PER_ORDER, ':type': ENTITY.checkoutSlots },
          }),
        );
        await db().send(
          new UpdateCommand({
            TableName: tableName(),
            Key: counterKey('bench-raw'),
            UpdateExpression: 'ADD #v :one',
            ExpressionAttributeNames: { '#v': 'value' },
            ExpressionAttributeValues: { ':one': 1 },
          }),
        );
        // The address on its chain's open-address list, before it can be shown.
        const writtenAt = new Date().toISOString();
        await db().send(new PutCommand({ TableName: tableName(), Item: { ...sampleOpenAddress, ...openAddressKey('BTC', writtenAt, 'BTC', `${copy}-address`), address: `${copy}-address` } }));
        // The new invoice and its address index (together), then the order's conditional write.
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

  // With QUOTA_STORE=table every call also counts in the table, which is one of its own DynamoDB
  // calls: the raw side makes it too, as the quota middleware does for a client well inside its
  // quota (sent once the request's own work waits on I/O), against a quota of its own.
  const quota = quotaConfig();
  const rawCount =
    quota.store === 'table' && quota.merchant.rate > 0
      ? () => new Promise((resolve) => setImmediate(() => resolve(takeFromWindow('Mbench-raw', windowLimit(quota.merchant.rate, quota.merchant.burst)))))
      : undefined;
  const figures: EndpointFigures[] = [];
  for (const { endpoint, call, warmCall = call, raw: endpointRaw } of cases) {
    // The count is in flight beside the endpoint's requests, not waited for (as the API does not).
    const raw = rawCount ? (i: number) => (void rawCount(), endpointRaw(i)) : endpointRaw;
    // Warm both paths (DynamoDB Local's JIT too), then alternate them so drift and GC pauses
    // of the shared machine fall on both sides alike.
    await timeSequential(warm, warmCall);
    await timeSequential(warm, raw);
    const apiSamples: number[] = [];
    const rawSamples: number[] = [];
    const used = { requests: 0, readUnits: 0, writeUnits: 0 };
    for (let i = 0; i < iterations; i += 1) {
      resetCapacityMeter();
      apiSamples.push(...(await timeSequential(1, () => call(i))));
      // A request the API left in flight when it answered (QUOTA_STORE=table's count) is the call's, not the raw side's.
      await requestsAnswered();
      const consumed = resetCapacityMeter();
      used.requests += consumed.requests;
      used.readUnits += consumed.readUnits;
      used.writeUnits += consumed.writeUnits;
      rawSamples.push(...(await timeSequential(1, () => raw(i))));
      await requestsAnswered();
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
  agent.destroy();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  return figures;
}
