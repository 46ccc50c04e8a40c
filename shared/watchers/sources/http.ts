import { describeFetchError, readTextLimited } from '#shared/core/fetch-text';
import { RetriesExhaustedError, RetryableStatusError, withRetries } from '#shared/core/retry';
import { SourceError } from '#shared/core/source-error';

/**
 * The one HTTP client of the chain sources (REST indexers, nodes, and through json-rpc.ts every
 * JSON-RPC source): a time limit on each try, retries with backoff (core/retry.ts), a bound on
 * every answer's size, and every failure a {@link SourceError} naming the source.
 */

/** How a source is asked over HTTP: a time limit per request and retries with backoff. */
export interface HttpPolicy {
  /** Per try, ms: the whole exchange (connect, headers and body: a source that trickles bytes times out). */
  timeoutMs: number;
  /** Tries per request (transport errors, timeouts, 429 and 5xx are tried again). */
  attempts: number;
  /** First backoff, ms; doubled each retry, with jitter. */
  backoffMs: number;
  /**
   * The largest answer read, bytes: a larger one is refused while it streams (a SourceError, not
   * tried again). Default {@link DEFAULT_MAX_BODY_BYTES}.
   */
  maxBodyBytes?: number;
}

/**
 * The bound on an answer where the source sets none: 64 MiB, above the largest answer a source
 * is asked for (a full EVM block with its transactions is a few MB, Core RPC's `getblock` of a
 * full Bitcoin block at verbosity 2 some tens of MB), and within what a watcher's memory can
 * parse (256 to 512 MB, infra/cdk/constructs/chain-watchers.ts).
 */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

export const DEFAULT_HTTP_POLICY: HttpPolicy = { timeoutMs: 10_000, attempts: 3, backoffMs: 250, maxBodyBytes: DEFAULT_MAX_BODY_BYTES };

/** What a request's errors say and which answers it takes as they are. */
export interface RequestOptions {
  /**
   * What the errors call the request. Default: the URL's path. A JSON-RPC client names the
   * method instead: an endpoint's path may hold its API key (Infura's `/v3/<key>`).
   */
  name?: string;
  /** Answers returned although their status is retried: JSON-RPC error bodies (HTTP 500 in Bitcoin Core's legacy mode). */
  acceptStatus?: (status: number, body: string) => boolean;
}

/** A status worth asking again: rate limits and server-side trouble. */
const retryable = (status: number) => status === 429 || status >= 500;

/**
 * One HTTP request to a source, tried again with exponential backoff and jitter
 * (core/retry.ts) when the transport fails, it times out, or the source answers 429/5xx. Any
 * other answer is returned (the adapter decides what a 404 means); an answer larger than the
 * policy's bound, or still failing after the last try, is a {@link SourceError}. `options` may be
 * the `acceptStatus` predicate alone.
 */
export async function requestText(
  source: string,
  url: string,
  init: RequestInit,
  policy: HttpPolicy,
  options: RequestOptions | RequestOptions['acceptStatus'] = {},
): Promise<{ status: number; body: string }> {
  const { name = new URL(url).pathname, acceptStatus = () => false } = typeof options === 'function' ? { acceptStatus: options } : options;
  const limit = policy.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  try {
    return await withRetries(
      { attempts: policy.attempts, baseDelayMs: policy.backoffMs },
      // An answer too large is the source's answer, not a transport failure: not asked again.
      { retried: (error) => !(error instanceof SourceError), describe: (error) => transportProblem(error, policy.timeoutMs) },
      async () => {
        // The signal bounds the whole exchange, body included.
        const signal = AbortSignal.timeout(policy.timeoutMs);
        const response = await fetch(url, { ...init, signal, redirect: 'error' });
        const body = await readTextLimited(response, limit, () => new SourceError(source, `${name}: answer larger than ${limit} bytes`), signal);
        if (!retryable(response.status) || acceptStatus(response.status, body)) return { status: response.status, body };
        throw new RetryableStatusError(response.status);
      },
    );
  } catch (error) {
    if (error instanceof RetriesExhaustedError) throw new SourceError(source, `${name}: ${error.message}`, { cause: error.last });
    throw error;
  }
}

/** A failed try in an error message's words: a timeout says how long was waited, a network error its code (ECONNREFUSED, ...). */
export function transportProblem(error: unknown, timeoutMs: number): string {
  return (error as Error | undefined)?.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describeFetchError(error);
}

/**
 * A source's endpoint as fetch takes it: http(s) only (a RangeError naming `what` otherwise),
 * credentials in the URL's user info moved to a Basic `authorization` header (fetch refuses a URL
 * with credentials), and `host`, what errors may name (never the credentials).
 */
export function endpoint(raw: string, what: string): { url: string; host: string; headers: Record<string, string> } {
  const url = new URL(raw);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RangeError(`${what} URL must be http(s), got "${url.protocol}"`);
  const headers: Record<string, string> = {};
  if (url.username || url.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { url: url.toString(), host: url.host, headers };
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
