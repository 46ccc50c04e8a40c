import { PAY_CURRENCIES, PRICE_CURRENCIES, RECEIVE_CURRENCIES } from '#shared/domain/currencies';
import * as domainErrors from '#shared/domain/errors';
import { createOrderBodySchema, listOrdersQuerySchema } from '#shared/schemas/orders';
import type { UnresolvedReason } from '#shared/domain/status-machine';

/**
 * Response schemas (JSON Schema draft 2020-12): the contract's answer bodies, strict enough
 * that a test can hold every real answer against them (`additionalProperties: false`, every
 * field the views always write is required). Properties are listed in the order the views of
 * shared/domain/order.ts write them, so the schemas double as the field-order reference.
 *
 * Named schemas carry an `$id` and refer to each other with a relative `$ref` (`'Order'`), so
 * ajv resolves them once they are all added ({@link RESPONSE_SCHEMAS}) and the OpenAPI builder
 * can turn each `$id` into a component name. Field schemas shared with the request schemas
 * are taken from shared/schemas/orders.ts rather than restated.
 */

const body = createOrderBodySchema.properties;

/** ISO 8601 UTC with milliseconds, as `Date#toISOString` writes it. */
const timestamp = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
} as const;

const epochMillis = { type: 'integer', minimum: 0 } as const;

/** Ids the service issues are UUIDs: random, derived from a reference, or time-ordered (shared/domain/ids.ts). */
const uuid = { type: 'string', format: 'uuid' } as const;

/** A positive JSON number (amounts are exact decimals turned into numbers at the edge). */
const positiveAmount = { type: 'number', exclusiveMinimum: 0 } as const;

/** An order's status; the same list Get Orders filters on. */
const status = listOrdersQuerySchema.properties.status;

/** Fields of the order as stored; each view below picks its own subset. */
const orderProperties = {
  order_id: { ...uuid, description: 'Service-assigned order id; used in `/v1/orders/{order_id}` paths.' },
  user_id: { type: 'integer', description: 'The merchant account that owns the order.' },
  merchant_order_id: {
    type: 'string',
    maxLength: body.merchant_order_id.maxLength,
    description: "The merchant's own reference ('' when none was given; numbers come back as strings).",
  },
  title: { ...body.title, description: "Order title ('' when none was given)." },
  description: { ...body.description, description: "Order details ('' when none were given)." },
  callback_url: { ...body.callback_url, description: `${body.callback_url.description} ('' for none)` },
  cancel_url: { ...body.cancel_url, description: `${body.cancel_url.description} ('' for none)` },
  success_url: { ...body.success_url, description: `${body.success_url.description} ('' for none)` },
  token: { ...body.token, description: "The merchant's callback validation token from Create Order ('' for none); never the API token." },
  email: { type: 'string', maxLength: body.email.maxLength, description: "The buyer's e-mail address from Create Order ('' for none)." },
  price_amount: { ...positiveAmount, description: 'Price set by the merchant, in price_currency.' },
  price_currency: { type: 'string', enum: body.price_currency.enum, description: 'Currency of the price.' },
  pay_amount: {
    ...positiveAmount,
    description: 'Amount to pay in pay_currency: the price until the order is checked out, then the current invoice amount.',
  },
  pay_currency: {
    type: 'string',
    enum: [...new Set([...PRICE_CURRENCIES, ...PAY_CURRENCIES])],
    description: 'price_currency until the order is checked out, then the currency of the current invoice.',
  },
  receive_currency: {
    type: 'string',
    enum: ['', ...RECEIVE_CURRENCIES],
    description: "'' until the order is paid; then the merchant's settlement currency.",
  },
  status: { ...status, description: 'Order status.' },
  created_at: timestamp,
  updated_at: timestamp,
  deleted: { type: 'integer', const: 0, description: 'Deletion flag; 0 for a live order.' },
} as const;

function omit<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Omit<T, K> {
  return Object.fromEntries(Object.entries(source).filter(([key]) => !keys.includes(key as K))) as Omit<T, K>;
}

