/**
 * Reading answers of outside HTTP sources (rates, chain nodes) with a bound on their size.
 * Bottom layer: no imports from the rest of the service.
 */

/**
 * The body as text, refusing more than `limit` bytes whether the length is declared or
 * streamed (the stream is cancelled at once): throws what `tooLarge` makes.
 */
export async function readTextLimited(response: Response, limit: number, tooLarge: () => Error): Promise<string> {
  if (Number(response.headers.get('content-length') ?? 0) > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** A failed fetch in a few words: its message and the network error code under it (ECONNREFUSED, ...). */
export function describeFetchError(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  const message = error instanceof Error ? error.message : String(error);
  return cause?.code ? `${message} (${cause.code})` : message;
}
