import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type * as domainErrors from '#shared/domain/errors';
import { AppError, InvalidParameterError, InvalidPriceError, MerchantOrderIdExistsError, OrderDoesNotExistError, OrderNotFoundError, PaymentNotBookableError } from '#shared/domain/errors';
import type * as portalErrors from '#shared/domain/portal-errors';
import type * as statusMachine from '#shared/domain/status-machine';
import type * as subscriptionErrors from '#shared/domain/subscription-errors';
import type * as requestErrors from '#shared/http/request-errors';
import { asStoreError } from '#shared/store/errors';
import { json } from '#shared/http/responses';
import { logger } from '#shared/core/logger';

/**
 * The literal `code` of every error class a module exports. AppError itself (whose code is any
 * string) and whatever else the module exports count for none.
 */
type CodesOf<Module> = {
  [Name in keyof Module]: Module[Name] extends abstract new (...details: never[]) => { readonly code: infer Code extends string } ? (string extends Code ? never : Code) : never;
}[keyof Module];

/** Every code an error of the service answers with: the domain's, the portal's, the status machine's and the HTTP layer's own. */
export type ErrorCode = CodesOf<typeof domainErrors> | CodesOf<typeof portalErrors> | CodesOf<typeof subscriptionErrors> | CodesOf<typeof statusMachine> | CodesOf<typeof requestErrors>;

/**
 * The HTTP status each error code is answered with: the one place statuses of errors are
 * written. It is a record of every {@link ErrorCode}, so an error class added with a new code
 * does not compile until its status is here. Two classes that share a code (Get Order's
 * ORDER_NOT_FOUND and the other endpoints') share its status.
 */
const STATUS: Readonly<Record<ErrorCode, number>> = {
  // The merchant API's refusals of what was asked (the contract's 400s and their kin).
  PARAMETERS_MISSING: 400,
  PARAMETERS_INVALID: 400,
  PAY_PRICE_ERROR: 400,
  ORDER_MERCHANTID_EXIST: 400,
  ORDER_NOT_NEW: 400,
  ORDER_CANCELED_FAIILED: 400,
  ORDER_REFUND_FAILED: 400,
  ORDER_RESOLVE_FAILED: 400,
  ORDER_STATUS_INVALID: 400,
  PAYMENT_NOT_AVAILABLE: 400,
  INVOICE_NOT_EXIST: 400,
  NO_CALLBACK: 400,
  REFUND_ADDRESS_INVALID: 400,
  REFUND_TX_INVALID: 400,
  REFUND_CHECK_UNAVAILABLE: 400,
  AUTHENTICATION_FAILED: 401,
  SANDBOX_ONLY: 403,
  ORDER_NOT_FOUND: 404,
  REFUND_NOT_FOUND: 404,
  REFUND_LINK_INVALID: 404,
  LINK_NOT_FOUND: 404,
  // Checkout's unknown order: the contract answers 422, not 404.
  ORDER_NOT_VALID: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  // What another request holds or changed, or a state that may pass: the client may ask again.
  ORDER_CONFLICT: 409,
  REFUND_TX_NOT_FINAL: 409,
  CALLBACK_IN_PROGRESS: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  LINK_DISABLED: 409,
  LINK_EXPIRED: 409,
  LINK_SOLD_OUT: 409,
  TOO_MANY_INVOICES: 429,
  API_LIMIT_EXCEEDED: 429,
  SERVICE_UNAVAILABLE: 503,
  // The portal's (shared/domain/portal-errors.ts).
  SESSION_REQUIRED: 401,
  SIGN_IN_FAILED: 401,
  CSRF_REFUSED: 403,
  ORIGIN_REQUIRED: 403,
  ROLE_REFUSED: 403,
  INVITE_UNUSABLE: 400,
  INVALID_INPUT: 400,
  TEAM_CHANGE_REFUSED: 409,
  // Recurring billing's (shared/domain/subscription-errors.ts).
  PLAN_NOT_FOUND: 404,
  SUBSCRIPTION_NOT_FOUND: 404,
  PLAN_ARCHIVED: 409,
  PLAN_CONFLICT: 409,
  SUBSCRIPTION_CANCELED: 409,
  SUBSCRIPTION_PAYMENT_PENDING: 409,
  // A request refused before any service sees it (shared/http/request-errors.ts); the portal's
  // uniform not-found shares NOT_FOUND.
  BAD_REQUEST: 400,
  INVALID_JSON: 400,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  URI_TOO_LONG: 414,
  EXPECTATION_FAILED: 417,
  HEADERS_TOO_LARGE: 431,
};

/**
 * The HTTP status an error is answered with, or undefined for an error whose code has none (an
 * AppError of a module the table is not typed by), which is answered as unexpected.
 */
export function statusOf(error: AppError): number | undefined {
  return Object.hasOwn(STATUS, error.code) ? STATUS[error.code as ErrorCode] : undefined;
}

/** The bare 500 of an error nobody expected: its details go to the log only. */
function unexpected(reason: string, error: unknown): APIGatewayProxyStructuredResultV2 {
  logger.error(reason, error as Error);
  return json(500, { status: 500, error: 'Internal server error', error_code: 'INTERNAL_ERROR' });
}

/**
 * Maps any error to the contract's bodies. The spec's three errors keep their exact shapes
 * (key order included); every other known error is `{status, error, error_code}`; anything
 * unexpected is a bare 500 whose details go to the log only. A domain refusal that is no error
 * of a request gets its answer here: a payment its invoice cannot take, sent by a request (the
 * sandbox), is an invalid parameter (400 PARAMETERS_INVALID).
 */
export function errorResponse(raw: unknown): APIGatewayProxyStructuredResultV2 {
  const stored = asStoreError(raw);
  const error = stored instanceof PaymentNotBookableError ? new InvalidParameterError(stored.message) : stored;
  if (!(error instanceof AppError)) return unexpected('unexpected error', error);
  const status = statusOf(error);
  if (status === undefined) return unexpected('error without an HTTP status', error);
  // Spec quirk: misspelt key and a string status.
  if (error instanceof OrderNotFoundError) return json(status, { eror: error.message, status: String(status) });
  if (error instanceof OrderDoesNotExistError) return json(status, { error: error.message, status });
  if (error instanceof InvalidPriceError) return json(status, { status, error: error.message });
  if (error instanceof MerchantOrderIdExistsError && error.existing) {
    const { order, payment_url } = error.existing;
    return json(status, { status, error: error.message, error_code: error.code, order, payment_url });
  }
  if (status >= 500) logger.warn('request failed', { error: error.code, cause: String(error.cause) });
  const response = json(status, { status, error: error.message, error_code: error.code });
  const { retryAfterSeconds } = error;
  return retryAfterSeconds === undefined ? response : { ...response, headers: { ...response.headers, 'retry-after': String(retryAfterSeconds) } };
}
