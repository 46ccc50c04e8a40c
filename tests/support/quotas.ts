import { request } from 'node:http';
import { expect } from 'vitest';
import type { ApiResponse } from './api';

/**
 * A request from a chosen loopback source address (127.0.0.2, ...: Linux routes all of
 * 127.0.0.0/8 to lo), so a test can be two clients the server tells apart by the socket alone.
 */
export function requestFrom(localAddress: string, url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: options.method ?? 'GET', headers: options.headers, localAddress }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) if (typeof value === 'string') headers.set(name, value);
        resolve({ status: response.statusCode ?? 0, headers, text, body: JSON.parse(text) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/** A 429 in the service's error shape with a whole-seconds Retry-After of at least `minimum`. */
export function expectRateLimited(response: ApiResponse, minimum = 1): void {
  expect(response.status, response.text).toBe(429);
  expect(response.body).toEqual({ status: 429, error: expect.stringContaining('Too many requests'), error_code: 'API_LIMIT_EXCEEDED' });
  expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(minimum);
}
