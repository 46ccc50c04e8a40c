import type { Invoice, Order } from '#shared/domain/order';
import { offeredCurrencies, payPageView } from '#shared/schemas/pay';
import { BTC_INVOICE, BTC_ORDER, EOS_INVOICE, EOS_ORDER, type Examples, NEW_ORDER } from '#tools/openapi/examples';

/** The payment page's public endpoints: the example order's merchant, as the page sees it. */

export const PAGE_MERCHANT = {
  user_id: NEW_ORDER.user_id,
  name: 'Ecards',
  sandbox: true,
  receive_currency: 'USD',
  gateways: [],
  created_at: '2019-04-01T08:00:00.000Z',
};

/** A sandbox merchant can be paid in everything the page shows. */
export const payPage = (order: Order, invoice?: Invoice) => payPageView({ order, invoice, merchant: PAGE_MERCHANT, currencies: offeredCurrencies(PAGE_MERCHANT, () => true) });

export const PAY_ORDER_RESPONSE_EXAMPLES: Examples = {
  notCheckedOut: { summary: 'Before the buyer picks a currency: invoice is {}', value: payPage(NEW_ORDER) },
  btc: { summary: 'Checked out in BTC', value: payPage(BTC_ORDER, BTC_INVOICE) },
  eos: { summary: 'Checked out in EOS: the account plus a memo', value: payPage(EOS_ORDER, EOS_INVOICE) },
};

export const PAGE_ORDER_ID = 'The order_id from the payment_url (`?id=`). Any other value is answered as a missing order.';

export const PAGE_PUBLIC = [
  '',
  '**Public:** no `token`; the unguessable order id is the only capability. The answer holds only what the',
  "buyer needs: never the merchant's callback `token` or `callback_url`, `user_id`, `merchant_order_id` or the",
  "invoice's rate and payments. A missing or malformed order id is HTTP 404 `ORDER_NOT_FOUND`.",
].join('\n');