/** A strict object schema: every listed property is required, nothing else is allowed. */
function strictObject<P extends Record<string, object>>(id: string, description: string, properties: P) {
  return {
    $id: id,
    type: 'object',
    description,
    additionalProperties: false,
    required: Object.keys(properties) as (keyof P & string)[],
    properties,
  } as const;
}

/** Every {@link UnresolvedReason}: `satisfies` refuses a missing or unknown key at compile time. */
const UNRESOLVED_REASONS = Object.keys({ UNDERPAID: 0, OVERPAID: 0, PAID_LATE: 0, PAID_TO_REPLACED_INVOICE: 0 } satisfies Record<UnresolvedReason, 0>);

/** The order of Get Order, Checkout and Get Orders (`orderView`); `unresolved_reason` only once UNRESOLVED. */
export const orderSchema = {
  ...strictObject('Order', 'An order, as Get Order, Checkout Order and Get Orders answer it.', orderProperties),
  properties: {
    ...orderProperties,
    unresolved_reason: {
      type: 'string',
      enum: UNRESOLVED_REASONS,
      description: 'Only on an order that is or was UNRESOLVED: why it needs the merchant\'s attention.',
    },
  },
} as const;

/** The order of Create Order (`createdOrderView`): no `token`, `receive_currency` or `deleted`. */
export const createdOrderSchema = strictObject(
  'CreatedOrder',
  'An order as Create Order answers it: without token, receive_currency and deleted.',
  omit(orderProperties, ['token', 'receive_currency', 'deleted']),
);

const invoiceProperties = {
  invoice_id: { ...uuid, description: 'Invoice id; a new checkout makes a new invoice.' },
  order_id: { ...uuid, description: 'The owning order.' },
  merchant_order_id: orderProperties.merchant_order_id,
  pay_amount: { ...positiveAmount, description: 'Amount to pay in pay_currency (rate locked at checkout).' },
  pay_currency: { type: 'string', enum: PAY_CURRENCIES, description: "Currency chosen for payment (this service's code: ETH_ERC20 is answered as ETH)." },
  receive_amount: { type: 'number', minimum: 0, description: 'What the merchant is credited, in receive_currency.' },
  receive_currency: { type: 'string', enum: RECEIVE_CURRENCIES, description: "The merchant's settlement currency." },
  status: { ...status, description: 'Invoice status.' },
  created_at: timestamp,
  created_at_t: { ...epochMillis, description: 'created_at as Unix time in milliseconds.' },
  expired_at: { ...timestamp, description: 'End of the payment window (60 minutes for crypto, 3 hours for gateways).' },
  expired_at_t: { ...epochMillis, description: 'expired_at as Unix time in milliseconds.' },
  payment_address: {
    type: 'string',
    minLength: 1,
    description: 'Where to pay: a chain address, the EOS account, a BOLT11 invoice (LBTC) or the gateway link.',
  },
  payment_uri: {
    type: 'string',
    minLength: 1,
    description: 'Wallet URI for a QR code (BIP21 bitcoin:/litecoin:/bitcoincash:, EIP-681 ethereum:, eos:, lightning:, or the gateway link).',
  },
  address: { type: 'string', minLength: 1, description: "MugglePay's name for payment_address (the same value)." },
  memo: { type: 'string', description: "The memo the transfer must carry: the EOS invoice's memo; '' for every other currency." },
  qrcode: { type: 'string', minLength: 1, description: "MugglePay's name for what to encode in a QR code: the same value as payment_uri." },
} as const;

/** The invoice of Get Order and Checkout (`invoiceView`). */
export const invoiceSchema = strictObject('Invoice', 'The payment attempt in the chosen currency.', invoiceProperties);

/** Get Order's invoice before the first checkout. */
export const emptyInvoiceSchema = {
  $id: 'EmptyInvoice',
  type: 'object',
  description: 'No invoice yet: the order has not been checked out.',
  additionalProperties: false,
} as const;

