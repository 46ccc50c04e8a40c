import {
  AuthenticationError,
  ConcurrentUpdateError,
  InvalidParameterError,
  InvalidPriceError,
  InvoiceNotExistError,
  MerchantOrderIdExistsError,
  OrderDoesNotExistError,
  OrderNotFoundError,
  OrderNotNewError,
  ParametersMissingError,
  PaymentNotAvailableError,
  RateLimitedError,
  RefundNotPendingError,
  SandboxOnlyError,
  ServiceUnavailableError,
  TooManyInvoicesError,
  UnknownOrderError,
  type AppError,
} from '#shared/domain/errors';
import { MAX_BODY_BYTES, MAX_INVOICES_PER_ORDER } from '#shared/domain/limits';
import { errorResponse, statusOf } from '#shared/http/errors';
import { MalformedJsonError, PayloadTooLargeError } from '#shared/http/request-errors';
import { createdOrderView } from '#shared/schemas/order-views';
import { errorSchema, merchantOrderIdExistsErrorSchema, orderDoesNotExistErrorSchema, orderNotFoundErrorSchema, priceNotValidErrorSchema } from '#shared/schemas/error-responses';
import { type NamedSchema, ref } from '#tools/openapi/components';
import { NEW_ORDER, paymentUrl } from '#tools/openapi/examples';

/** Errors: each case is a real error instance; its example body comes from the error mapper. */

export interface ErrorCase {
  /** Example key, unique within an operation. */
  name: string;
  /** When it happens (Markdown, one sentence). */
  when: string;
  error: AppError;
  /** The body's schema: the generic one unless the contract fixes a special body. */
  schema: NamedSchema;
}

export const errorCase = (name: string, when: string, error: AppError, schema: NamedSchema = errorSchema): ErrorCase => ({
  name,
  when,
  error,
  schema,
});

