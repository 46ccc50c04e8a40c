import { readTextLimited } from '#shared/core/fetch-text';
import { RetriesExhaustedError, RetryableStatusError, withRetries } from '#shared/core/retry';
import { SourceError } from '#shared/core/source-error';

/** How a source is asked over HTTP: a time limit per request and retries with backoff. */
export interface HttpPolicy {
  /** Per request, ms. */
  timeoutMs: number;
  /** Tries per request (transport errors, timeouts, 429 and 5xx are tried again). */
  attempts: number;
  /** First backoff, ms; doubled each retry, with jitter. */
  backoffMs: number;
  /** The largest answer read, bytes: a larger one is refused while it streams (a SourceError, not tried again). */
  maxBodyBytes?: number;
}

export const DEFAULT_HTTP_POLICY: HttpPolicy = { timeoutMs: 10_000, attempts: 3, backoffMs: 250 };

/** A status worth asking again: rate limits and server-side trouble. */
const retryable = (status: number) => status === 429 || status >= 500;

/**
 * One HTTP request to a source, tried again with exponential backoff and jitter
 * (core/retry.ts) when the transport fails, it times out, or the source answers 429/5xx. Any
 * other answer is returned (the adapter decides what a 404 means); still failing after the last
 * try, it throws a {@link SourceError}. `acceptStatus` lets JSON-RPC read its error bodies (HTTP
 * 500 in Bitcoin Core's legacy mode) instead of retrying them.
 */
export async function requestText(
  source: string,
  url: string,
  init: RequestInit,
  policy: HttpPolicy,
  acceptStatus: (status: number, body: string) => boolean = () => false,
): Promise<{ status: number; body: string }> {
  try {
    return await withRetries(
      { attempts: policy.attempts, baseDelayMs: policy.backoffMs },
      // An answer too large is the source's answer, not a transport failure: not asked again.
      { retried: (error) => !(error instanceof SourceError), describe: (error) => transportProblem(error, policy.timeoutMs) },
      async () => {
        const response = await fetch(url, { ...init, signal: AbortSignal.timeout(policy.timeoutMs), redirect: 'error' });
        const limit = policy.maxBodyBytes;
        const body =
          limit === undefined
            ? await response.text()
            : await readTextLimited(response, limit, () => new SourceError(source, `${new URL(url).pathname}: answer larger than ${limit} bytes`));
        if (!retryable(response.status) || acceptStatus(response.status, body)) return { status: response.status, body };
        throw new RetryableStatusError(response.status);
      },
    );
  } catch (error) {
    if (error instanceof RetriesExhaustedError) throw new SourceError(source, `${new URL(url).pathname}: ${error.message}`);
    throw error;
  }
}

/** A failed try in an error message's words: a timeout says how long was waited. */
export function transportProblem(error: unknown, timeoutMs: number): string {
  return (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : String((error as Error).message ?? error);
}

/**
 * One GET-style request whose answer must be a JSON object (REST sources: toncenter, Horizon):
 * the object; undefined for a status in `missing` (a 404 that means "none"); any other status,
 * a body that is not JSON or not an object is a {@link SourceError} naming `name` (the path,
 * without its query) and, for a status, what `detail` reads of the body.
 */
export async function requestJsonObject(
  source: string,
  url: string,
  init: RequestInit,
  policy: HttpPolicy,
  options: { name: string; missing?: readonly number[]; detail?: (body: string) => string },
): Promise<Record<string, unknown> | undefined> {
  const { status, body } = await requestText(source, url, init, policy);
  if (options.missing?.includes(status)) return undefined;
  if (status !== 200) throw new SourceError(source, `${options.name}: HTTP ${status}${options.detail?.(body) ?? ''}`);
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    throw new SourceError(source, `${options.name}: answer is not JSON`);
  }
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) throw new SourceError(source, `${options.name}: answer is not an object`);
  return answer as Record<string, unknown>;
}
