import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/** SQS requests by action, as AWS bills them: one request per 64 KB chunk of payload. */
export interface SqsCounts {
  /** Requests by action (AmazonSQS.<Action>). ReceiveMessage counts only answers with messages. */
  requests: Record<string, number>;
  /** Billed requests by action (64 KB chunks of the request payload). */
  billed: Record<string, number>;
  /** ReceiveMessage answers without a message (long polls that ran out). */
  emptyReceives: number;
  /** The largest request payload seen, bytes. */
  largestPayloadBytes: number;
}

export const CHUNK_BYTES = 64 * 1024;

export function emptyCounts(): SqsCounts {
  return { requests: {}, billed: {}, emptyReceives: 0, largestPayloadBytes: 0 };
}

export function diffCounts(after: SqsCounts, before: SqsCounts): SqsCounts {
  const diff = (a: Record<string, number>, b: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(a)
        .map(([key, value]) => [key, value - (b[key] ?? 0)])
        .filter(([, value]) => value !== 0),
    );
  return {
    requests: diff(after.requests, before.requests),
    billed: diff(after.billed, before.billed),
    emptyReceives: after.emptyReceives - before.emptyReceives,
    largestPayloadBytes: after.largestPayloadBytes,
  };
}

export const cloneCounts = (counts: SqsCounts): SqsCounts => structuredClone(counts);

/**
 * A counting HTTP proxy in front of the SQS emulator: every client (the handlers' queue client
 * and the pollers) is pointed at it, so the bench sees each SQS request the pipeline makes.
 * The SDK speaks the JSON protocol: the action is in `x-amz-target`.
 */
export async function startSqsCounter(target: string): Promise<{ endpoint: string; counts: SqsCounts; stop(): Promise<void> }> {
  const upstream = new URL(target);
  const counts = emptyCounts();
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const action = String(incoming.headers['x-amz-target'] ?? 'unknown').replace(/^AmazonSQS\./, '');
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
        const answerChunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => answerChunks.push(chunk));
        answer.on('end', () => {
          const answerBody = Buffer.concat(answerChunks);
          if (action === 'ReceiveMessage' && !/"Messages"\s*:\s*\[\s*\{/.test(answerBody.toString('utf8'))) {
            counts.emptyReceives += 1;
          } else {
            counts.requests[action] = (counts.requests[action] ?? 0) + 1;
            counts.billed[action] = (counts.billed[action] ?? 0) + Math.max(1, Math.ceil(body.length / CHUNK_BYTES));
            counts.largestPayloadBytes = Math.max(counts.largestPayloadBytes, body.length);
          }
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          outgoing.end(answerBody);
        });
        answer.on('error', () => outgoing.destroy());
      });
      // A poller aborting its long poll on stop closes the socket: nothing to count.
      forward.on('error', () => outgoing.destroy());
      outgoing.on('close', () => {
        if (!outgoing.writableFinished) forward.destroy();
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
