/**
 * Refunds on the wire: the bodies of asking one (Refund Order's optional fields), reporting its
 * transaction and the buyer's refund page, and the answers (the merchant's refund, the buyer's
 * page). The refund page imports its answer's type from here.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { networkName } from '#shared/domain/networks';
import type { Order } from '#shared/domain/order';
import { MAX_REFUND_REASON_CHARS, type Refund, REFUND_BASES, REFUND_STATUSES } from '#shared/domain/refund';
import { status as orderStatus, strictObject, timestamp } from '#shared/schemas/order-responses';

const MAX_BODY_FIELDS = 20;

const decimal = { type: ['number', 'string'], pattern: '^[0-9]+(\\.[0-9]+)?$', maxLength: 40 } as const;

const txid = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' } as const;

/** The refund link's secret (43 base64url characters), sent in the body so no log holds it. */
const secret = { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', maxLength: 43, description: "The refund link's secret: what follows `#refund=` in the link." } as const;

/** Refund Order: MugglePay sends `[]`, `{}` or `{order_id}` (the full amount); the rest is optional. */
export const refundOrderBodySchema = {
  $id: 'RefundOrderBody',
  type: 'object',
  additionalProperties: true,
  maxProperties: MAX_BODY_FIELDS,
  properties: {
    order_id: { type: 'string', maxLength: 64, description: 'Optional; must equal the path id when given.' },
    basis: {
      type: 'string',
      enum: REFUND_BASES,
      description:
        "How the amount is chosen (default `crypto`): `crypto` all that is left of the crypto paid; `overpaid` the part an UNRESOLVED order was paid beyond its invoice; `fiat` a fiat value (`amount` in the order's price_currency, default its price) at today's rate, locked and shown; `custom` `amount` in the paid currency.",
    },
    amount: { ...decimal, description: "For `custom`: in the paid invoice's currency; for `fiat`: in the order's price_currency. A number or a decimal string, read exactly." },
    reason: { type: 'string', maxLength: MAX_REFUND_REASON_CHARS, description: 'A note for the buyer, shown on the refund page.' },
  },
} as const;

export const refundTxidBodySchema = {
  $id: 'RefundTxidBody',
  type: 'object',
  additionalProperties: true,
  maxProperties: MAX_BODY_FIELDS,
  // Required, but checked after the refund is found: another merchant's refund answers 404 whatever the body.
  properties: {
    refund_id: { type: 'string', maxLength: 64, description: 'Required. Which refund of the order (its `refund_id`).' },
    txid: { ...txid, description: 'Required. The transaction that paid the refund: checked on its chain before it counts.' },
  },
} as const;

export const refundLinkBodySchema = {
  $id: 'RefundLinkBody',
  type: 'object',
  additionalProperties: true,
  maxProperties: MAX_BODY_FIELDS,
  properties: { refund_id: { type: 'string', maxLength: 64, description: 'Required. Which refund of the order gets a new link.' } },
} as const;

export const payRefundBodySchema = {
  $id: 'PayRefundBody',
  type: 'object',
  additionalProperties: false,
  required: ['secret'],
  properties: { secret },
} as const;

export const payRefundAddressBodySchema = {
  $id: 'PayRefundAddressBody',
  type: 'object',
  additionalProperties: false,
  required: ['secret', 'address'],
  properties: {
    secret,
    address: {
      type: 'string',
      minLength: 1,
      maxLength: 1500,
      description: "Where the refund goes: an address of the refund's network, a BOLT11 invoice of exactly the amount (LBTC), an account name (EOS).",
    },
    memo: { type: 'string', maxLength: 256, description: "EOS only: the memo the transfer must carry (an exchange's deposit memo)." },
  },
} as const;

export type RefundOrderBody = FromSchema<typeof refundOrderBodySchema, { keepDefaultedPropertiesOptional: true }>;
export type RefundTxidBody = FromSchema<typeof refundTxidBodySchema>;
export type RefundLinkBody = FromSchema<typeof refundLinkBodySchema>;
export type PayRefundBody = FromSchema<typeof payRefundBodySchema>;
export type PayRefundAddressBody = FromSchema<typeof payRefundAddressBodySchema>;

const nullable = <const S extends object>(schema: S, description: string) => ({ oneOf: [schema, { type: 'null' }] as const, description });
const exactAmount = { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)?$', description: 'Exact decimal in `currency` (a string, never rounded).' } as const;

/** One refund as the merchant sees it (Get Order's `refunds`, the refund endpoints, the portal). */
export const refundSchema = strictObject('Refund', "A refund of an order: asked by the merchant, addressed by the buyer, paid from the merchant's wallet.", {
  refund_id: { type: 'string' },
  order_id: { type: 'string' },
  status: { type: 'string', enum: REFUND_STATUSES, description: 'AWAITING_ADDRESS (the buyer has the link), AWAITING_PAYMENT (pay it), SENT.' },
  amount: exactAmount,
  currency: { type: 'string', description: "The paid invoice's pay_currency: what is refunded, on which network." },
  network: nullable({ type: 'string' }, 'The network it is paid on, by name (Ethereum, Arbitrum One, TRON, ...).'),
  basis: { type: 'string', enum: REFUND_BASES },
  rate: nullable(
    {
      type: 'object',
      additionalProperties: false,
      required: ['fiat_amount', 'fiat_currency', 'numerator', 'denominator', 'source', 'as_of'],
      properties: {
        fiat_amount: { type: 'string' },
        fiat_currency: { type: 'string' },
        numerator: { type: 'string' },
        denominator: { type: 'string' },
        source: { type: 'string' },
        as_of: timestamp,
      },
    },
    'A `fiat` refund: the fiat value and the rate it was converted at (1 fiat_currency = numerator/denominator currency), locked when asked.',
  ),
  reason: nullable({ type: 'string' }, "The merchant's note to the buyer."),
  address: nullable({ type: 'string' }, 'Set by the buyer (LBTC: the BOLT11 invoice; EOS: the account).'),
  memo: nullable({ type: 'string' }, 'EOS: the memo to send with it.'),
  payment_uri: nullable({ type: 'string' }, "Once addressed: the wallet URI (QR code) that pays it exactly from the merchant's wallet."),
  txid: nullable({ type: 'string' }, 'Once SENT: the transaction that paid it.'),
  refund_url: nullable({ type: 'string', format: 'uri' }, 'While AWAITING_ADDRESS: the one-time link to give the buyer.'),
  short_payments: {
    type: 'array',
    description: 'Final transfers to the refund address of less than its amount: they do not complete it.',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['txid', 'amount', 'seen_at'],
      properties: { txid: { type: 'string' }, amount: { type: 'string' }, seen_at: timestamp },
    },
  },
  created_at: timestamp,
  address_set_at: nullable(timestamp, 'When the buyer set the address.'),
  sent_at: nullable(timestamp, 'When it was seen paid.'),
});

