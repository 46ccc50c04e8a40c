/**
 * One error model for the service. Each case carries the MugglePay-style `error_code` of the
 * contract, its message and whatever else its answer's body needs, but no HTTP status: the HTTP
 * layer answers each code with its status from one table (shared/http/errors.ts), which is typed
 * by the codes of these classes (and of portal-errors.ts and status-machine.ts), so a case added
 * here without a status there does not compile. The errors of a request no service sees (bad
 * JSON, a body or header too large, an unknown route) are the HTTP layer's own
 * (shared/http/request-errors.ts). Anything that is not an {@link AppError} is unexpected and
 * becomes a bare 500 (details in the log only), except {@link PaymentNotBookableError}, which
 * the HTTP layer maps itself.
 */
export abstract class AppError extends Error {
  /**
   * The contract's `error_code`. Each case declares it as a literal (`readonly code = 'CODE'`),
   * so the HTTP layer's table of statuses can be keyed by every code there is.
   */
  abstract readonly code: string;
  /** Set on a refusal that passes with time (a quota, a held key, the store failing): the whole seconds until a retry can go through. */
  declare readonly retryAfterSeconds?: number;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Get Order's not-found, answered with the contract's `{eror, status: "404"}` quirk. */
export class OrderNotFoundError extends AppError {
  readonly code = 'ORDER_NOT_FOUND';
  constructor() {
    super('Order not found');
  }
}

/** Checkout's not-found: the contract answers HTTP 422 `{error, status: 422}`. */
export class OrderDoesNotExistError extends AppError {
  readonly code = 'ORDER_NOT_VALID';
  constructor() {
    super('Order does not exist');
  }
}

/** The contract's invalid-price body: `{status: 400, error: "Price is not valid"}`. */
export class InvalidPriceError extends AppError {
  readonly code = 'PAY_PRICE_ERROR';
  constructor(detail?: string) {
    super('Price is not valid', { cause: detail });
  }
}

export class AuthenticationError extends AppError {
  readonly code = 'AUTHENTICATION_FAILED';
  constructor(message = 'Authentication Token is not set or expired.') {
    super(message);
  }
}

export class ParametersMissingError extends AppError {
  readonly code = 'PARAMETERS_MISSING';
  constructor(field: string) {
    super(`Missing parameter: ${field}`);
  }
}

export class InvalidParameterError extends AppError {
  readonly code = 'PARAMETERS_INVALID';
  constructor(message: string) {
    super(message);
  }
}

/**
 * A payment report its invoice can never take (services/payment-reports.ts): an amount finer
 * than the invoice's currency, a simulated amount over its bound. Not an AppError, as it is no
 * refusal of a request in itself: a watcher keeps such a payment as unmatched
 * (watchers/booking.ts), and the HTTP layer answers it as an invalid parameter
 * (shared/http/errors.ts) where a request sent it (the sandbox).
 */
export class PaymentNotBookableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PaymentNotBookableError';
  }
}

/** What a repeated merchant_order_id is answered with besides the error: the order holding it. */
export interface ExistingOrder {
  /** The order as Create Order answers it. */
  order: unknown;
  payment_url: string;
}

export class MerchantOrderIdExistsError extends AppError {
  readonly code = 'ORDER_MERCHANTID_EXIST';
  /**
   * `existing`: the order already holding the reference. Its answer carries it, as
   * MugglePay's does: WooCommerce sends the buyer to its `payment_url`, WHMCS reads
   * `order.order_id` and `order.status` from it on every invoice view.
   */
  constructor(readonly existing?: ExistingOrder) {
    super('Order with same merchant_order_id exists.');
  }
}

export class OrderNotNewError extends AppError {
  readonly code = 'ORDER_NOT_NEW';
  constructor() {
    super('The current order is not new, and payment method cannot be switched.');
  }
}

/** Other writes kept moving the order while this one retried; the client may retry. */
export class ConcurrentUpdateError extends AppError {
  readonly code = 'ORDER_CONFLICT';
  constructor() {
    super('The order was changed by another request, please retry.');
  }
}

/** The order has had its bounded number of invoices; waiting does not help (no Retry-After). */
export class TooManyInvoicesError extends AppError {
  readonly code = 'TOO_MANY_INVOICES';
  constructor(limit: number) {
    super(`This order has had ${limit} invoices, the most one order may have: pay one of its current invoices or ask the merchant for a new order.`);
  }
}

/**
 * A client's request quota is used up (a merchant's, or an anonymous client's on the payment
 * page's routes): answered 429 with `Retry-After`, the whole seconds until a request fits again.
 */
export class RateLimitedError extends AppError {
  readonly code = 'API_LIMIT_EXCEEDED';
  constructor(override readonly retryAfterSeconds: number) {
    super(`Too many requests from this client, retry after ${retryAfterSeconds} s.`);
  }
}

export class PaymentNotAvailableError extends AppError {
  readonly code = 'PAYMENT_NOT_AVAILABLE';
  constructor(message = 'The payment method is not available, please retry later.', cause?: unknown) {
    super(message, { cause });
  }
}

