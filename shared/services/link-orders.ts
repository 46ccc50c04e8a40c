import { logger } from '#shared/core/logger';
import { InvalidParameterError, ParametersMissingError, PaymentNotAvailableError } from '#shared/domain/errors';
import { newTimeOrderedId, orderIdFor } from '#shared/domain/ids';
import type { MerchantProfile } from '#shared/domain/merchant';
import { assertOpen, linkReference, linkState, orderPriceOf, type PaymentLink } from '#shared/domain/payment-link';
import type { LinkOrderBody } from '#shared/schemas/payment-links';
import { createOrder } from '#shared/services/orders';
import { buyerLink, lookAtHolds, offeredBy } from '#shared/services/payment-links';
import { findLink, findRequestVisit, type LinkVisit, openVisit, recordVisitOrder, releaseHold, settleHold, undoVisit } from '#shared/store/payment-links';

/**
 * The buyer's order from a payment link: the one link action that makes something. It counts
 * the order on the link (and holds a unit, on links with a quantity) in one conditional
 * transaction, so however many buyers come at once no more orders get through than the link
 * has units; then it creates an ordinary order, checked out at once in the buyer's currency,
 * as the link's merchant. A creation that fails gives the count and the unit back.
 */

/**
 * Gives back the units of a full link whose orders expired or were canceled unpaid, and drops
 * the holds of units sold for good (so the next look reads fewer). How many came back.
 */
export async function giveBackUnits(link: PaymentLink, merchant: MerchantProfile, now: Date): Promise<number> {
  const { releasable, sold } = await lookAtHolds(link, merchant, now);
  await Promise.all(sold.map(settleHold));
  let released = 0;
  for (const { hold, orderStored } of releasable) released += Number(await releaseHold(hold, orderStored));
  return released;
}

/** Opens the buyer's visit; a full link first gives back what it can, then tries once more. */
async function open(link: PaymentLink, merchant: MerchantProfile, visit: LinkVisit, now: Date, requestKey?: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    visit.held = link.quantity !== undefined;
    if (await openVisit(link, visit, now, requestKey)) return;
    // Refused: read the link again to say why (disabled, expired or full; gone reads as not found).
    const fresh = (await findLink(link.link_id)) ?? link;
    const state = linkState(fresh, now);
    // Tried again whatever this one gave back: another buyer may have given back the same units
    // a moment before (they are then free, and this look finds none left to give back).
    if (state === 'SOLD_OUT' && attempt === 1) {
      await giveBackUnits(fresh, merchant, now);
      continue;
    }
    // OPEN: the quantity was set or removed in between; once more with the link as it is now.
    if (state === 'OPEN' && attempt === 1) {
      link = fresh;
      continue;
    }
    assertOpen(state === 'OPEN' ? 'SOLD_OUT' : state);
  }
}

/**
 * A buyer's order from the link `linkId`: in `pay_currency` (one the link offers now), for the
 * link's price or the buyer's `amount` (within its bounds), with the buyer's `email` when the
 * link asks for one. Answers the order and its payment page.
 */
export async function createLinkOrder(linkId: unknown, input: LinkOrderBody, now: Date, clientIp?: string, requestKey?: string) {
  const { link, merchant } = await buyerLink(linkId);
  // A full link may have units to give back: open() looks.
  const state = linkState(link, now);
  if (state !== 'SOLD_OUT') assertOpen(state);
  const price = orderPriceOf(link, input.amount);
  if (link.ask_email && !input.email) throw new ParametersMissingError('email');
  if (!link.ask_email && input.email) throw new InvalidParameterError('email: this link does not ask for one');
  const offered = await offeredBy(link, merchant, now);
  if (!offered.includes(input.pay_currency)) {
    throw new PaymentNotAvailableError(`pay_currency: this link takes ${offered.join(', ') || 'no currency right now'}`);
  }
  // A retry (the same Idempotency-Key) whose first try opened its visit goes on with that visit and its unit.
  const earlier = requestKey ? await findRequestVisit(link.link_id, requestKey) : undefined;
  const visitId = earlier?.visit_id ?? newTimeOrderedId(now.getTime());
  const reference = linkReference(link.link_id, visitId);
  const visit: LinkVisit = earlier ?? {
    visit_id: visitId,
    link_id: link.link_id,
    merchant_order_id: reference,
    ...(merchant.order_id_key ? { order_id: orderIdFor(merchant.order_id_key, merchant.user_id, reference) } : {}),
    created_at: now.toISOString(),
    held: false,
  };
  if (!earlier) await open(link, merchant, visit, now, requestKey);
  let created;
  try {
    created = await createOrder(
      merchant,
      {
        merchant_order_id: reference,
        price_amount: price,
        price_currency: link.price_currency,
        pay_currency: input.pay_currency,
        title: link.title,
        description: link.description,
        success_url: link.success_url,
        callback_url: link.callback_url,
        ...(input.email ? { email: input.email } : {}),
      },
      now,
      clientIp,
      requestKey,
    );
  } catch (error) {
    // No order: the count and the unit go back (on the condition that no order has the id).
    const undone = await undoVisit(visit, requestKey).catch(() => false);
    if (!undone) logger.warn('a payment link visit was not taken back', { link_id: link.link_id, visit_id: visitId });
    throw error;
  }
  if (!visit.order_id) await recordVisitOrder(visit, created.order.order_id);
  return { order: created.order, paymentUrl: created.paymentUrl };
}
