import { PAY_CURRENCIES, PRICE_CURRENCIES } from '#shared/domain/currencies';
import { ORDER_STATUSES, type OrderStatus } from '#shared/domain/statuses';
import { MAX_OFFSET } from '#shared/domain/limits';

/**
 * Request schemas: the single source for validation (precompiled by `npm run validators` into
 * shared/http/validators.generated.ts) and for the OpenAPI document (tools/openapi/document.ts). Limits are the contract's: title 200 and
 * description 800 characters (ajv counts code points, not bytes), URLs 2048.
 */
const url = {
  type: 'string',
  maxLength: 2048,
  format: 'http-url',
  description: 'Absolute http(s) URL, or empty for none.',
} as const;

export const createOrderBodySchema = {
  $id: 'CreateOrderBody',
  type: 'object',
  additionalProperties: false,
  required: ['price_amount'],
  properties: {
    merchant_order_id: {
      type: ['string', 'integer'],
      maxLength: 255,
      description: "The merchant's own unique reference (numbers are accepted and stored as strings).",
    },
    price_amount: { type: 'number', description: 'Price in price_currency, above 0, at most the currency\'s decimals.' },
    price_currency: { type: 'string', enum: PRICE_CURRENCIES, default: 'USD', description: 'Currency of the price. Default USD.' },
    pay_currency: {
      type: 'string',
      enum: PAY_CURRENCIES,
      description: 'Check the order out at once in this currency (gateways must be enabled for the merchant).',
    },
    title: { type: 'string', maxLength: 200 },
    description: { type: 'string', maxLength: 800 },
    callback_url: { ...url, description: 'Receives a signed POST on every status change.' },
    cancel_url: { ...url, description: 'Where the buyer goes after cancelling.' },
    success_url: { ...url, description: 'Where the buyer goes after paying.' },
    mobile: { type: 'boolean', description: 'Gateways: the app link instead of the PC QR page.' },
    fast: { type: 'boolean', description: "ALIPAY/ALIGLOBAL only: payment_url is the gateway's own link." },
    token: { type: 'string', maxLength: 255, description: 'Merchant-chosen token echoed in every callback.' },
  },
} as const;

export const checkoutBodySchema = {
  $id: 'CheckoutOrderBody',
  type: 'object',
  additionalProperties: false,
  required: ['pay_currency'],
  properties: {
    order_id: { type: 'string', maxLength: 64, description: 'Optional; must equal the path id when given.' },
    pay_currency: { type: 'string', enum: PAY_CURRENCIES },
  },
} as const;

export const listOrdersQuerySchema = {
  $id: 'GetOrdersQuery',
  type: 'object',
  additionalProperties: true,
  properties: {
    status: { type: 'string', enum: ORDER_STATUSES, description: 'Only orders in this status.' },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    offset: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
  },
} as const;

/** Cancel, refund and resolve: MugglePay sends `{order_id}`; the path is what counts. */
export const orderActionBodySchema = {
  $id: 'OrderActionBody',
  type: 'object',
  additionalProperties: false,
  properties: {
    order_id: { type: 'string', maxLength: 64, description: 'Optional; must equal the path id when given.' },
  },
} as const;

export const sandboxPayBodySchema = {
  $id: 'SandboxPayBody',
  type: 'object',
  additionalProperties: false,
  properties: {
    amount: {
      type: 'number',
      exclusiveMinimum: 0,
      description: "Amount paid, in the invoice's pay_currency. Default: the full amount.",
    },
    confirmations: {
      type: 'integer',
      minimum: 0,
      maximum: 1000,
      description: "Confirmations of the payment. Default: enough for the currency (BTC 2, LTC/BCH 6, ETH 12, others 1).",
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
  additionalProperties: false,
  properties: {
    txid: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' },
  },
} as const;

/** Create Order's body after schema validation (createOrderBodySchema). */
export interface CreateOrderInput {
  merchant_order_id?: string | number;
  price_amount: number;
  price_currency?: string;
  pay_currency?: string;
  title?: string;
  description?: string;
  callback_url?: string;
  cancel_url?: string;
  success_url?: string;
  mobile?: boolean;
  fast?: boolean;
  token?: string;
}

/** Get Orders' query after schema validation (listOrdersQuerySchema). */
export interface ListOrdersQuery {
  status?: OrderStatus;
  limit?: number;
  offset?: number;
}