/** Create Order: HTTP 200 whose body says 201 (a contract quirk). */
export const createOrderResponseSchema = strictObject('CreateOrderResponse', 'Create Order answer.', {
  status: { type: 'integer', const: 201, description: 'Always 201, although the HTTP status is 200 (contract quirk).' },
  order: { $ref: 'CreatedOrder' },
  payment_url: { type: 'string', format: 'uri', description: 'The hosted payment page of the order (carries its order_id).' },
});

/** Get Order (and cancel, refund, resolve, sandbox): the invoice is `{}` until the order is checked out. */
export const getOrderResponseSchema = strictObject(
  'GetOrderResponse',
  'An order and its current invoice ({} before checkout): the answer of Get Order and of the order actions.',
  {
    status: { type: 'integer', const: 200 },
    order: { $ref: 'Order' },
    invoice: { oneOf: [{ $ref: 'Invoice' }, { $ref: 'EmptyInvoice' }], description: 'The current invoice, or {} before checkout.' },
  },
);

/** Checkout Order: the order, now priced in pay_currency, and its new invoice. */
export const checkoutOrderResponseSchema = strictObject('CheckoutOrderResponse', 'Checkout Order answer.', {
  status: { type: 'integer', const: 200 },
  order: { $ref: 'Order' },
  invoice: { $ref: 'Invoice' },
});

/** Get Orders: one page (at most `limit` orders), newest first. */
export const getOrdersResponseSchema = strictObject('GetOrdersResponse', 'Get Orders answer: newest first, no invoices.', {
  status: { type: 'integer', const: 200 },
  orders: { type: 'array', maxItems: listOrdersQuerySchema.properties.limit.maximum, items: { $ref: 'Order' } },
});

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

const isAppErrorClass = (value: unknown): value is AppErrorClass =>
  typeof value === 'function' && value.prototype instanceof domainErrors.AppError;

/**
 * Every `error_code` an error body may carry, read off the error classes of
 * shared/domain/errors.ts so a new or renamed code cannot leave the schema behind (each class
 * is built without arguments only to read its code). INTERNAL_ERROR is the bare 500 of
 * shared/http/errors.ts.
 */
export const ERROR_CODES: readonly string[] = [
  ...new Set((Object.values(domainErrors) as unknown[]).filter(isAppErrorClass).map((ErrorClass) => new ErrorClass().code)),
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

const attemptSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['at', 'latency_ms'],
  properties: {
    at: timestamp,
    http_status: { type: 'integer', minimum: 100, maximum: 599, description: 'What the merchant answered, when it answered.' },
    latency_ms: { type: 'integer', minimum: 0 },
    error: { type: 'string', description: 'Why the attempt failed without an answer (timeout, connection, DNS, refused address).' },
  },
} as const;

/** One status-change callback of an order and its attempts (`deliveryView`). */
export const callbackDeliverySchema = strictObject('CallbackDelivery', 'One status-change callback and its delivery attempts.', {
  event_id: { type: 'string', description: 'The webhook-id header of every attempt of this callback.' },
  status: { ...status, description: 'The status the order changed to.' },
  version: { type: 'integer', minimum: 1, description: 'The order version the change produced.' },
  callback_url: { type: 'string', description: 'Where it is delivered (the order\'s callback_url at the time).' },
  state: { type: 'string', enum: ['PENDING', 'DELIVERED', 'FAILED', 'STOPPED'], description: 'PENDING until a 2xx (DELIVERED), a 410 (STOPPED), or the last attempt (FAILED, dead-lettered).' },
  attempt_count: { type: 'integer', minimum: 0 },
  attempts: { type: 'array', items: attemptSchema, description: 'The latest attempts, oldest first (at most 25).' },
  next_attempt_at: { oneOf: [timestamp, { type: 'null' }], description: 'When the next attempt is due (PENDING only).' },
  created_at: timestamp,
  delivered_at: { oneOf: [timestamp, { type: 'null' }] },
});

