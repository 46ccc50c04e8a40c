import { checkCallbackUrl } from '#shared/callbacks/ssrf';
import { apiConfig, callbackUrlConfig } from '#shared/core/config';
import { isGateway } from '#shared/domain/currencies';
import {
  OrderDoesNotExistError,
  OrderNotNewError,
  PaymentNotAvailableError,
} from '#shared/domain/errors';
import { isId, newId, newTimeOrderedId, orderIdFor } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { formatDecimal, type Decimal } from '#shared/domain/money';
import { checkedOutWith, type Invoice, newOrder, type Order, orderPrice, touch } from '#shared/domain/order';
import { parsePrice } from '#shared/domain/price';
import { paymentMethods, rateProvider, sandboxRateProvider } from '#shared/payments/providers';
import { payAmountFor, RateUnavailableError, receiveAmountFor } from '#shared/payments/rates';
import { changeOrder } from '#shared/services/order-changes';
import { insertOrder } from '#shared/store/orders';
import type { CreateOrderInput } from '#shared/schemas/orders';

/** The hosted page's address for an order: `PAYMENT_PAGE_URL?id=<order_id>`. */
export function paymentUrlFor(order: Order, invoice?: Invoice): string {
  // `fast` on ALIPAY/ALIGLOBAL: the buyer goes straight to the gateway's own link.
  if (order.fast && invoice?.gateway_url && (order.pay_currency === 'ALIPAY' || order.pay_currency === 'ALIGLOBAL')) {
    return invoice.gateway_url;
  }
  const url = new URL(apiConfig().paymentPageUrl);
  url.searchParams.set('id', order.order_id);
  return url.toString();
}

function assertPayable(merchant: MerchantProfile, payCurrency: string): void {
  if (isGateway(payCurrency) && !merchant.sandbox && !merchant.gateways.includes(payCurrency)) {
    throw new PaymentNotAvailableError(`${payCurrency} is not enabled for this merchant`);
  }
}

function invoiceTtlSeconds(payCurrency: string): number {
  return isGateway(payCurrency) ? apiConfig().invoiceTtlGatewaySeconds : apiConfig().invoiceTtlCryptoSeconds;
}

/**
 * Prices an invoice in `payCurrency` at the current rate (locked into the invoice) and asks
 * the payment method for an address. Rates that are missing or stale fail closed.
 */
async function buildInvoice(merchant: MerchantProfile, order: Order, payCurrency: string, now: Date, clientIp?: string): Promise<Invoice> {
  assertPayable(merchant, payCurrency);
  const price = orderPrice(order);
  const rates = merchant.sandbox ? sandboxRateProvider : rateProvider();
  let payRate, receiveRate;
  try {
    payRate = await rates.getRate(order.price_currency, payCurrency, now);
    receiveRate = await rates.getRate(order.price_currency, merchant.receive_currency, now);
  } catch (error) {
    if (error instanceof RateUnavailableError) throw new PaymentNotAvailableError(undefined, error);
    throw error;
  }
  const payAmount: Decimal = payAmountFor(price, payRate);
  // Time-ordered by when it is made, not by the request's `now` (a retry reuses that): the
  // invoice that becomes current after a lost race is the newest, and reads find it first.
  const invoiceId = newTimeOrderedId();
  const expiresAt = new Date(now.getTime() + invoiceTtlSeconds(payCurrency) * 1000);
  const details = await paymentMethods().paymentDetails({
    merchant,
    orderId: order.order_id,
    invoiceId,
    currency: payCurrency,
    amount: payAmount,
    description: order.title || order.description || `Order ${order.order_id}`,
    expiresAt,
    mobile: order.mobile,
    fast: order.fast,
    now,
    clientIp,
  });
  return {
    invoice_id: invoiceId,
    order_id: order.order_id,
    user_id: order.user_id,
    merchant_order_id: order.merchant_order_id,
    pay_amount: formatDecimal(payAmount),
    pay_currency: payCurrency,
    receive_amount: formatDecimal(receiveAmountFor(price, receiveRate)),
    receive_currency: merchant.receive_currency,
    status: 'NEW',
    created_at: now.toISOString(),
    expired_at: expiresAt.toISOString(),
    ...details,
    rate: {
      numerator: formatDecimal(payRate.numerator),
      denominator: formatDecimal(payRate.denominator),
      source: payRate.source,
      as_of: payRate.asOf.toISOString(),
    },
  };
}


/** Create Order: stores a NEW order; with `pay_currency` it is checked out at once. */
export async function createOrder(merchant: MerchantProfile, input: CreateOrderInput, now: Date, clientIp?: string) {
  const priceCurrency = input.price_currency ?? 'USD';
  const price = parsePrice(input.price_amount, priceCurrency);
  // Refuse callback URLs that point into private networks before anything is stored.
  if (input.callback_url) checkCallbackUrl(input.callback_url, { allowLoopback: callbackUrlConfig().allowLoopback });
  const reference = input.merchant_order_id === undefined ? '' : String(input.merchant_order_id);
  // A reference gives a derived id: the order's own conditional write keeps it unique.
  const derived = reference !== '' && merchant.order_id_key !== undefined;
  const identity = {
    orderId: derived ? orderIdFor(merchant.order_id_key!, merchant.user_id, reference) : newId(),
    userId: merchant.user_id,
    reference,
    sandbox: merchant.sandbox,
    tolerancePercent: merchant.payment_tolerance_percent ?? '0',
  };
  let order = newOrder(identity, { amount: price, currency: priceCurrency }, input, apiConfig().orderTtlSeconds, now);
  let invoice: Invoice | undefined;
  if (input.pay_currency) {
    invoice = await buildInvoice(merchant, order, input.pay_currency, now, clientIp);
    order = checkedOutWith(order, invoice);
  }
  await insertOrder(order, invoice, { guardReference: reference !== '' && !derived });
  return { order, invoice, paymentUrl: paymentUrlFor(order, invoice) };
}

/**
 * Checkout Order: picks (or switches) the payment currency of a NEW order. The new invoice is
 * written first, then the order's conditional write makes it current, so concurrent
 * checkouts leave exactly one current invoice.
 */
export async function checkoutOrder(merchant: MerchantProfile, orderId: unknown, payCurrency: string, now: Date, clientIp?: string) {
  if (!isId(orderId)) throw new OrderDoesNotExistError();
  const { order, invoice } = await changeOrder(orderId, merchant, () => new OrderDoesNotExistError(), async (found) => {
    if (found.order.status !== 'NEW') throw new OrderNotNewError();
    const next = await buildInvoice(merchant, found.order, payCurrency, now, clientIp);
    return { order: checkedOutWith(touch(found.order, now), next), invoice: next };
  });
  return { order, invoice: invoice!, paymentUrl: paymentUrlFor(order, invoice) };
}