export const AUTHENTICATION_FAILED = errorCase('AUTHENTICATION_FAILED', 'The `token` header is missing or is not a valid API token.', new AuthenticationError());
export const INVALID_JSON = errorCase('INVALID_JSON', 'The body is not JSON.', new MalformedJsonError());
export const PAYLOAD_TOO_LARGE = errorCase('PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES} bytes.`, new PayloadTooLargeError(MAX_BODY_BYTES));
export const SERVICE_UNAVAILABLE = errorCase('SERVICE_UNAVAILABLE', 'The order store could not be reached; nothing was changed, retry later.', new ServiceUnavailableError());
export const UNKNOWN_FIELD = errorCase(
  'PARAMETERS_INVALID',
  'A field has the wrong type, an unknown value or exceeds its limit; the message names it. Unknown fields are ignored.',
  new InvalidParameterError('title must be string'),
);
export const UNKNOWN_ORDER = errorCase('ORDER_NOT_FOUND', "No such order for this merchant (another merchant's reads the same). Beyond the contract, so the generic body.", new UnknownOrderError());
export const ORDER_ID_MISMATCH = errorCase('PARAMETERS_INVALID', 'order_id differs from the path.', new InvalidParameterError('order_id does not match the order in the path'));
export const ORDER_CONFLICT = errorCase('ORDER_CONFLICT', 'Other writes kept changing the order; nothing was changed by this call, retry.', new ConcurrentUpdateError());
export const TOO_MANY_INVOICES = errorCase(
  'TOO_MANY_INVOICES',
  `The order has had ${MAX_INVOICES_PER_ORDER} invoices (each takes an address) and the currency has no valid one to show again. Waiting does not help: no Retry-After.`,
  new TooManyInvoicesError(MAX_INVOICES_PER_ORDER),
);
/** Every operation's own 429: the caller's quota (docs/operator-guide.md "Rate limits"), with Retry-After. */
export const rateLimited = (caller: 'merchant' | 'public') =>
  errorCase(
    'API_LIMIT_EXCEEDED',
    caller === 'merchant'
      ? "The merchant's request quota (all merchant routes together) is used up: retry after `Retry-After` seconds."
      : "This client address's request quota on the payment page's routes is used up: retry after `Retry-After` seconds.",
    new RateLimitedError(2),
  );
/** A list's page refused: `parameters` names the query parameters of that list (a cursor that is not one the API gave, for one). */
export const badPage = (parameters: string) => errorCase('PARAMETERS_INVALID', `${parameters} is not valid.`, new InvalidParameterError('cursor is not one this API gave'));
export const SANDBOX_ONLY = errorCase('SANDBOX_ONLY', 'The merchant is not a sandbox merchant.', new SandboxOnlyError());
export const paymentNotAvailable = (when: string) => errorCase('PAYMENT_NOT_AVAILABLE', when, new PaymentNotAvailableError('WECHAT is not enabled for this merchant'));

export const CREATE_ORDER_ERRORS: readonly ErrorCase[] = [
  errorCase(
    'PRICE_NOT_VALID',
    "price_amount is not a number above 0 and below 10^12 with at most the currency's decimals. Contract body, no `error_code`.",
    new InvalidPriceError(),
    priceNotValidErrorSchema,
  ),
  errorCase('PARAMETERS_MISSING', 'price_amount is missing.', new ParametersMissingError('price_amount')),
  UNKNOWN_FIELD,
  INVALID_JSON,
  errorCase(
    'ORDER_MERCHANTID_EXIST',
    'This merchant already has an order with this merchant_order_id: the answer carries that order and its payment_url.',
    new MerchantOrderIdExistsError({ order: createdOrderView(NEW_ORDER), payment_url: paymentUrl(NEW_ORDER) }),
    merchantOrderIdExistsErrorSchema,
  ),
  errorCase('ORDER_CONFLICT', 'Another request with the same merchant_order_id was being written at that moment; nothing was stored by this call, retry.', new ConcurrentUpdateError()),
  paymentNotAvailable('pay_currency is a gateway not enabled for the merchant, a MugglePay code this service cannot take yet, or no rate is available.'),
  AUTHENTICATION_FAILED,
  PAYLOAD_TOO_LARGE,
  SERVICE_UNAVAILABLE,
];

export const GET_ORDER_ERRORS: readonly ErrorCase[] = [
  AUTHENTICATION_FAILED,
  errorCase(
    'ORDER_NOT_FOUND',
    'No such order for this merchant (another merchant\'s order reads the same). Contract quirk: the key is spelt `eror` and `status` is the string "404".',
    new OrderNotFoundError(),
    orderNotFoundErrorSchema,
  ),
  SERVICE_UNAVAILABLE,
];

export const CHECKOUT_ORDER_ERRORS: readonly ErrorCase[] = [
  errorCase('PARAMETERS_MISSING', 'pay_currency is missing.', new ParametersMissingError('pay_currency')),
  errorCase('PARAMETERS_INVALID', 'pay_currency is not one of the listed values, or order_id differs from the path.', new InvalidParameterError('order_id does not match the order in the path')),
  INVALID_JSON,
  errorCase('ORDER_NOT_NEW', 'The order is no longer NEW, so its payment currency cannot change.', new OrderNotNewError()),
  paymentNotAvailable('The currency is a gateway not enabled for the merchant, a MugglePay code this service cannot take yet, or no rate or address is available.'),
  AUTHENTICATION_FAILED,
  errorCase(
    'ORDER_DOES_NOT_EXIST',
    'No such order for this merchant. Contract quirk: HTTP 422 (not 404) with `{error, status: 422}` and no `error_code`.',
    new OrderDoesNotExistError(),
    orderDoesNotExistErrorSchema,
  ),
  errorCase('ORDER_CONFLICT', 'Concurrent checkouts of the order kept winning; exactly one invoice is current, retry to switch.', new ConcurrentUpdateError()),
  TOO_MANY_INVOICES,
  PAYLOAD_TOO_LARGE,
  SERVICE_UNAVAILABLE,
];

export const GET_ORDERS_ERRORS: readonly ErrorCase[] = [
  errorCase(
    'PARAMETERS_INVALID',
    'status, limit or offset is out of range or repeated; the message names the parameter. With `status`, offsets beyond 1000 are refused; without, an offset beyond 1000 is refused only while more than 1000 of the newest orders are not numbered yet (retry in a few minutes).',
    new InvalidParameterError('limit must be <= 50'),
  ),
  AUTHENTICATION_FAILED,
  SERVICE_UNAVAILABLE,
];

/** Cancel, refund and resolve: one state check each, the rest shared. */
export const orderActionErrors = (refused: ErrorCase): readonly ErrorCase[] => [
  refused,
  ORDER_ID_MISMATCH,
  INVALID_JSON,
  AUTHENTICATION_FAILED,
  UNKNOWN_ORDER,
  ORDER_CONFLICT,
  PAYLOAD_TOO_LARGE,
  SERVICE_UNAVAILABLE,
];

export const SANDBOX_PAY_ERRORS: readonly ErrorCase[] = [
  errorCase('INVOICE_NOT_EXIST', 'The order has not been checked out.', new InvoiceNotExistError()),
  errorCase('PARAMETERS_INVALID', "A field is out of range or unknown, or amount has more decimals than the invoice's currency.", new InvalidParameterError('amount has more decimals than BTC has')),
  INVALID_JSON,
  AUTHENTICATION_FAILED,
  SANDBOX_ONLY,
  UNKNOWN_ORDER,
  ORDER_CONFLICT,
  PAYLOAD_TOO_LARGE,
  SERVICE_UNAVAILABLE,
];

export const SANDBOX_COMPLETE_REFUND_ERRORS: readonly ErrorCase[] = [
  errorCase('ORDER_REFUND_FAILED', 'The order has no refund pending.', new RefundNotPendingError()),
  errorCase('PARAMETERS_INVALID', 'txid is malformed or a field is unknown.', new InvalidParameterError('Unknown parameter: amount')),
  INVALID_JSON,
  AUTHENTICATION_FAILED,
  SANDBOX_ONLY,
  UNKNOWN_ORDER,
  ORDER_CONFLICT,
  PAYLOAD_TOO_LARGE,
  SERVICE_UNAVAILABLE,
];

/** The body the service answers for an error, exactly as the error mapper writes it. */
export function errorBody(error: AppError): unknown {
  return JSON.parse(String(errorResponse(error).body));
}

/** One response per HTTP status; several bodies under one status become a `oneOf`. */
export function errorResponses(cases: readonly ErrorCase[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCase[]>();
  for (const item of cases) {
    const status = statusOf(item.error);
    if (status === undefined) throw new Error(`${item.error.code} has no HTTP status (shared/http/errors.ts)`);
    byStatus.set(status, [...(byStatus.get(status) ?? []), item]);
  }
  const responses: Record<string, unknown> = {};
  for (const [status, items] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schemas = [...new Set(items.map((item) => item.schema))].map(ref);
    const retryAfter = items.some((item) => item.error instanceof RateLimitedError);
    responses[String(status)] = {
      description: items.map((item) => `- \`${item.name}\`: ${item.when}`).join('\n'),
      ...(retryAfter ? { headers: { 'Retry-After': { description: 'With API_LIMIT_EXCEEDED: whole seconds until a request fits the quota again.', schema: { type: 'integer', minimum: 1 } } } } : {}),
      content: {
        'application/json': {
          schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas },
          examples: Object.fromEntries(items.map((item) => [item.name, { summary: item.error.message, value: errorBody(item.error) }])),
        },
      },
    };
  }
  return responses;
}
