import { checkCallbackUrl } from '#shared/callbacks/ssrf';
import { apiConfig, callbackUrlConfig } from '#shared/core/config';
import { InvalidParameterError, LinkNotFoundError } from '#shared/domain/errors';
import { isId, newId } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { add, formatDecimal, parseDecimal, ZERO } from '#shared/domain/money';
import type { Order } from '#shared/domain/order';
import { countsAsPaid, keepsUnit, linkPricing, linkState, type PaymentLink, releasesUnit } from '#shared/domain/payment-link';
import { canBePaidIn } from '#shared/payments/availability';
import { offeredCurrencies } from '#shared/schemas/pay';
import { type CreateLinkBody, linkView, type ListLinksQuery, payLinkView, REMOVABLE_LINK_FIELDS, type UpdateLinkBody } from '#shared/schemas/payment-links';
import { buyerPageMerchant, currenciesNow } from '#shared/services/pay-page';
import { batchGetAll } from '#shared/store/batches';
import { orderKey } from '#shared/store/keys';
import { findOrderIdByGuard, orderFromItem } from '#shared/store/orders';
import { allVisits, findLink, insertLink, type LinkChanges, type LinkVisit, listHolds, listLinks, listVisits, updateLink } from '#shared/store/payment-links';

/**
 * Payment links: the merchant's (create, list, read, change, disable and enable; the API's
 * token routes and the portal's both run these) and the link page's read. A link that is
 * another merchant's is answered like a missing one. The buyer's order is in
 * link-orders.ts (it needs the payment methods, which only its function loads).
 */

/** The link page's address: the payment page with `?link=<id>`. */
export function linkUrl(linkId: string): string {
  const url = new URL(apiConfig().paymentPageUrl);
  url.searchParams.set('link', linkId);
  return url.toString();
}

export const merchantLinkView = (link: PaymentLink, now: Date) => linkView(link, linkUrl(link.link_id), now);

/** The currencies a merchant can be paid in (whatever the sources' health right now): what a link may offer. */
const payableBy = (merchant: MerchantProfile): string[] => offeredCurrencies(merchant, (code) => canBePaidIn(merchant, code));

/** Refuses pay currencies the merchant cannot be paid in (a link's or a plan's offer). */
export function checkCurrencies(merchant: MerchantProfile, currencies: readonly string[] | undefined): void {
  if (!currencies) return;
  const payable = payableBy(merchant);
  const refused = currencies.filter((code) => !payable.includes(code));
  if (refused.length > 0) {
    throw new InvalidParameterError(`currencies: this merchant cannot be paid in ${refused.join(', ')} (it can in ${payable.join(', ') || 'nothing yet'})`);
  }
}

function checkExpiry(expiresAt: string | undefined, now: Date): string | undefined {
  if (expiresAt === undefined) return undefined;
  const at = Date.parse(expiresAt);
  if (!Number.isFinite(at)) throw new InvalidParameterError('expires_at is not a valid time');
  if (at <= now.getTime()) throw new InvalidParameterError('expires_at must be in the future');
  return new Date(at).toISOString();
}

export function checkUrls(input: { callback_url?: string; success_url?: string }): void {
  // Callbacks go to callback_url: private networks are refused before anything is stored.
  if (input.callback_url) checkCallbackUrl(input.callback_url, { allowLoopback: callbackUrlConfig().allowLoopback });
}

