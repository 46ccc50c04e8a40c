import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signatures: `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`,
 * where the key is the base64-decoded part of the merchant's `whsec_...` secret.
 */
function secretKey(secret: string): Buffer {
  if (!secret.startsWith('whsec_')) throw new RangeError('a callback secret starts with whsec_');
  return Buffer.from(secret.slice('whsec_'.length), 'base64');
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const digest = createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${digest}`;
}

/**
 * The three headers of a signed callback (the id is stable across retries). With several
 * secrets (the current one and, after a roll, the previous one for its overlap),
 * `webhook-signature` carries one space-separated signature per secret, as Standard Webhooks
 * allows: a receiver that knows either secret accepts the callback.
 */
export function webhookHeaders(secrets: string | readonly string[], id: string, timestamp: number, body: string): Record<string, string> {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': list.map((secret) => sign(secret, id, timestamp, body)).join(' '),
  };
}
