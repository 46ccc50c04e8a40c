/**
 * An outside source (a chain's node or indexer, a Lightning node) answered something that is
 * not its documented format, or did not answer. Thrown by the watchers' adapters and the LND
 * REST client alike: checkout turns it into PAYMENT_NOT_AVAILABLE, the watch loop into a
 * failed step that is retried.
 */
/** A source answered something that is not its documented format, or did not answer. */
export class SourceError extends Error {
  constructor(
    readonly source: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${source}: ${message}`, options);
    this.name = 'SourceError';
  }
}
