/** Why an extended key (or the index to derive at) was refused. */
export type InvalidExtendedKeyReason = 'malformed' | 'wrong-version' | 'private-key' | 'index-out-of-range';

/**
 * The extended key or the child index cannot be used to derive a receiving address.
 * Messages never echo the key itself: a caller that pasted a private key by mistake must not
 * find it again in the logs.
 */
export class InvalidExtendedKeyError extends Error {
  constructor(
    readonly reason: InvalidExtendedKeyReason,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
