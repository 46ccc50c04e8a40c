import { PAY_CURRENCIES, PRICE_CURRENCIES, RECEIVE_CURRENCIES } from '#shared/domain/currencies';
import { createOrderBodySchema, listOrdersQuerySchema } from '#shared/schemas/orders';
import type { UnresolvedReason } from '#shared/domain/status-machine';

/**
 * Response schemas (JSON Schema draft 2020-12) of the merchant API's orders; beside them the
 * errors (error-responses.ts), callbacks (callback-responses.ts) and the payment page
 * (pay-responses.ts), all listed in response-catalog.ts. The contract's answer bodies, strict enough
 * that a test can hold every real answer against them (`additionalProperties: false`, every
 * field the views always write is required). Properties are listed in the order the views of
 * shared/schemas/order-views.ts write them, so the schemas double as the field-order reference.
 *
 * Named schemas carry an `$id` and refer to each other with a relative `$ref` (`'Order'`), so
 * ajv resolves them once they are all added (response-catalog.ts RESPONSE_SCHEMAS) and the OpenAPI builder
 * can turn each `$id` into a component name. Field schemas shared with the request schemas
 * are taken from shared/schemas/orders.ts rather than restated.
 */

const body = createOrderBodySchema.properties;

/** ISO 8601 UTC with milliseconds, as `Date#toISOString` writes it. */
export const timestamp = {
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
export const status = listOrdersQuerySchema.properties.status;

/** Fields of the order as stored; each view below picks its own subset. */
export const orderProperties = {
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
export function strictObject<const P extends Record<string, object>>(id: string, description: string, properties: P) {
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
      description: "Only on an order that is or was UNRESOLVED: why it needs the merchant's attention.",
    },
  },
} as const;

/** The order of Create Order (`createdOrderView`): no `token`, `receive_currency` or `deleted`. */
export const createdOrderSchema = strictObject(
  'CreatedOrder',
  'An order as Create Order answers it: without token, receive_currency and deleted.',
  omit(orderProperties, ['token', 'receive_currency', 'deleted']),
);

export const invoiceProperties = {
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
    description: "Where to pay: a chain address, the merchant's wallet (TON, Solana), a Stellar muxed address (USDC_XLM), the EOS account, a BOLT11 invoice (LBTC) or the gateway link.",
  },
  payment_uri: {
    type: 'string',
    minLength: 1,
    description: 'Wallet URI for a QR code (BIP21 bitcoin:/litecoin:/bitcoincash:, EIP-681 ethereum:, tron:, solana:, ton://transfer, SEP-7 web+stellar:pay, eos:, lightning:, or the gateway link).',
  },
  payment_memo: {
    type: 'string',
    description:
      "What the transfer must carry beside payment_address, or '': TON's and USDT_TON's comment (a transfer without it cannot be matched), USDC_XLM's MEMO_ID (for wallets that cannot pay the muxed address), EOS's memo, USDC_SOL's and PYUSD's Solana Pay reference.",
  },
  address: { type: 'string', minLength: 1, description: "MugglePay's name for payment_address (the same value)." },
  memo: { type: 'string', description: "MugglePay's name for payment_memo (the same value)." },
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

const getOrderProperties = {
  status: { type: 'integer', const: 200 },
  order: { $ref: 'Order' },
  invoice: { oneOf: [{ $ref: 'Invoice' }, { $ref: 'EmptyInvoice' }], description: 'The current invoice, or {} before checkout.' },
} as const;

/**
 * Get Order (and cancel, refund, resolve, sandbox): the invoice is `{}` until the order is
 * checked out. Beyond MugglePay's fields: Get Order's `refunds` once the order has any, Refund
 * Order's new `refund`.
 */
export const getOrderResponseSchema = {
  ...strictObject('GetOrderResponse', 'An order and its current invoice ({} before checkout): the answer of Get Order and of the order actions.', getOrderProperties),
  properties: {
    ...getOrderProperties,
    refunds: { type: 'array', items: { $ref: 'Refund' }, description: "Get Order: the order's refunds, oldest first (only once it has any)." },
    refund: { $ref: 'Refund', description: 'Refund Order: the refund just asked (absent for a gateway order, refunded at its gateway).' },
  },
} as const;

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
