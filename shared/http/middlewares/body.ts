import { MalformedJsonError, PayloadTooLargeError } from '#shared/http/request-errors';
import { MAX_BODY_BYTES } from '#shared/domain/limits';
import type { Event, Middleware } from '#shared/http/middlewares/types';

/** The body's text, decoded when API Gateway base64-encoded it. */
export const bodyText = (event: Event): string => (event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? ''));

/** JSON.parse, its failure the API's 400 MALFORMED_JSON. */
export function plainJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedJsonError();
  }
}

/**
 * How a stack reads its bodies. `parse` turns the (non-blank) text into the body: the merchant
 * API's lossless, lenient reader (shared/http/json-body.ts) or {@link plainJson} (the portal
 * sends no amounts; kept apart so the portal's bundles carry no lossless parser). `measure`:
 * 'sent' refuses a base64-encoded body by its encoded length before decoding it; 'decoded'
 * measures the decoded text.
 */
export interface BodyReading {
  parse: (text: string) => unknown;
  measure: 'sent' | 'decoded';
}

function sizedText(event: Event, measure: BodyReading['measure']): string {
  if (measure === 'sent' && event.isBase64Encoded) {
    if (Math.floor(((event.body ?? '').length * 3) / 4) > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
    return bodyText(event);
  }
  const text = bodyText(event);
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
  return text;
}

/**
 * Reads the body: refuses one over MAX_BODY_BYTES (413) before parsing, parses the rest as JSON
 * whatever the content-type says (clients that forget the header still work); an absent or
 * blank body reads as `{}`. The parsed body replaces the text on the event (the validator and
 * the Idempotency-Key fingerprint read it there).
 */
export const jsonBody = ({ parse, measure }: BodyReading): Middleware => ({
  before: ({ event }) => {
    const text = sizedText(event, measure);
    (event as { body?: unknown }).body = text.trim() === '' ? {} : parse(text);
    event.isBase64Encoded = false;
  },
});
