import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/**
 * The receiving side of a callback, checked as a merchant's code would: with the Standard
 * Webhooks project's own JavaScript library (`standardwebhooks` on npm), independent of
 * shared/callbacks/signing.ts, so the tests check what we sign against another implementation,
 * not against our own signer. True when the timestamp is within the library's five minutes of
 * the clock (Date.now, which a test may fake) and one of the space-separated `v1,` signatures
 * is right for the `whsec_` secret.
 */
export function verifyCallback(secret: string, headers: Record<string, string | undefined>, rawBody: string): boolean {
  const present = Object.fromEntries(Object.entries(headers).filter((header): header is [string, string] => header[1] !== undefined));
  try {
    new Webhook(secret).verify(rawBody, present, { jsonParse: false });
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  }
}
