/**
 * Reading answers of outside HTTP sources (rates, chain nodes) with a bound on their size.
 * Bottom layer: no imports from the rest of the service.
 */

/**
 * The body as text, refusing more than `limit` bytes whether the length is declared or
 * streamed (the stream is cancelled at once): throws what `tooLarge` makes.
 *
 * `signal` (the fetch's own) bounds the reading too, and is raced here rather than trusted to
 * the stream: a fetch aborted while its body is being read can leave `reader.read()` pending
 * forever (nodejs/node#56917), and a source that sent its headers and then a few bytes hung a
 * watcher's read past its timeout. An abort rejects with the signal's reason (a TimeoutError for
 * `AbortSignal.timeout`) and cancels the stream.
 */
export async function readTextLimited(response: Response, limit: number, tooLarge: () => Error, signal: AbortSignal): Promise<string> {
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (signal.aborted) void reader.cancel().catch(() => undefined);
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** A failed fetch in a few words: its message and the network error code under it (ECONNREFUSED, ...). */
export function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  const message = error instanceof Error ? error.message : String(error);
  return cause?.code ? `${message} (${cause.code})` : message;
}
