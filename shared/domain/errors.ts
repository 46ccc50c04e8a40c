/**
 * One error model for the service. Each case carries the HTTP status and the MugglePay-style
 * `error_code`; the HTTP error middleware turns them into the contract's bodies. Anything that
 * is not an {@link AppError} is unexpected and becomes a bare 500 (details in the log only),
 * but the domain refusals that carry no status ({@link PaymentNotBookableError}), which the
 * HTTP layer maps itself.
 */
export class AppError extends Error {
  /** Set on a refusal that passes with time (a quota, a held key, the store failing): the whole seconds until a retry can go through. */
  declare readonly retryAfterSeconds?: number;
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Get Order's not-found, answered with the contract's `{eror, status: "404"}` quirk. */
export class OrderNotFoundError extends AppError {
  constructor() {
    super(404, 'ORDER_NOT_FOUND', 'Order not found');
  }
}

/** Checkout's not-found: the contract answers HTTP 422 `{error, status: 422}`. */
export class OrderDoesNotExistError extends AppError {
  constructor() {
    super(422, 'ORDER_NOT_VALID', 'Order does not exist');
  }
}

/** The contract's invalid-price body: `{status: 400, error: "Price is not valid"}`. */
export class InvalidPriceError extends AppError {
  constructor(detail?: string) {
    super(400, 'PAY_PRICE_ERROR', 'Price is not valid', { cause: detail });
  }
}

export class AuthenticationError extends AppError {
  constructor(message = 'Authentication Token is not set or expired.') {
    super(401, 'AUTHENTICATION_FAILED', message);
  }
}

export class ParametersMissingError extends AppError {
  constructor(field: string) {
    super(400, 'PARAMETERS_MISSING', `Missing parameter: ${field}`);
  }
}

export class InvalidParameterError extends AppError {
  constructor(message: string) {
    super(400, 'PARAMETERS_INVALID', message);
  }
}

/**
 * A payment report its invoice can never take (services/payment-reports.ts): an amount finer
 * than the invoice's currency, a simulated amount over its bound. A domain refusal with no HTTP
 * status: a watcher keeps such a payment as unmatched (watchers/booking.ts), and the HTTP layer
 * answers it as an invalid parameter (shared/http/errors.ts) where a request sent it (the sandbox).
 */
export class PaymentNotBookableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymentNotBookableError';
  }
}

