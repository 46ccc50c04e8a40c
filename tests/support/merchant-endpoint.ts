import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCallback {
  at: number;
  headers: Record<string, string>;
  body: string;
  json: any;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Do not answer until the test calls the release function it is given (a slow merchant). */
  hold?: (release: () => void) => void;
}

export type Responder = (callback: ReceivedCallback, index: number) => Answer;

/**
 * A merchant's callback endpoint on loopback that records what it receives and answers as
 * the test script says (by default 200 {"status":200}, as MugglePay asks merchants to).
 */
export class MerchantEndpoint {
  readonly received: ReceivedCallback[] = [];
  private server: Server | undefined;
  port = 0;

  constructor(private responder: Responder = () => ({ status: 200, body: '{"status":200}' })) {}

  respondWith(responder: Responder): void {
    this.responder = responder;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(',') : (value ?? '');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const callback = { at: Date.now(), headers, body, json };
        this.received.push(callback);
        const answer = this.responder(callback, this.received.length - 1);
        const send = () => {
          if (response.destroyed) return;
          response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
          response.end(answer.body ?? '');
        };
        if (answer.hold) answer.hold(send);
        else send();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Callbacks for one order. */
  for(orderId: string): ReceivedCallback[] {
    return this.received.filter((callback) => callback.json?.order_id === orderId);
  }

  /** Waits until `predicate` holds (polling), or fails with what was received. */
  async waitFor(predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > deadline) {
        throw new Error(`merchant endpoint: condition not met in ${timeoutMs} ms; received ${JSON.stringify(this.received.map((c) => c.json?.status))}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
