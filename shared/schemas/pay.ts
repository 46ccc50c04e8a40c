import type { FromSchema } from 'json-schema-to-ts';
import { GATEWAY_CURRENCIES, PAY_CURRENCIES, type PayCurrency } from '#shared/domain/currencies';
import type { MerchantProfile } from '#shared/domain/merchant';
import { decimalToNumber, parseDecimal } from '#shared/domain/money';
import type { Invoice, Order } from '#shared/domain/order';

/**
 * The payment page's public endpoints (`/v1/pay/...`): their request schema and the views
 * that make their answers (described by `PayOrderResponse` in shared/schemas/order-responses.ts).
 * Cancel and the sandbox payment read no body; checkout takes the buyer's currency only.
 */
export const payCheckoutBodySchema = {
  $id: 'PayCheckoutBody',
  type: 'object',
  additionalProperties: false,
  required: ['pay_currency'],
  properties: {
    pay_currency: {
      type: 'string',
      enum: PAY_CURRENCIES,
      description: "The buyer's choice; one of the answer's `currencies` (gateways must be enabled for the merchant).",
    },
  },
} as const;

/** The checkout body after validation (derived from the schema). */
export type PayCheckoutBody = FromSchema<typeof payCheckoutBodySchema>;

/** The chain currencies every merchant offers, in the page's order; gateways follow. */
const CHAIN_CURRENCIES: readonly PayCurrency[] = [
  'BTC',
  'LTC',
  'ETH',
  'USDT_ERC20',
  'USDC_ERC20',
  'USDT_TRC20',
  'USDT_ARB',
  'USDC_ARB',
  'ETH_ARB',
  'USDC_BASE',
  'ETH_BASE',
  'USDC_POL',
  'USDT_BNB',
  'USDT_CELO',
  'CUSD',
  'USDC_SOL',
  'PYUSD',
  'USDT_TON',
  'TON',
  'USDC_XLM',
  'EOS',
  'BCH',
  'LBTC',
];

/**
 * The pay currencies the page offers, in its order: the chain currencies `payable` says the
 * merchant can be paid in (a live merchant: those with a receiving key or account and a watcher
 * configured), then the merchant's gateways (sandbox: everything).
 */
export function offeredCurrencies(merchant: Pick<MerchantProfile, 'sandbox' | 'gateways'>, payable: (code: PayCurrency) => boolean): PayCurrency[] {
  const gateways = GATEWAY_CURRENCIES.filter((code) => merchant.sandbox || merchant.gateways.includes(code));
  return [...CHAIN_CURRENCIES, ...gateways].filter(payable);
}

const amount = (value: string): number => decimalToNumber(parseDecimal(value));

/**
 * The order as the buyer sees it. Fields are named one by one (never spread), so nothing the
 * merchant owns (callback token and URL, user_id, merchant_order_id) can slip into an answer.
 */
export function payOrderView(order: Order, merchant: Pick<MerchantProfile, 'name'>) {
  return {
    order_id: order.order_id,
    title: order.title,
    description: order.description,
    price_amount: amount(order.price_amount),
    price_currency: order.price_currency,
    status: order.status,
    success_url: order.success_url,
    cancel_url: order.cancel_url,
    created_at: order.created_at,
    merchant_name: merchant.name,
    sandbox: order.sandbox,
    ...(order.unresolved_reason ? { unresolved_reason: order.unresolved_reason } : {}),
  };
}

/** The invoice as the buyer sees it: what to pay, where and until when (no rate, no payments, no ids). */
export function payInvoiceView(invoice: Invoice) {
  return {
    pay_amount: amount(invoice.pay_amount),
    pay_currency: invoice.pay_currency,
    payment_address: invoice.payment_address,
    payment_uri: invoice.payment_uri,
    expired_at: invoice.expired_at,
    expired_at_t: Date.parse(invoice.expired_at),
    status: invoice.status,
    ...(invoice.memo !== undefined ? { memo: invoice.memo } : {}),
    ...(invoice.watched_address !== undefined ? { account: invoice.watched_address } : {}),
  };
}

/** The answer of every `/v1/pay/...` endpoint: `{status: 200, order, invoice, currencies}`. */
export function payPageView(page: { order: Order; invoice: Invoice | undefined; merchant: MerchantProfile; currencies: readonly PayCurrency[] }) {
  return {
    status: 200,
    order: payOrderView(page.order, page.merchant),
    invoice: page.invoice ? payInvoiceView(page.invoice) : {},
    currencies: [...page.currencies],
  };
}

export type PayPageView = ReturnType<typeof payPageView>;
