/**
 * The payment page's public answers: what a buyer needs, nothing of the merchant's (no callback
 * token or URL, user_id, merchant_order_id, rate or payments).
 */
import { PAY_CURRENCIES } from '#shared/domain/currencies';
import { invoiceProperties, orderProperties, orderSchema, strictObject, timestamp } from '#shared/schemas/order-responses';

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

/** The current invoice as the payment page sees it; `memo` only where the transfer carries one, `account` only for USDC_XLM. */
export const payInvoiceSchema = {
  ...strictObject('PayInvoice', 'What to pay, where, and until when.', payInvoiceProperties),
  properties: {
    ...payInvoiceProperties,
    memo: { type: 'string', description: "What the transfer must carry: TON's comment, Stellar's MEMO_ID, EOS's memo, Solana Pay's reference." },
    account: { type: 'string', description: 'USDC_XLM: the plain account (G...) of the muxed payment_address, paid with `memo` as a MEMO_ID by wallets that cannot pay a muxed address.' },
  },
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
