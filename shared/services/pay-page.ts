import { ExpiringCache } from '#shared/core/cache';
import type { PayCurrency } from '#shared/domain/currencies';
import { UnknownOrderError } from '#shared/domain/errors';
import { isId } from '#shared/domain/ids';
import { type MerchantProfile, profileOf } from '#shared/domain/merchant';
import type { Found, Invoice, Order } from '#shared/domain/order';
import { canBePaidIn } from '#shared/payments/availability';
import { watchedNow } from '#shared/payments/source-health';
import { offeredCurrencies } from '#shared/schemas/pay';
import { findMerchant } from '#shared/store/merchants';
import { findOrderWithInvoice } from '#shared/store/orders';

/**
 * The hosted payment page's use cases. The page has no credentials: the unguessable order id
 * is its only capability, so everything here acts as the order's own merchant and answers
 * only buyer-safe views (`payPageView` of shared/schemas/pay.ts); an unknown or malformed id is always
 * `UnknownOrderError` (404 ORDER_NOT_FOUND), never the contract's quirk bodies.
 */

/** An order as the page needs it: the order, its current invoice, its merchant's profile and what it can be paid in. */
export interface PayPage {
  order: Order;
  invoice: Invoice | undefined;
  merchant: MerchantProfile;
  /** The currencies the page offers: only those the merchant can be paid in (availability.ts). */
  currencies: PayCurrency[];
}

/** Merchant profiles change rarely; a polling page should not read one every 3 seconds. */
const profiles = new ExpiringCache<number, MerchantProfile>({ maxEntries: 1_000, maxAgeMs: 60_000 });

/** A merchant's profile for the buyer's pages (cached a minute), or undefined when there is none. */
export const buyerPageMerchant = (userId: number): Promise<MerchantProfile | undefined> =>
  profiles.getOrLoad(userId, async () => {
    const merchant = await findMerchant(userId);
    return merchant && profileOf(merchant);
  });

async function merchantOf(userId: number): Promise<MerchantProfile> {
  const profile = await buyerPageMerchant(userId);
  if (!profile) throw new UnknownOrderError();
  return profile;
}

/** What a buyer may pick now: what the merchant can be paid in and its source sees (an unhealthy one is not shown). */
export async function currenciesNow(merchant: MerchantProfile, now = new Date()): Promise<PayCurrency[]> {
  const watched = await watchedNow(merchant, now);
  return offeredCurrencies(merchant, (code) => canBePaidIn(merchant, code) && watched(code));
}

/** The page of an order just read or changed. */
export async function withMerchant(found: Found): Promise<PayPage> {
  const merchant = await merchantOf(found.order.user_id);
  return { ...found, merchant, currencies: await currenciesNow(merchant) };
}

/** The order behind a page, or UnknownOrderError (a malformed id is never looked up). */
export async function getPayPage(orderId: unknown): Promise<PayPage> {
  if (!isId(orderId)) throw new UnknownOrderError();
  const found = await findOrderWithInvoice(orderId);
  if (!found) throw new UnknownOrderError();
  return withMerchant(found);
}
