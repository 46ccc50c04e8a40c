import { checkCallbackUrl } from '#shared/callbacks/ssrf';
import { apiConfig, callbackUrlConfig, watchConfig } from '#shared/core/config';
import { isGateway } from '#shared/domain/currencies';
import { checkMailbox } from '#shared/domain/email-address';
import {
  ConcurrentUpdateError,
  InvalidParameterError,
  MerchantOrderIdExistsError,
  OrderDoesNotExistError,
  OrderNotNewError,
  PaymentNotAvailableError,
  TooManyInvoicesError,
} from '#shared/domain/errors';
import { isId, newId, newTimeOrderedId, orderIdFor } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { formatDecimal, parseDecimal } from '#shared/domain/money';
import { payCurrencyFor } from '#shared/domain/pay-codes';
import { parsePrice } from '#shared/domain/price';
import { createdOrderView } from '#shared/schemas/order-views';
import { checkedOutWith, type Found, type Invoice, newOrder, type Order, orderPrice, touch } from '#shared/domain/order';
import { MAX_INVOICES_PER_ORDER } from '#shared/domain/limits';
import { paymentMethods, rateProvider, sandboxRateProvider } from '#shared/payments/providers';
import { payAmountFor, RateUnavailableError, receiveAmountFor } from '#shared/payments/rates';
import { assertWatchedNow, watchedSourceOf } from '#shared/payments/source-health';
import { demandWatching } from '#shared/store/watch-demand';
import { logger } from '#shared/core/logger';
import { claimInvoiceSlot, discardInvoice, findInvoice, releaseInvoiceSlot, storeInvoice } from '#shared/store/invoices';
import { commitCheckout, findOrderIdByGuard, findOrderWithInvoice, insertOrder } from '#shared/store/orders';
import type { CreateOrderInput } from '#shared/schemas/orders';

/** The callback token under either of its names; both given must agree. */
function callbackToken(input: Pick<CreateOrderInput, 'token' | 'merchant_token'>): string {
  if (input.token !== undefined && input.merchant_token !== undefined && input.token !== input.merchant_token) {
    throw new InvalidParameterError('token and merchant_token differ: send one of them');
  }
  return input.token ?? input.merchant_token ?? '';
}

/**
 * The buyer's address as the order keeps it (the schema's format checked its shape; this is
 * the same check, for every caller, and gives the form stored and sent: the domain's A-labels).
 */
