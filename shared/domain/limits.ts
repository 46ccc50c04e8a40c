/** Largest request body the API reads (API Gateway allows 10 MB; no valid request nears 64 KB). */
export const MAX_BODY_BYTES = 64 * 1024;

/** Deepest `offset` Get Orders serves: a page never reads more than MAX_OFFSET + 50 items. */
export const MAX_OFFSET = 1000;