/** Creates a link for the merchant: enabled, nothing sold. */
export async function createLink(merchant: MerchantProfile, input: CreateLinkBody, now: Date): Promise<PaymentLink> {
  const pricing = linkPricing(input);
  if (input.single_use && input.quantity !== undefined && input.quantity !== 1) {
    throw new InvalidParameterError('single_use means quantity 1: send one of them');
  }
  checkCurrencies(merchant, input.currencies);
  checkUrls(input);
  const quantity = input.single_use ? 1 : input.quantity;
  const expiresAt = checkExpiry(input.expires_at, now);
  const link: PaymentLink = {
    link_id: newId(),
    user_id: merchant.user_id,
    title: input.title,
    description: input.description ?? '',
    ...pricing,
    ...(input.currencies ? { currencies: [...input.currencies] } : {}),
    ...(quantity !== undefined ? { quantity } : {}),
    ...(expiresAt ? { expires_at: expiresAt } : {}),
    success_url: input.success_url ?? '',
    callback_url: input.callback_url ?? '',
    ask_email: input.ask_email ?? false,
    enabled: true,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    order_count: 0,
    reserved: 0,
  };
  await insertLink(link);
  return link;
}

/** The merchant's link, or LinkNotFoundError (another merchant's, or a malformed id, alike). */
export async function getLink(merchant: Pick<MerchantProfile, 'user_id'>, linkId: unknown): Promise<PaymentLink> {
  if (!isId(linkId)) throw new LinkNotFoundError();
  const link = await findLink(linkId);
  if (!link || link.user_id !== merchant.user_id) throw new LinkNotFoundError();
  return link;
}

/** A page's next cursor: the last sort key (`<created>#<id>`) read, opaque to the client; null on the last page. */
export const encodeCursor = (key: string | undefined) => (key ? Buffer.from(key, 'utf8').toString('base64url') : null);
const LIST_CURSOR = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[0-9a-f-]{36}$/;

/** The sort key a cursor of {@link encodeCursor} stands for, or InvalidParameterError (one this API never gave). */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (!cursor) return undefined;
  const after = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!LIST_CURSOR.test(after)) throw new InvalidParameterError('cursor is not one this API gave');
  return after;
}

/** A page of the merchant's links, newest first. */
export async function listMerchantLinks(merchant: Pick<MerchantProfile, 'user_id'>, query: ListLinksQuery) {
  const page = await listLinks(merchant.user_id, query.limit ?? 20, decodeCursor(query.cursor));
  return { links: page.links, nextCursor: encodeCursor(page.last) };
}

/** Changes the merchant's link (enabled: false disables it, true enables it again). */
export async function changeLink(merchant: MerchantProfile, linkId: unknown, input: UpdateLinkBody, now: Date): Promise<PaymentLink> {
  const link = await getLink(merchant, linkId);
  const removed = new Set<string>(input.remove ?? []);
  for (const field of REMOVABLE_LINK_FIELDS) {
    if (removed.has(field) && input[field] !== undefined) throw new InvalidParameterError(`${field} is both set and removed: send one of them`);
  }
  checkCurrencies(merchant, input.currencies);
  checkUrls(input);
  const changes: LinkChanges = {
    title: input.title,
    description: input.description,
    enabled: input.enabled,
    success_url: input.success_url,
    callback_url: input.callback_url,
    ask_email: input.ask_email,
    currencies: removed.has('currencies') ? null : input.currencies && [...input.currencies],
    quantity: removed.has('quantity') ? null : input.quantity,
    expires_at: removed.has('expires_at') ? null : checkExpiry(input.expires_at, now),
  };
  const outcome = await updateLink(merchant.user_id, link.link_id, changes, now);
  if (outcome === 'missing') throw new LinkNotFoundError();
  if (outcome === 'quantity-below-reserved') {
    throw new InvalidParameterError(`quantity must be at least ${link.reserved}: the units already sold or held by checkouts in progress`);
  }
  return outcome;
}

/** The orders of some visits (missing ones, whose creation failed or is in flight, are left out). */
async function ordersOf(visits: readonly LinkVisit[]): Promise<Order[]> {
  const ids = visits.map((visit) => visit.order_id).filter((id): id is string => id !== undefined);
  const items = await batchGetAll(ids.map(orderKey));
  const byId = new Map(items.map((item) => [orderFromItem(item).order_id, orderFromItem(item)]));
  return ids.map((id) => byId.get(id)).filter((order): order is Order => order !== undefined);
}

