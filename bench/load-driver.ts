/**
 * The load generator, run in its own node process by bench/load.ts so that autocannon does not
 * share an event loop with the server it measures. Reads its job from BENCH_LOAD_JOB (JSON),
 * prints one JSON line with the figures.
 *
 * Modes:
 * - mix: each connection loops create -> get -> checkout -> get -> list, on the order it created.
 * - create: Create Order only (with a merchant_order_id: one conditional PutItem of the order).
 * - dynamodb: the same write straight at DynamoDB Local (the PutItem of an order
 *   item as the API writes it), through the same load generator.
 */
import autocannon from 'autocannon';
import { summarize, type LatencyFigures } from './stats';

export interface LoadJob {
  mode: 'mix' | 'create' | 'dynamodb';
  url: string;
  connections: number;
  seconds: number;
  /** API modes: the merchant's API token. */
  token?: string;
  /** dynamodb mode: the PutItem body with an __ID__ placeholder. */
  template?: string;
}

export interface LoadFigures {
  mode: LoadJob['mode'];
  connections: number;
  seconds: number;
  requests: number;
  /** Completed requests per second over the run. */
  throughput_rps: number;
  latency_ms: LatencyFigures;
  /** HTTP answers outside 2xx. */
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  timeouts: number;
  /** 2xx answers whose body said otherwise (the API's `status` field not 200/201). */
  body_errors: number;
  /** Completed requests by kind, and the status codes seen per kind. */
  by_kind: Record<string, { count: number; statuses: Record<string, number> }>;
}

type Context = { id?: string };
type Kind = 'create' | 'get' | 'checkout' | 'list' | 'dynamodb';

async function run(job: LoadJob): Promise<LoadFigures> {
  const byKind: LoadFigures['by_kind'] = {};
  let bodyErrors = 0;
  let sequence = 0;
  const uniqueId = () => `load-${process.pid}-${Date.now().toString(36)}-${(sequence += 1)}`;

  const count = (kind: Kind, status: number, body: string) => {
    const entry = (byKind[kind] ??= { count: 0, statuses: {} });
    entry.count += 1;
    entry.statuses[status] = (entry.statuses[status] ?? 0) + 1;
    if (kind !== 'dynamodb' && status >= 200 && status < 300) {
      try {
        const answer = JSON.parse(body) as { status?: unknown };
        if (answer.status !== 200 && answer.status !== 201) bodyErrors += 1;
      } catch {
        bodyErrors += 1;
      }
    }
  };

  const apiHeaders = { token: job.token ?? '', 'content-type': 'application/json' };
  const create: autocannon.Request = {
    method: 'POST',
    path: '/v1/orders',
    headers: apiHeaders,
    setupRequest: (request) => ({
      ...request,
      body: JSON.stringify({ price_amount: 19.99, price_currency: 'USD', title: 'Load test order', merchant_order_id: uniqueId() }),
    }),
    onResponse: (status, body, context) => {
      count('create', status, body);
      try {
        (context as Context).id = (JSON.parse(body) as { order?: { order_id?: string } }).order?.order_id;
      } catch {
        (context as Context).id = undefined;
      }
    },
  };
  // A request on the order this connection created; without one, start over with a create.
  const onOrder = (kind: Kind, method: 'GET' | 'POST', suffix: string, body?: string): autocannon.Request => ({
    method,
    headers: apiHeaders,
    setupRequest: (request, context) => {
      const id = (context as Context).id;
      return id ? { ...request, path: `/v1/orders/${id}${suffix}`, ...(body === undefined ? {} : { body }) } : (undefined as unknown as autocannon.Request);
    },
    onResponse: (status, text) => count(kind, status, text),
  });

  let requests: autocannon.Request[];
  let url = job.url;
  let headers: Record<string, string> = apiHeaders;
  if (job.mode === 'mix') {
    requests = [
      create,
      onOrder('get', 'GET', ''),
      onOrder('checkout', 'POST', '/checkout', JSON.stringify({ pay_currency: 'BTC' })),
      onOrder('get', 'GET', ''),
      { method: 'GET', path: '/v1/orders/?limit=10', headers: apiHeaders, onResponse: (status, body) => count('list', status, body) },
    ];
  } else if (job.mode === 'create') {
    requests = [create];
  } else {
    if (!job.template) throw new Error('dynamodb mode needs a template');
    const template = job.template;
    url = job.url;
    // DynamoDB Local checks that a SigV4 header names an access key, not the signature.
    headers = {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.PutItem',
      authorization: 'AWS4-HMAC-SHA256 Credential=local/20260101/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=0',
    };
    requests = [
      {
        method: 'POST',
        path: '/',
        headers,
        setupRequest: (request) => ({ ...request, body: template.replaceAll('__ID__', uniqueId()) }),
        onResponse: (status, body) => count('dynamodb', status, body),
      },
    ];
  }

  const latencies: number[] = [];
  // Without a callback autocannon returns its event emitter, which is also a promise of the result.
  const instance = autocannon({
    url,
    connections: job.connections,
    duration: job.seconds,
    headers,
    requests,
    timeout: 10,
  }) as unknown as NodeJS.EventEmitter & Promise<autocannon.Result>;
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.push(responseTime));
  const result = await instance;
  const completed = latencies.length;
  return {
    mode: job.mode,
    connections: job.connections,
    seconds: Math.round(result.duration * 100) / 100,
    requests: completed,
    throughput_rps: Math.round((completed / result.duration) * 10) / 10,
    latency_ms: summarize(latencies),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    body_errors: bodyErrors,
    by_kind: byKind,
  };
}

const job = JSON.parse(process.env.BENCH_LOAD_JOB ?? 'null') as LoadJob | null;
if (!job) throw new Error('BENCH_LOAD_JOB is not set');
console.log(JSON.stringify(await run(job)));
