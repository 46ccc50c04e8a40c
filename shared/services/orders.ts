import { checkCallbackUrl } from '#shared/callbacks/ssrf';
import { apiConfig, callbackUrlConfig } from '#shared/core/config';
import { isGateway } from '#shared/domain/currencies';
import {
  InvalidParameterError,
  MerchantOrderIdExistsError,
  OrderDoesNotExistError,
  OrderNotNewError,
  PaymentNotAvailableError,
} from '#shared/domain/errors';
import { isId, newId, newTimeOrderedId, orderIdFor } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { formatDecimal, type Decimal } from '#shared/domain/money';
import { checkedOutWith, createdOrderView, type Invoice, newOrder, type Order, orderPrice, touch } from '#shared/domain/order';
import { payCurrencyFor } from '#shared/domain/pay-codes';
import { parsePrice } from '#shared/domain/price';
import { paymentMethods, rateProvider, sandboxRateProvider } from '#shared/payments/providers';
import { payAmountFor, RateUnavailableError, receiveAmountFor } from '#shared/payments/rates';
import { changeOrder } from '#shared/services/order-changes';
import { findOrderIdByGuard, findOrderWithInvoice, insertOrder } from '#shared/store/orders';
import type { CreateOrderInput } from '#shared/schemas/orders';

/** The callback token under either of its names; both given must agree. */
function callbackToken(input: Pick<CreateOrderInput, 'token' | 'merchant_token'>): string {
  if (input.token !== undefined && input.merchant_token !== undefined && input.token !== input.merchant_token) {
    throw new InvalidParameterError('token and merchant_token differ: send one of them');
  }
  return input.token ?? input.merchant_token ?? '';
}

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
async function buildInvoice(merchant: MerchantProfile, order: Order, payCurrency: string, now: Date): Promise<Invoice> {
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
export async function createOrder(merchant: MerchantProfile, input: CreateOrderInput, now: Date) {
  const priceCurrency = input.price_currency ?? 'USD';
  const price = parsePrice(input.price_amount, priceCurrency);
  const token = callbackToken(input);
  const payCurrency = input.pay_currency === undefined ? undefined : payCurrencyFor(input.pay_currency);
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
    callbackStatuses: merchant.callback_statuses,
  };
  const choices = { ...input, token, pay_currency: payCurrency };
  let order = newOrder(identity, { amount: price, currency: priceCurrency }, choices, apiConfig().orderTtlSeconds, now);
  let invoice: Invoice | undefined;
  if (payCurrency) {
    invoice = await buildInvoice(merchant, order, payCurrency, now);
    order = checkedOutWith(order, invoice);
  }
  try {
    await insertOrder(order, invoice, { guardReference: reference !== '' && !derived });
  } catch (error) {
    if (error instanceof MerchantOrderIdExistsError) throw await referenceTaken(merchant, reference, derived ? order.order_id : undefined, error);
    throw error;
  }
  return { order, invoice, paymentUrl: paymentUrlFor(order, invoice) };
}

/**
 * A repeated merchant_order_id: the error carries the order that holds it, as Create Order
 * answers it, and its payment_url (MugglePay's plugins read both from this answer).
 */
async function referenceTaken(
  merchant: MerchantProfile,
  reference: string,
  derivedId: string | undefined,
  error: MerchantOrderIdExistsError,
): Promise<MerchantOrderIdExistsError> {
  const orderId = derivedId ?? (await findOrderIdByGuard(merchant.user_id, reference));
  const found = orderId === undefined ? undefined : await findOrderWithInvoice(orderId);
  if (!found || found.order.user_id !== merchant.user_id) return error;
  return new MerchantOrderIdExistsError({ order: createdOrderView(found.order), payment_url: paymentUrlFor(found.order, found.invoice) });
}

/**
 * Checkout Order: picks (or switches) the payment currency of a NEW order. The new invoice is
 * written first, then the order's conditional write makes it current, so concurrent
 * checkouts leave exactly one current invoice.
 */
export async function checkoutOrder(merchant: MerchantProfile, orderId: unknown, code: string, now: Date) {
  if (!isId(orderId)) throw new OrderDoesNotExistError();
  const payCurrency = payCurrencyFor(code);
  const { order, invoice } = await changeOrder(orderId, merchant, () => new OrderDoesNotExistError(), async (found) => {
    if (found.order.status !== 'NEW') throw new OrderNotNewError();
    const next = await buildInvoice(merchant, found.order, payCurrency, now);
    return { order: checkedOutWith(touch(found.order, now), next), invoice: next };
  });
  return { order, invoice: invoice!, paymentUrl: paymentUrlFor(order, invoice) };
}