export const listCallbacksResponseSchema = strictObject('ListCallbacksResponse', "An order's callbacks, newest first.", {
  status: { type: 'integer', const: 200 },
  callbacks: { type: 'array', items: { $ref: 'CallbackDelivery' } },
});

export const redeliverCallbackResponseSchema = strictObject('RedeliverCallbackResponse', 'The callback queued again.', {
  status: { type: 'integer', const: 200 },
  callback: { $ref: 'CallbackDelivery' },
});

// ---------------------------------------------------------------------------------------------
// The payment page's public answers: what a buyer needs, nothing of the merchant's (no callback
// token or URL, user_id, merchant_order_id, rate or payments).

const payOrderProperties = {
  order_id: orderProperties.order_id,
  title: orderProperties.title,
  description: orderProperties.description,
  price_amount: orderProperties.price_amount,
  price_currency: orderProperties.price_currency,
  status: orderProperties.status,
  success_url: { ...orderProperties.success_url, description: "Where the page sends the buyer once the order is PAID ('' for none)." },
  cancel_url: { ...orderProperties.cancel_url, description: "Where the page sends the buyer after cancelling ('' for none)." },
  created_at: timestamp,
  merchant_name: { type: 'string', description: "The merchant's display name." },
  sandbox: { type: 'boolean', description: 'A sandbox order: nothing settles, and the page may simulate a payment.' },
} as const;

/** The order as the payment page sees it; `unresolved_reason` only once UNRESOLVED. */
export const payOrderSchema = {
  ...strictObject('PayOrder', 'An order as the hosted payment page sees it: only what the buyer needs.', payOrderProperties),
  properties: { ...payOrderProperties, unresolved_reason: orderSchema.properties.unresolved_reason },
} as const;

const payInvoiceProperties = {
  pay_amount: invoiceProperties.pay_amount,
  pay_currency: invoiceProperties.pay_currency,
  payment_address: invoiceProperties.payment_address,
  payment_uri: invoiceProperties.payment_uri,
  expired_at: invoiceProperties.expired_at,
  expired_at_t: invoiceProperties.expired_at_t,
  status: invoiceProperties.status,
} as const;

/** The current invoice as the payment page sees it; `memo` only for EOS. */
export const payInvoiceSchema = {
  ...strictObject('PayInvoice', 'What to pay, where, and until when.', payInvoiceProperties),
  properties: { ...payInvoiceProperties, memo: invoiceSchema.properties.memo },
} as const;

/** Every answer of the payment page's endpoints. */
export const payOrderResponseSchema = strictObject('PayOrderResponse', 'The order, its current invoice ({} before checkout) and the currencies the buyer may pick.', {
  status: { type: 'integer', const: 200 },
  order: { $ref: 'PayOrder' },
  invoice: { oneOf: [{ $ref: 'PayInvoice' }, { $ref: 'EmptyInvoice' }], description: 'The current invoice, or {} before checkout.' },
  currencies: {
    type: 'array',
    uniqueItems: true,
    items: { type: 'string', enum: PAY_CURRENCIES },
    description: 'The pay currencies offered: BTC, LTC, ETH, EOS, BCH, LBTC and the gateways the merchant has (a sandbox merchant has all).',
  },
});

/** All named response schemas, for one ajv instance (their `$ref`s point at each other). */
export const RESPONSE_SCHEMAS = [
  orderSchema,
  createdOrderSchema,
  invoiceSchema,
  emptyInvoiceSchema,
  createOrderResponseSchema,
  getOrderResponseSchema,
  checkoutOrderResponseSchema,
  getOrdersResponseSchema,
  callbackDeliverySchema,
  listCallbacksResponseSchema,
  redeliverCallbackResponseSchema,
  payOrderSchema,
  payInvoiceSchema,
  payOrderResponseSchema,
  orderNotFoundErrorSchema,
  orderDoesNotExistErrorSchema,
  priceNotValidErrorSchema,
  merchantOrderIdExistsErrorSchema,
  errorSchema,
] as const;
