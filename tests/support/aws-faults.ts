import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A proxy in front of DynamoDB Local or the SQS emulator that answers some calls as AWS does
 * when it fails: its own error bodies (JSON 1.0, `__type` and message as AWS words them),
 * throttling, 500s, connections reset before or after the call reached the store (a write that
 * landed with its answer lost), and stalls. The service's SDK clients point at it instead of
 * the store, so every retry, every condition and every answer the code sees is the real one.
 */
export type Fault =
  | 'throttling'
  | 'provisioned-throughput'
  | 'internal-error'
  | 'service-unavailable'
  | 'transaction-conflict'
  /** The connection is reset before the call reaches the store: nothing was done. */
  | 'reset'
  /** The call reaches the store, then the connection is reset: done, answer lost. */
  | 'lost-answer'
  /** The call reaches the store after a pause (under the clients' timeouts). */
  | 'stall';

/** One call through the proxy: the operation (PutItem, TransactWriteItems, SendMessage...) and its JSON body. */
export interface Call {
  operation: string;
  body: Record<string, unknown>;
}

export interface FaultProxy {
  url: string;
  /** Decides each call's fault (undefined: passed on). Replace it at any time. */
  plan: (call: Call) => Fault | undefined;
  /** Calls seen and faults injected, per operation and per fault. */
  readonly counts: { calls: Map<string, number>; faults: Map<string, number> };
  stop(): Promise<void>;
}

const DYNAMODB = 'com.amazonaws.dynamodb.v20120810';
const SQS = 'com.amazonaws.sqs';

/** An error answer as the service named by the call's target sends it. */
function errorAnswer(fault: Fault, call: Call, service: 'dynamodb' | 'sqs'): { status: number; headers: Record<string, string>; body: string } {
  const json = (status: number, type: string, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => ({
    status,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': `fault-${Math.random().toString(36).slice(2)}`, ...headers },
    body: JSON.stringify({ __type: type, message, ...extra }),
  });
  if (service === 'sqs') {
    // SQS's JSON protocol names the query error in a header as well (what older clients read).
    if (fault === 'throttling' || fault === 'provisioned-throughput') return json(400, `${SQS}#RequestThrottled`, 'Request is throttled.', {}, { 'x-amzn-query-error': 'RequestThrottled;Sender' });
    if (fault === 'service-unavailable') return json(503, `${SQS}#ServiceUnavailable`, 'Service is unavailable. Try again later.', {}, { 'x-amzn-query-error': 'ServiceUnavailable;Receiver' });
    return json(500, `${SQS}#InternalError`, 'We encountered an internal error. Please try again.', {}, { 'x-amzn-query-error': 'InternalError;Receiver' });
  }
  switch (fault) {
    case 'throttling':
      return json(
        400,
        `${DYNAMODB}#ThrottlingException`,
        'Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table or index so please try again shortly.',
      );
    case 'provisioned-throughput':
      return json(
        400,
        `${DYNAMODB}#ProvisionedThroughputExceededException`,
        'The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API.',
      );
    case 'service-unavailable':
      return json(503, `${DYNAMODB}#ServiceUnavailable`, 'Service Unavailable');
    case 'transaction-conflict': {
      if (call.operation === 'TransactWriteItems') {
        const items = Array.isArray(call.body.TransactItems) ? call.body.TransactItems.length : 1;
        const reasons = Array.from({ length: items }, (_, index) => (index === 0 ? { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' } : { Code: 'None' }));
        return json(
          400,
          `${DYNAMODB}#TransactionCanceledException`,
          `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((reason) => reason.Code).join(', ')}]`,
          { CancellationReasons: reasons },
        );
      }
      return json(400, `${DYNAMODB}#TransactionConflictException`, 'Transaction is ongoing for the item');
    }
    default:
      return json(500, `${DYNAMODB}#InternalServerError`, 'Internal server error');
  }
}

/** The operation a call names: JSON protocols' X-Amz-Target (`DynamoDB_20120810.PutItem`, `AmazonSQS.SendMessage`), or the query protocol's Action. */
function operationOf(request: IncomingMessage, body: string): string {
  const target = request.headers['x-amz-target'];
  if (typeof target === 'string') return target.slice(target.indexOf('.') + 1);
  return new URLSearchParams(body).get('Action') ?? 'unknown';
}

const count = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

/** Starts the proxy in front of `target` (an http:// endpoint on loopback). */
export async function startFaultProxy(target: string, options: { stallMs?: number } = {}): Promise<FaultProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const proxy: FaultProxy = {
    url: '',
    plan: () => undefined,
    counts: { calls: new Map(), faults: new Map() },
    stop: async () => undefined,
  };

  const forward = (request: IncomingMessage, body: Buffer): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers: { ...request.headers, host: upstream.host } }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks) }));
        answer.on('error', reject);
      });
      out.on('error', reject);
      out.end(body);
    });

  const serve = async (request: IncomingMessage, response: ServerResponse, raw: Buffer) => {
    const text = raw.toString('utf8');
    let parsed: Record<string, unknown> = {};
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // The query protocol's form body: the operation is in it, the fields are not needed.
    }
    const call: Call = { operation: operationOf(request, text), body: parsed };
    const target = request.headers['x-amz-target'];
    const service = typeof target === 'string' && target.startsWith('DynamoDB') ? 'dynamodb' : 'sqs';
    count(proxy.counts.calls, call.operation);
    const fault = proxy.plan(call);
    if (fault) count(proxy.counts.faults, `${call.operation} ${fault}`);
    if (fault === 'reset') return void request.socket.destroy();
    if (fault === 'stall') await new Promise((resolve) => setTimeout(resolve, options.stallMs ?? 800));
    if (fault && fault !== 'stall' && fault !== 'lost-answer') {
      const answer = errorAnswer(fault, call, service);
      return void response.writeHead(answer.status, answer.headers).end(answer.body);
    }
    let answer;
    try {
      answer = await forward(request, raw);
    } catch {
      return void request.socket.destroy();
    }
    if (fault === 'lost-answer') return void request.socket.destroy();
    const headers = { ...answer.headers };
    delete headers['transfer-encoding'];
    headers['content-length'] = String(answer.body.length);
    response.writeHead(answer.status, headers).end(answer.body);
  };

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => void serve(request, response, Buffer.concat(chunks)));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return proxy;
}

/**
 * A plan that fails about `rate` of the calls of `operations` (all when omitted), each with one
 * of `faults`, from a seeded generator so a failing run can be run again alike.
 */
export function atRate(rate: number, faults: readonly Fault[], options: { seed?: number; operations?: readonly string[] } = {}): (call: Call) => Fault | undefined {
  let state = options.seed ?? 0x2545f491;
  // xorshift32: enough for picking faults, and the same sequence for a seed.
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  return (call) => {
    if (options.operations && !options.operations.includes(call.operation)) return undefined;
    if (next() >= rate) return undefined;
    const fault = faults[Math.floor(next() * faults.length)]!;
    // A transaction conflict is answered to writes only, as DynamoDB does.
    if (fault === 'transaction-conflict' && !/^(Put|Update|Delete)Item$|^TransactWriteItems$/.test(call.operation)) return 'throttling';
    return fault;
  };
}