/** How a link has done: orders paid and their total (in the link's price currency). */
export async function linkFigures(link: PaymentLink) {
  const orders = await ordersOf(await allVisits(link.link_id));
  const paid = orders.filter((order) => countsAsPaid(order.status));
  const total = paid.reduce((sum, order) => add(sum, parseDecimal(order.price_amount)), ZERO);
  return { paid_count: paid.length, paid_total: formatDecimal(total) };
}

/** The newest orders of a link (at most `limit`), newest first. */
export async function linkOrders(link: PaymentLink, limit: number): Promise<Order[]> {
  const { visits } = await listVisits(link.link_id, limit);
  return ordersOf(visits);
}

// --- The link page -----------------------------------------------------------------------------

/** A hold whose order is still missing after this long will never get one (a function's time is far shorter). */
const ORPHAN_HOLD_MS = 5 * 60_000;
/** Holds read when a full link looks for units to give back: a page, bounded. */
const HOLDS_PER_LOOK = 100;

/**
 * The open holds of a full link, sorted: those whose unit comes back (the order expired or was
 * canceled unpaid, or was never stored) and those sold for good (paid). Reads only.
 */
export async function lookAtHolds(link: PaymentLink, merchant: MerchantProfile, now: Date) {
  const holds = await listHolds(link.link_id, HOLDS_PER_LOOK);
  await Promise.all(
    holds
      .filter((hold) => !hold.order_id)
      .map(async (hold) => {
        const id = await findOrderIdByGuard(merchant.user_id, hold.merchant_order_id);
        if (id) hold.order_id = id;
      }),
  );
  const items = await batchGetAll(
    holds.flatMap((hold) => (hold.order_id ? [orderKey(hold.order_id)] : [])),
    { consistent: true },
  );
  const orders = new Map(items.map((item) => [orderFromItem(item).order_id, orderFromItem(item)]));
  const releasable: { hold: LinkVisit; orderStored: boolean }[] = [];
  const sold: LinkVisit[] = [];
  for (const hold of holds) {
    const order = hold.order_id ? orders.get(hold.order_id) : undefined;
    if (order && keepsUnit(order.status)) sold.push(hold);
    else if (order && releasesUnit(order.status)) releasable.push({ hold, orderStored: true });
    else if (!order && now.getTime() - Date.parse(hold.created_at) > ORPHAN_HOLD_MS) releasable.push({ hold, orderStored: false });
  }
  return { releasable, sold };
}

/**
 * What the buyer sees on opening a link: nothing is made, no address taken. A full link counts
 * the units that will come back when a buyer picks a currency (it writes nothing here).
 */
export async function getLinkPage(linkId: unknown, now: Date) {
  const { link, merchant } = await buyerLink(linkId);
  let shown = link;
  if (linkState(link, now) === 'SOLD_OUT') {
    const { releasable } = await lookAtHolds(link, merchant, now);
    shown = { ...link, reserved: link.reserved - releasable.length };
  }
  return payLinkView(shown, merchant, await offeredBy(link, merchant, now), now);
}

/** The link behind a page and its merchant; a missing link, or a disabled merchant's, is not found. */
export async function buyerLink(linkId: unknown): Promise<{ link: PaymentLink; merchant: MerchantProfile }> {
  if (!isId(linkId)) throw new LinkNotFoundError();
  const link = await findLink(linkId);
  const merchant = link && (await buyerPageMerchant(link.user_id));
  if (!link || !merchant || merchant.disabled) throw new LinkNotFoundError();
  return { link, merchant };
}

/** The currencies a link offers now: its own choice (or all), among what the merchant can be paid in and seen in now. */
export async function offeredBy(link: PaymentLink, merchant: MerchantProfile, now: Date): Promise<string[]> {
  const available = await currenciesNow(merchant, now);
  return link.currencies ? available.filter((code) => link.currencies!.includes(code)) : available;
}