/** The store could not be reached; the client may retry (never a half-written change). */
export class ServiceUnavailableError extends AppError {
  readonly code = 'SERVICE_UNAVAILABLE';
  /** Answered as Retry-After: the store's throttling and failures pass within about a second. */
  override readonly retryAfterSeconds = 1;
  constructor(cause?: unknown) {
    super('The service is temporarily unavailable, please retry.', { cause });
  }
}

/** An order that does not exist (or is another merchant's), on the endpoints beyond the contract. */
export class UnknownOrderError extends AppError {
  readonly code = 'ORDER_NOT_FOUND';
  constructor() {
    super('Order not found');
  }
}

export class CancelFailedError extends AppError {
  // MugglePay's code, misspelling included, so existing integrations match on it.
  readonly code = 'ORDER_CANCELED_FAIILED';
  constructor() {
    super('Only a NEW order can be canceled.');
  }
}

export class RefundFailedError extends AppError {
  readonly code = 'ORDER_REFUND_FAILED';
  /** Without a message: the order is in no status a refund can be asked in. */
  constructor(message = 'Only a PAID or UNRESOLVED order can be refunded.') {
    super(message);
  }
}

/** A refund of this order, or of another merchant's order (answered alike), or none at all. */
export class RefundNotFoundError extends AppError {
  readonly code = 'REFUND_NOT_FOUND';
  constructor() {
    super('Refund not found');
  }
}

/** A refund link that never was, was replaced by a new one, or was used (an address is set). */
export class RefundLinkInvalidError extends AppError {
  readonly code = 'REFUND_LINK_INVALID';
  constructor() {
    super('This refund link is not valid, or it was used already. Ask the merchant for a new one.');
  }
}

/** An address that cannot receive the refund: the reason names what is wrong (network, checksum, ...). */
export class RefundAddressError extends AppError {
  readonly code = 'REFUND_ADDRESS_INVALID';
  constructor(reason: string) {
    super(reason);
  }
}

/** A reported refund transaction that does not pay the refund. */
export class RefundTransactionError extends AppError {
  readonly code = 'REFUND_TX_INVALID';
  constructor(reason: string) {
    super(reason);
  }
}

/** A reported refund transaction that has not reached its confirmations yet: report it again later. */
export class RefundTransactionNotFinalError extends AppError {
  readonly code = 'REFUND_TX_NOT_FINAL';
  constructor() {
    super('The transaction is not final yet: report it again once it has its confirmations.');
  }
}

/** A live merchant's reported transaction on a network this deployment reads no source of (fail closed: never taken unchecked). */
export class RefundCheckUnavailableError extends AppError {
  readonly code = 'REFUND_CHECK_UNAVAILABLE';
  constructor(network: string) {
    super(`Transactions on ${network} cannot be checked: this deployment reads no ${network} source.`);
  }
}

export class ResolveFailedError extends AppError {
  readonly code = 'ORDER_RESOLVE_FAILED';
  constructor() {
    super('Only an UNRESOLVED order can be resolved.');
  }
}

export class InvoiceNotExistError extends AppError {
  readonly code = 'INVOICE_NOT_EXIST';
  constructor() {
    super('The order has no invoice yet: check it out first.');
  }
}

export class SandboxOnlyError extends AppError {
  readonly code = 'SANDBOX_ONLY';
  constructor() {
    super('Only sandbox merchants can simulate payments.');
  }
}

export class RefundNotPendingError extends AppError {
  readonly code = 'ORDER_REFUND_FAILED';
  constructor() {
    super('The order has no refund pending.');
  }
}

export class CallbackInProgressError extends AppError {
  readonly code = 'CALLBACK_IN_PROGRESS';
  constructor() {
    super('The callback is being delivered right now; ask again in a minute.');
  }
}

export class NoCallbackError extends AppError {
  readonly code = 'NO_CALLBACK';
  constructor() {
    super('The order has no callback to deliver (no status change yet, or no callback_url).');
  }
}

export class IdempotencyKeyReusedError extends AppError {
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
  constructor() {
    super('This Idempotency-Key was used with a different request.');
  }
}

/** Another request holds the key: `retryAfterSeconds` until its lease runs out (then a retry may take it over). */
export class IdempotencyInProgressError extends AppError {
  readonly code = 'IDEMPOTENCY_IN_PROGRESS';
  constructor(override readonly retryAfterSeconds = 1) {
    super('A request with this Idempotency-Key is still being processed; retry shortly.');
  }
}

/** A payment link that does not exist (or is another merchant's): answered the same way. */
export class LinkNotFoundError extends AppError {
  readonly code = 'LINK_NOT_FOUND';
  constructor() {
    super('Payment link not found');
  }
}

/** A buyer's order on a link the merchant disabled. */
export class LinkDisabledError extends AppError {
  readonly code = 'LINK_DISABLED';
  constructor() {
    super('This payment link has been disabled by the merchant.');
  }
}

/** A buyer's order on a link past its expiry. */
export class LinkExpiredError extends AppError {
  readonly code = 'LINK_EXPIRED';
  constructor() {
    super('This payment link has expired.');
  }
}

/** A buyer's order on a link whose every unit is paid for or held by a checkout in progress. */
export class LinkSoldOutError extends AppError {
  readonly code = 'LINK_SOLD_OUT';
  constructor() {
    super('This payment link is sold out: every unit is paid for or held by a checkout in progress.');
  }
}
