import { createHmac, timingSafeEqual } from 'node:crypto';

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

/**
 * What a merchant runs (see docs/merchant-guide.md "Callbacks"): checks the signature in constant time and that the
 * timestamp is within `toleranceSeconds` of now (replay protection).
 */
export function verify(
  secret: string,
  headers: Record<string, string | undefined>,
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = 300,
): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = headers['webhook-signature'];
  if (!id || !Number.isInteger(timestamp) || !signatures) return false;
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, id, timestamp, body));
  return signatures.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
