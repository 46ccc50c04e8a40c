import { OrderDoesNotExistError, OrderNotNewError, SandboxOnlyError, UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Invoice, Order } from '#shared/domain/order';
import { cancelOrder } from '#shared/services/lifecycle';
import type { Found } from '#shared/services/order-changes';
import { checkoutOrder } from '#shared/services/orders';
import { simulatePayment } from '#shared/services/sandbox';
import { findMerchant } from '#shared/store/merchants';
import { findOrderWithInvoice } from '#shared/store/orders';

/**
 * The hosted payment page's use cases. The page has no credentials: the unguessable order id
 * is its only capability, so everything here acts as the order's own merchant and answers
 * only buyer-safe views (`payPageView` of shared/schemas/pay.ts); an unknown or malformed id is always
 * `UnknownOrderError` (404 ORDER_NOT_FOUND), never the contract's quirk bodies.
 */

/** An order as the page needs it: the order, its current invoice and its merchant's profile. */
export interface PayPage {
  order: Order;
  invoice: Invoice | undefined;
  merchant: MerchantProfile;
}

/** Merchant profiles change rarely; a polling page should not read one every 3 seconds. */
const PROFILE_CACHE_MS = 60_000;
const PROFILE_CACHE_MAX = 1_000;
const profiles = new Map<number, { profile: MerchantProfile; at: number }>();

async function merchantOf(userId: number): Promise<MerchantProfile> {
  const cached = profiles.get(userId);
  if (cached && Date.now() - cached.at < PROFILE_CACHE_MS) return cached.profile;
  const merchant = await findMerchant(userId);
  if (!merchant) throw new UnknownOrderError();
  // The stored merchant carries its callback secret and token hash: keep only the profile.
  const { token_hash: _hash, callback_secret: _secret, ...profile } = merchant;
  if (profiles.size >= PROFILE_CACHE_MAX) profiles.clear();
  profiles.set(userId, { profile, at: Date.now() });
  return profile;
}

async function withMerchant(found: Found): Promise<PayPage> {
  return { ...found, merchant: await merchantOf(found.order.user_id) };
}

/** The order behind a page, or UnknownOrderError (a malformed id is never looked up). */
export async function getPayPage(orderId: unknown): Promise<PayPage> {
  if (!isId(orderId)) throw new UnknownOrderError();
  const found = await findOrderWithInvoice(orderId);
  if (!found) throw new UnknownOrderError();
  return withMerchant(found);
}

/** The buyer picks (or switches) the currency of a NEW order: Checkout Order as its merchant. */
export async function checkoutPayPage(orderId: unknown, payCurrency: string, now: Date): Promise<PayPage> {
  const { merchant } = await getPayPage(orderId);
  try {
    const { order, invoice } = await checkoutOrder(merchant, orderId, payCurrency, now);
    return { order, invoice, merchant };
  } catch (error) {
    // Checkout's own not-found is the contract's 422 quirk; the page's endpoints say 404.
    throw error instanceof OrderDoesNotExistError ? new UnknownOrderError() : error;
  }
}

/** The buyer cancels a NEW order. */
export async function cancelPayPage(orderId: unknown, now: Date): Promise<PayPage> {
  return withMerchant(await cancelOrder(undefined, orderId, now));
}

/**
 * Sandbox orders only: pays the current invoice in full with enough confirmations, as the
 * merchant's sandbox endpoint does. The transaction id is the invoice's, so a double click
 * (or a retry) is one payment, never an overpayment.
 */
export async function simulatePayPagePayment(orderId: unknown, now: Date): Promise<PayPage> {
  const page = await getPayPage(orderId);
  if (!page.order.sandbox || !page.merchant.sandbox) throw new SandboxOnlyError();
  const txid = `sandbox-page-${page.invoice?.invoice_id ?? 'none'}`;
  const repeated = page.invoice?.payments?.some((payment) => payment.txid === txid) ?? false;
  // Only a NEW order is paid; repeating the page's own payment is answered as it stands.
  if (page.order.status !== 'NEW' && !repeated) throw new OrderNotNewError();
  return withMerchant(await simulatePayment(page.merchant, orderId, { txid }, now));
}
