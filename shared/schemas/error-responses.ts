/** Error bodies: the contract's quirky ones and every other error's `{status, error, error_code}`. */
import * as domainErrors from '#shared/domain/errors';
import * as subscriptionErrors from '#shared/domain/subscription-errors';
import { strictObject } from '#shared/schemas/order-responses';

/** Get Order's not-found body: the key is misspelt `eror` and `status` is a string (contract quirk). */
export const orderNotFoundErrorSchema = strictObject('OrderNotFoundError', 'Get Order: no such order (contract quirk).', {
  eror: { type: 'string', const: 'Order not found' },
  status: { type: 'string', const: '404' },
});

/** Checkout's unknown order: HTTP 422 with the contract's `{error, status}` (no error_code). */
export const orderDoesNotExistErrorSchema = strictObject('OrderDoesNotExistError', 'Checkout Order: no such order (contract quirk).', {
  error: { type: 'string', const: 'Order does not exist' },
  status: { type: 'integer', const: 422 },
});

/** The contract's invalid-price body (no error_code). */
export const priceNotValidErrorSchema = strictObject('PriceNotValidError', 'Create Order: invalid price_amount (contract body).', {
  status: { type: 'integer', const: 400 },
  error: { type: 'string', const: 'Price is not valid' },
});

type AppErrorClass = new () => domainErrors.AppError;

const isAppErrorClass = (value: unknown): value is AppErrorClass => typeof value === 'function' && value.prototype instanceof domainErrors.AppError;

/**
 * The codes of the HTTP layer's own errors (shared/http/request-errors.ts), for a request
 * refused before any service sees it. Listed here because this layer cannot read that one;
 * each of those classes declares its code with `satisfies RequestErrorCode`, so none can answer
 * a code this list leaves out.
 */
export const REQUEST_ERROR_CODES = ['BAD_REQUEST', 'EXPECTATION_FAILED', 'HEADERS_TOO_LARGE', 'INVALID_JSON', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'URI_TOO_LONG'] as const;
export type RequestErrorCode = (typeof REQUEST_ERROR_CODES)[number];

/**
 * Every `error_code` an error body may carry, read off the error classes of
 * shared/domain/errors.ts and shared/domain/subscription-errors.ts (recurring billing's, on the
 * same merchant API) so a new or renamed code cannot leave the schema behind (each class is
 * built without arguments only to read its code), and the HTTP layer's own codes above.
 * INTERNAL_ERROR is the bare 500 of shared/http/errors.ts.
 */
export const ERROR_CODES: readonly string[] = [
  ...new Set([...([...Object.values(domainErrors), ...Object.values(subscriptionErrors)] as unknown[]).filter(isAppErrorClass).map((ErrorClass) => new ErrorClass().code), ...REQUEST_ERROR_CODES]),
  'INTERNAL_ERROR',
].sort();

/** Every other error: `{status, error, error_code}` with `status` equal to the HTTP status. */
export const errorSchema = strictObject('Error', 'Error body; status repeats the HTTP status.', {
  status: { type: 'integer', minimum: 400, maximum: 599 },
  error: { type: 'string', minLength: 1, description: 'Human-readable message; names the offending field where there is one.' },
  error_code: { type: 'string', enum: ERROR_CODES, description: 'Machine-readable code, in MugglePay style.' },
});

/** Create Order with a merchant_order_id the merchant used before: the error and the order holding it. */
export const merchantOrderIdExistsErrorSchema = strictObject(
  'MerchantOrderIdExistsError',
  'Create Order: the merchant_order_id is taken. Besides the error, the order holding it and its payment page (MugglePay answers so; WooCommerce and WHMCS read them).',
  {
    status: { type: 'integer', const: 400 },
    error: errorSchema.properties.error,
    error_code: { type: 'string', const: 'ORDER_MERCHANTID_EXIST' },
    order: { $ref: 'CreatedOrder' },
    payment_url: { type: 'string', format: 'uri', description: 'The payment page of the existing order.' },
  },
);
