import { AppError } from '#shared/domain/errors';
import type { RequestErrorCode } from '#shared/schemas/error-responses';

/**
 * The errors of a request refused before any service sees it: a body that is not JSON or is
 * too large, a request no gateway would pass on, an unknown route. They are the HTTP layer's
 * own, not the domain's. Their codes are listed with the error bodies' schema
 * (shared/schemas/error-responses.ts, which cannot read this layer), and `satisfies` holds each
 * class to that list; their statuses are in the one table of shared/http/errors.ts.
 */

export class MalformedJsonError extends AppError {
  readonly code = 'INVALID_JSON' satisfies RequestErrorCode;
  constructor() {
    super('Request body is not valid JSON');
  }
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE' satisfies RequestErrorCode;
  constructor(limit: number) {
    super(`Request body is larger than ${limit} bytes`);
  }
}

/**
 * A request no gateway would pass on: no Host, a path that is not percent-encoded text, a
 * request target that is not a path. Answered by the HTTP adapter and the page's file server.
 */
export class MalformedRequestError extends AppError {
  readonly code = 'BAD_REQUEST' satisfies RequestErrorCode;
  constructor(detail: string) {
    super(`Malformed HTTP request: ${detail}`);
  }
}

/** An `Expect` header asking for something the service does not do (anything but 100-continue). */
export class ExpectationFailedError extends AppError {
  readonly code = 'EXPECTATION_FAILED' satisfies RequestErrorCode;
  constructor() {
    super('Only "Expect: 100-continue" is supported');
  }
}

/** The request line is longer than the gateway reads (answered by the HTTP adapter). */
export class UriTooLongError extends AppError {
  readonly code = 'URI_TOO_LONG' satisfies RequestErrorCode;
  constructor(limit: number) {
    super(`Request path and query are longer than ${limit} bytes`);
  }
}

/** The request line and headers together are larger than the gateway reads. */
export class HeadersTooLargeError extends AppError {
  readonly code = 'HEADERS_TOO_LARGE' satisfies RequestErrorCode;
  constructor(limit: number) {
    super(`Request line and headers are larger than ${limit} bytes`);
  }
}

/** A path no route takes (answered by the not-found function in AWS and by the local adapter). */
export class RouteNotFoundError extends AppError {
  readonly code = 'NOT_FOUND' satisfies RequestErrorCode;
  constructor() {
    super('No such endpoint');
  }
}
