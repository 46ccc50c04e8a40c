import { PRICE_CURRENCIES } from '#shared/domain/currencies';
import { PAY_CODES } from '#shared/domain/pay-codes';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { ORDER_STATUSES } from '#shared/domain/statuses';
import { MAX_BODY_FIELDS, MAX_SANDBOX_PAYMENT_FACTOR } from '#shared/domain/limits';

/**
 * Request schemas: the single source for validation (precompiled by `npm run validators` into
 * shared/http/validators.generated.ts) and for the OpenAPI document (tools/openapi/document.ts). Limits are the contract's: title 200 and
 * description 800 characters (ajv counts code points, not bytes), URLs 2048; every string has a
 * maxLength, a pattern or an enum, and every object a bounded number of fields (maxProperties),
 * so the OpenAPI document states every bound.
 *
 * What real MugglePay clients send is accepted (docs/merchant-guide.md, "Migrating from MugglePay"): unknown fields are
 * ignored (`additionalProperties: true`, up to MAX_BODY_FIELDS of them), and before validation
 * a `""` or `null` field reads as absent and `[]` as `{}` (shared/http/json-body.ts).
 */

/** An exact decimal: a JSON number (read from the request text) or a string of one, e.g. "19.90". */
const decimal = {
  type: ['number', 'string'],
  pattern: '^-?[0-9]+(\\.[0-9]+)?$',
  maxLength: 40,
} as const;

const payCurrency = {
  type: 'string',
  enum: PAY_CODES,
  description:
    "This service's codes, or MugglePay's (ETH_ERC20 is ETH; USDT and USDC mean USDT_ERC20 and USDC_ERC20). " +
    'A code this service cannot take yet is answered 400 PAYMENT_NOT_AVAILABLE, naming those it can.',
} as const;
const url = {
  type: 'string',
  maxLength: 2048,
  format: 'http-url',
  description: 'Absolute http(s) URL, or empty for none.',
} as const;

export const createOrderBodySchema = {
  $id: 'CreateOrderBody',
  type: 'object',
  additionalProperties: true,
  maxProperties: MAX_BODY_FIELDS,
  required: ['price_amount'],
  properties: {
    merchant_order_id: {
      type: ['string', 'integer'],
      maxLength: 255,
      description: "The merchant's own unique reference (a number is accepted and stored as the digits sent).",
    },
    price_amount: {
      ...decimal,
      description: 'Price in price_currency, above 0, at most the currency\'s decimals: a JSON number or a decimal string ("19.90"), read exactly.',
    },
    price_currency: { type: 'string', enum: PRICE_CURRENCIES, default: 'USD', description: 'Currency of the price. Default USD.' },
    pay_currency: {
      ...payCurrency,
      description: `Check the order out at once in this currency (gateways must be enabled for the merchant). ${payCurrency.description}`,
    },
    title: { type: 'string', maxLength: 200 },
    description: { type: 'string', maxLength: 800 },
    callback_url: { ...url, description: 'Receives a signed POST on every status change.' },
    cancel_url: { ...url, description: 'Where the buyer goes after cancelling.' },
    success_url: { ...url, description: 'Where the buyer goes after paying.' },
    mobile: { type: 'boolean', description: 'Gateways: the app link instead of the PC QR page.' },
    fast: { type: 'boolean', description: "ALIPAY/ALIGLOBAL only: payment_url is the gateway's own link." },
    token: { type: 'string', maxLength: 255, description: 'Merchant-chosen token echoed in every callback.' },
    merchant_token: { type: 'string', maxLength: 255, description: "The same as token (its name in MugglePay's 2025 docs); if both are sent they must be equal." },
    email: {
      type: 'string',
      maxLength: 254,
      format: 'email-address',
      description:
        "The buyer's e-mail address (MugglePay's 2026 docs): one address, local@domain, nothing else (an internationalised domain is kept as its A-labels); kept on the order and shown in Get Order.",
    },
  },
} as const;

export const checkoutBodySchema = {
  $id: 'CheckoutOrderBody',
  type: 'object',
  additionalProperties: true,
  maxProperties: MAX_BODY_FIELDS,
  required: ['pay_currency'],
  properties: {
    order_id: { type: 'string', maxLength: 64, description: 'Optional; must equal the path id when given.' },
    pay_currency: payCurrency,
  },
} as const;

export const listOrdersQuerySchema = {
  $id: 'GetOrdersQuery',
  type: 'object',
  // Unknown parameters are ignored, but not without bound.
  additionalProperties: true,
  maxProperties: 20,
  properties: {
    status: { type: 'string', enum: ORDER_STATUSES, description: 'Only orders in this status.' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    // Any offset (deep ones by order number); bounded only where a number stops being exact.
    offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 },
  },
} as const;

/** Cancel, refund and resolve: MugglePay sends `{order_id}`; the path is what counts. */
export const orderActionBodySchema = {
  $id: 'OrderActionBody',
  type: 'object',
  additionalProperties: true,
  maxProperties: MAX_BODY_FIELDS,
  properties: {
    order_id: { type: 'string', maxLength: 64, description: 'Optional; must equal the path id when given.' },
  },
} as const;

export const sandboxPayBodySchema = {
  $id: 'SandboxPayBody',
  type: 'object',
  additionalProperties: true,
  maxProperties: MAX_BODY_FIELDS,
  properties: {
    amount: {
      ...decimal,
      description: `Amount paid, in the invoice's pay_currency, above 0 and at most ${MAX_SANDBOX_PAYMENT_FACTOR} times the invoice's pay_amount (a number or a decimal string, read exactly). Default: the full amount.`,
    },
    confirmations: {
      type: 'integer',
      minimum: 0,
      maximum: 1000,
      description: 'Confirmations of the payment. Default: enough for the currency (BTC 2, LTC/BCH 6, ETH 12, others 1).',
    },
    txid: {
      type: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9_.:-]+$',
      description: 'Transaction id; reporting the same one again is idempotent. Default: a new random id.',
    },
  },
} as const;

export const sandboxRefundBodySchema = {
  $id: 'SandboxCompleteRefundBody',
  type: 'object',
  additionalProperties: true,
  maxProperties: MAX_BODY_FIELDS,
  properties: {
    txid: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' },
  },
} as const;

/*
 * The request types, derived from the schemas (json-schema-to-ts): what a handler gets after
 * validation. Unknown fields stay in the object (ignored), typed `unknown`. The body reader
 * hands a JSON number of price_amount / amount over as its own text (a decimal string) and a
 * numeric merchant_order_id as its digits (shared/http/json-body.ts). Defaulted fields stay
 * optional: services are called with bodies ajv did not fill in (tests, bench).
 */
type Validated<S extends JSONSchema> = FromSchema<S, { keepDefaultedPropertiesOptional: true }>;

/** Create Order's body (createOrderBodySchema). */
export type CreateOrderInput = Validated<typeof createOrderBodySchema>;
/** Checkout Order's body (checkoutBodySchema). */
export type CheckoutOrderBody = Validated<typeof checkoutBodySchema>;
/** Cancel, refund and resolve: the optional order_id (orderActionBodySchema). */
export type OrderActionBody = Validated<typeof orderActionBodySchema>;
/** The sandbox payment's body (sandboxPayBodySchema). */
export type SandboxPayBody = Validated<typeof sandboxPayBodySchema>;
/** The sandbox refund completion's body (sandboxRefundBodySchema). */
export type SandboxRefundBody = Validated<typeof sandboxRefundBodySchema>;
/** Get Orders' query (listOrdersQuerySchema; ajv coerces its numbers). */
export type ListOrdersQuery = Validated<typeof listOrdersQuerySchema>;