export const refundResponseSchema = strictObject('RefundResponse', 'One refund.', {
  status: { type: 'integer', const: 200 },
  refund: { $ref: 'Refund' },
});

export const listRefundsResponseSchema = strictObject('ListRefundsResponse', "An order's refunds, oldest first.", {
  status: { type: 'integer', const: 200 },
  refunds: { type: 'array', items: { $ref: 'Refund' } },
});

/** The buyer's refund page: the order (nothing the merchant owns), the refund, and whether it still takes an address. */
export const payRefundResponseSchema = strictObject('PayRefundResponse', "The buyer's refund page.", {
  status: { type: 'integer', const: 200 },
  order: strictObject('PayRefundOrder', 'The refunded order as the buyer sees it.', {
    title: { type: 'string' },
    merchant_name: { type: 'string' },
    price_amount: { type: 'string' },
    price_currency: { type: 'string' },
    status: orderStatus,
    sandbox: { type: 'boolean' },
  }),
  refund: strictObject('PayRefund', 'What is refunded and where it goes.', {
    amount: exactAmount,
    currency: { type: 'string' },
    network: nullable({ type: 'string' }, 'The network it is paid on.'),
    reason: nullable({ type: 'string' }, "The merchant's note."),
    status: { type: 'string', enum: REFUND_STATUSES },
    address: nullable({ type: 'string' }, 'Once set.'),
    memo: nullable({ type: 'string' }, 'EOS: the memo given.'),
    takes_memo: { type: 'boolean', description: "EOS, TON, USDT_TON and USDC_XLM: the page asks a memo too (an exchange's deposit memo or comment)." },
    asks: { type: 'string', enum: ['address', 'invoice', 'account'], description: 'What the page asks for: an address, a Lightning invoice (LBTC) or an account (EOS).' },
  }),
});

/**
 * The buyer's refund page's answer (`PayRefundResponse`). Fields named one by one: nothing the
 * merchant owns (callback, token, ids) can slip in.
 */
/** Refunds whose page asks a memo too (the buyer's exchange may need one): EOS's, TON's comment, Stellar's MEMO_ID. */
const MEMO_REFUNDS: readonly string[] = ['EOS', 'TON', 'USDT_TON', 'USDC_XLM'];

export function payRefundView(refund: Refund, order: Pick<Order, 'title' | 'price_amount' | 'price_currency' | 'status' | 'sandbox'>, merchantName: string) {
  return {
    status: 200 as const,
    order: { title: order.title, merchant_name: merchantName, price_amount: order.price_amount, price_currency: order.price_currency, status: order.status, sandbox: order.sandbox },
    refund: {
      amount: refund.amount,
      currency: refund.currency,
      network: networkName(refund.currency) ?? null,
      reason: refund.reason ?? null,
      status: refund.status,
      address: refund.address ?? null,
      memo: refund.memo ?? null,
      takes_memo: MEMO_REFUNDS.includes(refund.currency),
      asks: (refund.currency === 'LBTC' ? 'invoice' : refund.currency === 'EOS' ? 'account' : 'address') as 'address' | 'invoice' | 'account',
    },
  };
}

export type PayRefundView = ReturnType<typeof payRefundView>;
