import { callbackConfig } from '#shared/core/config';

/** Response bodies are read to this size at most (the merchant's answer is only logged). */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * How long one worker holds a delivery while it posts: the POST's timeout plus time to record
 * the attempt, at least a minute. Shorter than the queue's visibility timeout (6 x the
 * delivery function's timeout, which is the POST's plus 5 s), so a crashed worker's message
 * comes back only after its lease is over.
 */
export const leaseSeconds = (): number => Math.max(60, Math.ceil(callbackConfig().timeoutMs / 1000) + 30);
