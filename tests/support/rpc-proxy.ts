import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with one exchange: pass it on, or misbehave. */
export type ProxyFault =
  | { kind: 'pass' }
  /** Never answers (the client's deadline must end it). */
  | { kind: 'hang' }
  /** Answers this status with a short text body. */
  | { kind: 'status'; status: number }
  /** Answers this body instead of the node's. */
  | { kind: 'body'; body: string }
  /** Forwards, then rewrites the node's parsed answer. */
  | { kind: 'rewrite'; rewrite: (answer: unknown) => unknown }
  /** Sends the start of the answer, then nothing more. */
  | { kind: 'trickle' };

export interface RpcProxy {
  url: string;
  /** Decides per request; `methods` are the JSON-RPC methods in the request body, `request` the body parsed (undefined: not JSON). */
  fault: (methods: string[], request: unknown) => ProxyFault;
  /** Every HTTP request's JSON-RPC methods, in order (tests count requests and calls, and empty it). */
  seen: string[][];
  stop(): Promise<void>;
}

/**
 * An HTTP proxy in front of a real node that can answer garbage, errors, or nothing, so the
 * watcher's handling of a misbehaving source is tested against real traffic.
 */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const proxy: RpcProxy = { url: '', fault: () => ({ kind: 'pass' }), seen: [], stop: async () => undefined };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let methods: string[] = [];
      let parsed: unknown;
      try {
        parsed = JSON.parse(body) as { method: string } | { method: string }[];
        methods = (Array.isArray(parsed) ? parsed : [parsed]).map((call: { method: string }) => call.method);
      } catch {
        // Not JSON: no methods.
      }
      proxy.seen.push(methods);
      void handle(proxy.fault(methods, parsed), body, res);
    });
  });
  const handle = async (fault: ProxyFault, body: string, res: ServerResponse) => {
    if (fault.kind === 'hang') return;
    if (fault.kind === 'status') return void res.writeHead(fault.status, { 'content-type': 'text/plain' }).end('bad gateway');
    if (fault.kind === 'body') return void res.writeHead(200, { 'content-type': 'application/json' }).end(fault.body);
    const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await upstream.text();
    if (fault.kind === 'trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(text.slice(0, 10));
      return;
    }
    const out = fault.kind === 'rewrite' ? JSON.stringify(fault.rewrite(JSON.parse(text))) : text;
    res.writeHead(200, { 'content-type': 'application/json' }).end(out);
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}