function buyerEmail(email: string | undefined): string | undefined {
  if (email === undefined) return undefined;
  const checked = checkMailbox(email);
  if ('problem' in checked) throw new InvalidParameterError(`email ${checked.problem}`);
  return checked.address;
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

/** An invoice priced but without its payment details yet (no address taken). */
type PricedInvoice = Omit<Invoice, 'payment_address' | 'payment_uri'>;

/**
 * Prices an invoice in `payCurrency` at the current rate (locked into the invoice). Rates
 * that are missing or stale fail closed. Nothing is taken yet: no address, no slot.
 */
async function priceInvoice(merchant: MerchantProfile, order: Order, payCurrency: string, now: Date): Promise<PricedInvoice> {
  assertPayable(merchant, payCurrency);
  // A source that cannot see (failing, wrong chain, behind) would take payments nobody books.
  await assertWatchedNow(merchant, payCurrency, now);
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
  const expiresAt = new Date(now.getTime() + invoiceTtlSeconds(payCurrency) * 1000);
  // Pay-per-use watching: the invoice keeps its chain polled until a while after it expires.
  const source = watchedSourceOf(merchant, payCurrency);
  if (source !== undefined) await demandWatching(source, new Date(expiresAt.getTime() + watchConfig().graceSeconds * 1000));
  return {
    // Time-ordered by when it is made, not by the request's `now` (a retry reuses that): the
    // invoice that becomes current after a lost race is the newest, and reads find it first.
    invoice_id: newTimeOrderedId(),
    order_id: order.order_id,
    user_id: order.user_id,
    merchant_order_id: order.merchant_order_id,
    pay_amount: formatDecimal(payAmountFor(price, payRate)),
    pay_currency: payCurrency,
    receive_amount: formatDecimal(receiveAmountFor(price, receiveRate)),
    receive_currency: merchant.receive_currency,
    status: 'NEW',
    created_at: now.toISOString(),
    expired_at: expiresAt.toISOString(),
    rate: {
      numerator: formatDecimal(payRate.numerator),
      denominator: formatDecimal(payRate.denominator),
      source: payRate.source,
      as_of: payRate.asOf.toISOString(),
    },
  };
}

/** Asks the payment method for the invoice's address (an HD index is taken here). */
async function withPaymentDetails(merchant: MerchantProfile, order: Order, priced: PricedInvoice, now: Date, clientIp?: string): Promise<Invoice> {
  const details = await paymentMethods().paymentDetails({
    merchant,
    orderId: order.order_id,
    invoiceId: priced.invoice_id,
    currency: priced.pay_currency,
    amount: parseDecimal(priced.pay_amount),
    description: order.title || order.description || `Order ${order.order_id}`,
    expiresAt: new Date(priced.expired_at),
    mobile: order.mobile,
    fast: order.fast,
    now,
    clientIp,
  });
  const { rate, ...fields } = priced;
  return { ...fields, ...details, rate };
}

/** Gives back what an invoice that was never shown took (its HD address index); never throws. */
async function releaseInvoice(merchant: MerchantProfile, invoice: Invoice): Promise<void> {
  try {
    await paymentMethods().releaseDetails(merchant, invoice.pay_currency, invoice);
  } catch (error) {
    // The index stays used: a gap of one address, never a reused one.
    logger.warn('could not give back an unused address', { invoice_id: invoice.invoice_id, cause: String(error) });
  }
}

/**
 * Create Order: stores a NEW order; with `pay_currency` it is checked out at once.
 * `requestKey` (the request's Idempotency-Key, hashed) is kept on the order: a retry whose
 * first try wrote the order but could not answer (the store failed after the write) gets that
 * order as its answer, where another request with the same reference is refused.
 */
export async function createOrder(merchant: MerchantProfile, input: CreateOrderInput, now: Date, clientIp?: string, requestKey?: string, made: OrderMaker = {}) {
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
  const choices = { ...input, token, pay_currency: payCurrency, email: buyerEmail(input.email) };
  let order: Order = {
    ...newOrder(identity, { amount: price, currency: priceCurrency }, choices, made.ttlSeconds ?? apiConfig().orderTtlSeconds, now),
    ...(requestKey ? { request_key: requestKey } : {}),
    ...(made.subscriptionId ? { subscription_id: made.subscriptionId, billed_by: 'SUBSCRIPTION' as const } : {}),
  };
  let invoice: Invoice | undefined;
  if (payCurrency) {
    invoice = await withPaymentDetails(merchant, order, await priceInvoice(merchant, order, payCurrency, now), now, clientIp);
    order = checkedOutWith(order, invoice);
  }
  try {
    await insertOrder(order, invoice, { guardReference: reference !== '' && !derived });
  } catch (error) {
    // The reference is taken: the transaction wrote nothing, so the address was never shown.
    if (invoice && error instanceof MerchantOrderIdExistsError) await releaseInvoice(merchant, invoice);
    if (!(error instanceof MerchantOrderIdExistsError)) throw error;
    const holder = await orderOfReference(merchant, reference, derived ? order.order_id : undefined);
    if (requestKey && holder?.order.request_key === requestKey) return { order: holder.order, invoice: holder.invoice, paymentUrl: paymentUrlFor(holder.order, holder.invoice) };
    throw referenceTaken(holder, error);
  }
  return { order, invoice, paymentUrl: paymentUrlFor(order, invoice) };
}

/** What the service itself makes an order for, beyond what a request can ask: a subscription's period (shared/services/subscriptions.ts). */
export interface OrderMaker {
  /** How long the order waits, never checked out, before it expires (default ORDER_TTL_SECONDS). */
  ttlSeconds?: number;
  subscriptionId?: string;
}

/** How often a checkout is tried again when another write moved the order first. */
const CHECKOUT_ATTEMPTS = 5;

/** The merchant's order that holds `reference` (its derived id, or the guard's), if any. */
async function orderOfReference(merchant: MerchantProfile, reference: string, derivedId: string | undefined): Promise<Found | undefined> {
  const orderId = derivedId ?? (await findOrderIdByGuard(merchant.user_id, reference));
  const found = orderId === undefined ? undefined : await findOrderWithInvoice(orderId);
  return found?.order.user_id === merchant.user_id ? found : undefined;
}

/**
 * A repeated merchant_order_id: the error carries the order that holds it, as Create Order
 * answers it, and its payment_url (MugglePay's plugins read both from this answer).
 */
function referenceTaken(holder: Found | undefined, error: MerchantOrderIdExistsError): MerchantOrderIdExistsError {
  if (!holder) return error;
  return new MerchantOrderIdExistsError({ order: createdOrderView(holder.order), payment_url: paymentUrlFor(holder.order, holder.invoice) });
}

/**
 * An invoice a checkout in its currency shows again instead of making a new one: same
 * address, same amount (its rate is locked until it expires). It must leave the buyer a
 * quarter of its payment window; a nearly expired one would expire the order with it.
 */
function reusable(invoice: Invoice, payCurrency: string, now: Date): boolean {
  if (invoice.pay_currency !== payCurrency || invoice.status !== 'NEW' || (invoice.payments?.length ?? 0) > 0) return false;
  const minimum = (invoiceTtlSeconds(payCurrency) * 1000) / 4;
  return Date.parse(invoice.expired_at) - now.getTime() >= minimum;
}

/**
 * The order's still-valid invoice in `payCurrency` that was current before (the order keeps
 * the latest one per currency), if any. An invoice that never became current (another
 * request's, still being written or discarded) is never shown.
 */
async function reusableInvoice(found: Found, payCurrency: string, now: Date): Promise<Invoice | undefined> {
  const id = found.order.shown_invoices?.[payCurrency];
  if (!id || id === found.invoice?.invoice_id) return undefined;
  const invoice = await findInvoice(found.order.order_id, id);
  return invoice && reusable(invoice, payCurrency, now) ? invoice : undefined;
}

/**
 * A new invoice for the order: priced first (a refusal takes nothing), then one of the
 * order's bounded slots, then its address. 429 TOO_MANY_INVOICES when the slots are gone.
 */
async function newInvoice(merchant: MerchantProfile, found: Found, payCurrency: string, now: Date, clientIp?: string): Promise<Invoice> {
  const priced = await priceInvoice(merchant, found.order, payCurrency, now);
  const existing = found.order.invoice_id ? 1 : 0;
  if (!(await claimInvoiceSlot(found.order.order_id, MAX_INVOICES_PER_ORDER, existing))) {
    throw new TooManyInvoicesError(MAX_INVOICES_PER_ORDER);
  }
  try {
    return await withPaymentDetails(merchant, found.order, priced, now, clientIp);
  } catch (error) {
    await releaseInvoiceSlot(found.order.order_id);
    throw error;
  }
}

/**
 * Checkout Order: picks (or switches) the payment currency of a NEW order. A currency the
 * order already has a valid invoice in gets that invoice again (nothing new is made); else a
 * new invoice is written first, then the order's conditional write makes it current, so
 * concurrent checkouts leave exactly one current invoice. Address use is bounded: a request
 * derives at most one address, whatever its retries; an order has at most
 * MAX_INVOICES_PER_ORDER invoices; an invoice that never became current (a lost race, a
 * failed write) is deleted and its address index given back.
 */
export async function checkoutOrder(merchant: MerchantProfile, orderId: unknown, code: string, now: Date, clientIp?: string) {
  if (!isId(orderId)) throw new OrderDoesNotExistError();
  const payCurrency = payCurrencyFor(code);
  /** The invoice this request made, once made (retries show it rather than make another). */
  let made: Invoice | undefined;
  let stored = false;
  /** Set while the order's write is in flight: a failure then leaves unknown whether it landed. */
  let unsure = false;
  try {
    for (let attempt = 1; attempt <= CHECKOUT_ATTEMPTS; attempt += 1) {
      const found = await findOrderWithInvoice(orderId);
      if (!found || found.order.user_id !== merchant.user_id) throw new OrderDoesNotExistError();
      if (found.order.status !== 'NEW') throw new OrderNotNewError();
      if (found.invoice && found.invoice.invoice_id !== made?.invoice_id && reusable(found.invoice, payCurrency, now)) {
        // Already current (a repeat, or a concurrent checkout in the same currency won).
        await discard(merchant, made);
        made = undefined;
        return { order: found.order, invoice: found.invoice, paymentUrl: paymentUrlFor(found.order, found.invoice) };
      }
      const previous = await reusableInvoice(found, payCurrency, now);
      const invoice = previous ?? made ?? (made = await newInvoice(merchant, found, payCurrency, now, clientIp));
      if (invoice === made && !stored) {
        await storeInvoice(made);
        stored = true;
      }
      const order = checkedOutWith(touch(found.order, now), invoice);
      unsure = true;
      const committed = await commitCheckout(found.order, order);
      unsure = false;
      if (committed) {
        if (invoice !== made) await discard(merchant, made);
        made = undefined;
        return { order, invoice, paymentUrl: paymentUrlFor(order, invoice) };
      }
    }
    throw new ConcurrentUpdateError();
  } catch (error) {
    if (!unsure) await discard(merchant, made);
    throw error;
  }
}

/**
 * Takes back an invoice this request made that never became current: deletes it and its
 * address index, gives its address back, then its slot (in that order: whoever takes the
 * slot next finds the address first, so the key's counter never moves for it). Never throws:
 * whatever it cannot undo stays (an unused invoice and address, never one shown twice).
 */
async function discard(merchant: MerchantProfile, invoice: Invoice | undefined): Promise<void> {
  if (!invoice) return;
  try {
    await discardInvoice(invoice);
    await paymentMethods().releaseDetails(merchant, invoice.pay_currency, invoice);
    await releaseInvoiceSlot(invoice.order_id);
  } catch (error) {
    logger.warn('could not discard an unused invoice', { invoice_id: invoice.invoice_id, cause: String(error) });
  }
}