export class MalformedJsonError extends AppError {
  constructor() {
    super(400, 'INVALID_JSON', 'Request body is not valid JSON');
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limit: number) {
    super(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limit} bytes`);
  }
}

/**
 * A request no gateway would pass on: no Host, a path that is not percent-encoded text, a
 * request target that is not a path. Answered by the HTTP adapter and the page's file server.
 */
export class MalformedRequestError extends AppError {
  constructor(detail: string) {
    super(400, 'BAD_REQUEST', `Malformed HTTP request: ${detail}`);
  }
}

/** An `Expect` header asking for something the service does not do (anything but 100-continue). */
export class ExpectationFailedError extends AppError {
  constructor() {
    super(417, 'EXPECTATION_FAILED', 'Only "Expect: 100-continue" is supported');
  }
}

/** The request line is longer than the gateway reads (answered by the HTTP adapter). */
export class UriTooLongError extends AppError {
  constructor(limit: number) {
    super(414, 'URI_TOO_LONG', `Request path and query are longer than ${limit} bytes`);
  }
}

/** The request line and headers together are larger than the gateway reads. */
export class HeadersTooLargeError extends AppError {
  constructor(limit: number) {
    super(431, 'HEADERS_TOO_LARGE', `Request line and headers are larger than ${limit} bytes`);
  }
}

/** What a repeated merchant_order_id is answered with besides the error: the order holding it. */
export interface ExistingOrder {
  /** The order as Create Order answers it. */
  order: unknown;
  payment_url: string;
}

export class MerchantOrderIdExistsError extends AppError {
  /**
   * `existing`: the order already holding the reference. Its answer carries it, as
   * MugglePay's does: WooCommerce sends the buyer to its `payment_url`, WHMCS reads
   * `order.order_id` and `order.status` from it on every invoice view.
   */
  constructor(readonly existing?: ExistingOrder) {
    super(400, 'ORDER_MERCHANTID_EXIST', 'Order with same merchant_order_id exists.');
  }
}

export class OrderNotNewError extends AppError {
  constructor() {
    super(400, 'ORDER_NOT_NEW', 'The current order is not new, and payment method cannot be switched.');
  }
}

/** Other writes kept moving the order while this one retried; the client may retry. */
export class ConcurrentUpdateError extends AppError {
  constructor() {
    super(409, 'ORDER_CONFLICT', 'The order was changed by another request, please retry.');
  }
}

/** The order has had its bounded number of invoices; waiting does not help (no Retry-After). */
export class TooManyInvoicesError extends AppError {
  constructor(limit: number) {
    super(
      429,
      'TOO_MANY_INVOICES',
      `This order has had ${limit} invoices, the most one order may have: pay one of its current invoices or ask the merchant for a new order.`,
    );
  }
}

/**
 * A client's request quota is used up (a merchant's, or an anonymous client's on the payment
 * page's routes): answered 429 with `Retry-After`, the whole seconds until a request fits again.
 */
export class RateLimitedError extends AppError {
  constructor(override readonly retryAfterSeconds: number) {
    super(429, 'API_LIMIT_EXCEEDED', `Too many requests from this client, retry after ${retryAfterSeconds} s.`);
  }
}

export class PaymentNotAvailableError extends AppError {
  constructor(message = 'The payment method is not available, please retry later.', cause?: unknown) {
    super(400, 'PAYMENT_NOT_AVAILABLE', message, { cause });
  }
}

export class RouteNotFoundError extends AppError {
  constructor() {
    super(404, 'NOT_FOUND', 'No such endpoint');
  }
}

/** The store could not be reached; the client may retry (never a half-written change). */
export class ServiceUnavailableError extends AppError {
  /** Answered as Retry-After: the store's throttling and failures pass within about a second. */
  override readonly retryAfterSeconds = 1;
  constructor(cause?: unknown) {
    super(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable, please retry.', { cause });
  }
}

/** An order that does not exist (or is another merchant's), on the endpoints beyond the contract. */
export class UnknownOrderError extends AppError {
  constructor() {
    super(404, 'ORDER_NOT_FOUND', 'Order not found');
  }
}

export class CancelFailedError extends AppError {
  constructor() {
    // MugglePay's code, misspelling included, so existing integrations match on it.
    super(400, 'ORDER_CANCELED_FAIILED', 'Only a NEW order can be canceled.');
  }
}

export class RefundFailedError extends AppError {
  /** Without a message: the order is in no status a refund can be asked in. */
  constructor(message = 'Only a PAID or UNRESOLVED order can be refunded.') {
    super(400, 'ORDER_REFUND_FAILED', message);
  }
}

/** A refund of this order, or of another merchant's order (answered alike), or none at all. */
export class RefundNotFoundError extends AppError {
  constructor() {
    super(404, 'REFUND_NOT_FOUND', 'Refund not found');
  }
}

/** A refund link that never was, was replaced by a new one, or was used (an address is set). */
export class RefundLinkInvalidError extends AppError {
  constructor() {
    super(404, 'REFUND_LINK_INVALID', 'This refund link is not valid, or it was used already. Ask the merchant for a new one.');
  }
}

/** An address that cannot receive the refund: the reason names what is wrong (network, checksum, ...). */
export class RefundAddressError extends AppError {
  constructor(reason: string) {
    super(400, 'REFUND_ADDRESS_INVALID', reason);
  }
}

/** A reported refund transaction that does not pay the refund. */
export class RefundTransactionError extends AppError {
  constructor(reason: string) {
    super(400, 'REFUND_TX_INVALID', reason);
  }
}

/** A reported refund transaction that has not reached its confirmations yet: report it again later. */
export class RefundTransactionNotFinalError extends AppError {
  constructor() {
    super(409, 'REFUND_TX_NOT_FINAL', 'The transaction is not final yet: report it again once it has its confirmations.');
  }
}

/** A live merchant's reported transaction on a network this deployment reads no source of (fail closed: never taken unchecked). */
export class RefundCheckUnavailableError extends AppError {
  constructor(network: string) {
    super(400, 'REFUND_CHECK_UNAVAILABLE', `Transactions on ${network} cannot be checked: this deployment reads no ${network} source.`);
  }
}

export class ResolveFailedError extends AppError {
  constructor() {
    super(400, 'ORDER_RESOLVE_FAILED', 'Only an UNRESOLVED order can be resolved.');
  }
}

export class InvoiceNotExistError extends AppError {
  constructor() {
    super(400, 'INVOICE_NOT_EXIST', 'The order has no invoice yet: check it out first.');
  }
}

export class SandboxOnlyError extends AppError {
  constructor() {
    super(403, 'SANDBOX_ONLY', 'Only sandbox merchants can simulate payments.');
  }
}

export class RefundNotPendingError extends AppError {
  constructor() {
    super(400, 'ORDER_REFUND_FAILED', 'The order has no refund pending.');
  }
}

export class CallbackInProgressError extends AppError {
  constructor() {
    super(409, 'CALLBACK_IN_PROGRESS', 'The callback is being delivered right now; ask again in a minute.');
  }
}

export class NoCallbackError extends AppError {
  constructor() {
    super(400, 'NO_CALLBACK', 'The order has no callback to deliver (no status change yet, or no callback_url).');
  }
}

export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with a different request.');
  }
}

/** Another request holds the key: `retryAfterSeconds` until its lease runs out (then a retry may take it over). */
export class IdempotencyInProgressError extends AppError {
  constructor(override readonly retryAfterSeconds = 1) {
    super(409, 'IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }
}

/** A payment link that does not exist (or is another merchant's): answered the same way. */
export class LinkNotFoundError extends AppError {
  constructor() {
    super(404, 'LINK_NOT_FOUND', 'Payment link not found');
  }
}

/** A buyer's order on a link the merchant disabled. */
export class LinkDisabledError extends AppError {
  constructor() {
    super(409, 'LINK_DISABLED', 'This payment link has been disabled by the merchant.');
  }
}

/** A buyer's order on a link past its expiry. */
export class LinkExpiredError extends AppError {
  constructor() {
    super(409, 'LINK_EXPIRED', 'This payment link has expired.');
  }
}

/** A buyer's order on a link whose every unit is paid for or held by a checkout in progress. */
export class LinkSoldOutError extends AppError {
  constructor() {
    super(409, 'LINK_SOLD_OUT', 'This payment link is sold out: every unit is paid for or held by a checkout in progress.');
  }
}
