/**
 * What the Esplora and Core JSON-RPC test servers share: a loopback HTTP server that can be
 * told to misbehave (hang until the client gives up, answer garbage, fail with 5xx) for its
 * next N matching requests, and that counts what it was asked.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Fault {
  /** hang: never answer (the client times out); garbage: `body` with HTTP 200; error: HTTP 503. */
  kind: 'hang' | 'garbage' | 'error';
  /** How many matching requests misbehave. */
  times: number;
  /** Only requests whose path (or JSON-RPC method) matches. */
  match?: RegExp;
  body?: string;
}

export interface FaultyServer {
  url: string;
  /** Requests answered, by path or method (faults included). */
  requests: Map<string, number>;
  fault(fault: Fault): void;
  close(): Promise<void>;
}

export type Handler = (request: IncomingMessage, body: string) => { status: number; body: string; type?: string } | undefined;

/** Starts the server; `describe` names a request for fault matching and counting. */
export async function startFaultyServer(handler: Handler, describe: (request: IncomingMessage, body: string) => string): Promise<FaultyServer> {
  const faults: Fault[] = [];
  const requests = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const name = describe(request, body);
      requests.set(name, (requests.get(name) ?? 0) + 1);
      const fault = faults.find((f) => f.times > 0 && (!f.match || f.match.test(name)));
      if (fault) {
        fault.times -= 1;
        if (fault.kind === 'hang') {
          hanging.add(response);
          return;
        }
        if (fault.kind === 'error') {
          response.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(fault.body ?? '<html>not what you asked for</html>');
        return;
      }
      const answer = handler(request, body) ?? { status: 404, body: 'Not found', type: 'text/plain' };
      response.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fault: (fault) => faults.push({ ...fault }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
