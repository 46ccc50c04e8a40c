import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The receiving side of a callback, written as a merchant would from the Standard Webhooks
 * specification (docs/merchant-guide.md's "Verify in Node" code, with the clock as a
 * parameter), independent of shared/callbacks/signing.ts: the tests check what we sign against
 * this, not against our own signer. True when the timestamp is within `toleranceSeconds` of
 * `nowSeconds` and any one of the space-separated `v1,` signatures is the HMAC-SHA256 of
 * `<id>.<timestamp>.<body>` under the base64-decoded `whsec_` secret.
 */
export function verifyCallback(
  secret: string,
  headers: Record<string, string | undefined>,
  rawBody: string,
  nowSeconds = Date.now() / 1000,
  toleranceSeconds = 300,
): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (id === undefined || timestamp === undefined || signatures === undefined) return false;
  if (!(Math.abs(nowSeconds - Number(timestamp)) <= toleranceSeconds)) return false; // replay window (NaN fails)
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${rawBody}`).digest('base64');
  return signatures.split(' ').some((candidate) => candidate.length === expected.length && timingSafeEqual(Buffer.from(candidate), Buffer.from(expected)));
}
