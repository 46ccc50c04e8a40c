import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import {
  AppError,
  InvalidParameterError,
  InvalidPriceError,
  MerchantOrderIdExistsError,
  OrderDoesNotExistError,
  OrderNotFoundError,
  PaymentNotBookableError,
} from '#shared/domain/errors';
import { asStoreError } from '#shared/store/errors';
import { json } from '#shared/http/responses';
import { logger } from '#shared/core/logger';

/**
 * Maps any error to the contract's bodies. The spec's three errors keep their exact shapes
 * (key order included); every other known error is `{status, error, error_code}`; anything
 * unexpected is a bare 500 whose details go to the log only. A domain refusal without a status
 * gets its answer here: a payment its invoice cannot take, sent by a request (the sandbox), is
 * an invalid parameter (400 PARAMETERS_INVALID).
 */
export function errorResponse(raw: unknown): APIGatewayProxyStructuredResultV2 {
  const stored = asStoreError(raw);
  const error = stored instanceof PaymentNotBookableError ? new InvalidParameterError(stored.message) : stored;
  if (error instanceof OrderNotFoundError) {
    // Spec quirk: misspelt key and a string status.
    return json(404, { eror: error.message, status: '404' });
  }
  if (error instanceof OrderDoesNotExistError) return json(422, { error: error.message, status: 422 });
  if (error instanceof InvalidPriceError) return json(400, { status: 400, error: error.message });
  if (error instanceof MerchantOrderIdExistsError && error.existing) {
    const { order, payment_url } = error.existing;
    return json(400, { status: 400, error: error.message, error_code: error.code, order, payment_url });
  }
  if (error instanceof AppError) {
    if (error.statusCode >= 500) logger.warn('request failed', { error: error.code, cause: String(error.cause) });
    const response = json(error.statusCode, { status: error.statusCode, error: error.message, error_code: error.code });
    const { retryAfterSeconds } = error;
    return retryAfterSeconds === undefined ? response : { ...response, headers: { ...response.headers, 'retry-after': String(retryAfterSeconds) } };
  }
  logger.error('unexpected error', error as Error);
  return json(500, { status: 500, error: 'Internal server error', error_code: 'INTERNAL_ERROR' });
}
