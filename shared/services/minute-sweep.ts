/**
 * The every-minute sweep (the expire-orders function: EventBridge every minute in AWS,
 * EXPIRY_SWEEP_SECONDS locally): expires due orders (expiry.ts; a live gateway order is first
 * looked up at its gateway, a late notification) and numbers the orders created since the last
 * run (order-numbering.ts, Get Orders' deep offsets). Both run; either failing fails the sweep,
 * and the next one goes on where it stopped. It queues the subscriptions whose next step is due
 * (subscription-renewals.ts), and publishes how many refunds wait for an address or a payment
 * (the RefundsWaiting metric: a refund never paid stays visible).
 */
import { isGateway } from '#shared/domain/currencies';
import type { Found } from '#shared/domain/order';
import { logger } from '#shared/core/logger';
import { expireDueOrders } from '#shared/services/expiry';
import { numberNewOrders } from '#shared/services/order-numbering';
import { queueDueSubscriptions } from '#shared/services/renewal-queue';
import { publishValue } from '#shared/core/metrics';
import { waitingRefundsCensus } from '#shared/store/refunds';

/** The numbering stops after this long (the function has 50 s); the next run goes on. */
const NUMBERING_BUDGET_MS = 35_000;

/** Live gateway orders are looked up at their gateway first; the gateway code loads only then. */
async function beforeExpiry(found: Found, now: Date): Promise<'expire' | 'keep'> {
  const currency = found.invoice?.pay_currency;
  if (found.order.sandbox || !currency || !isGateway(currency)) return 'expire';
  const { settleBeforeExpiry } = await import('#shared/services/gateway-payments');
  return settleBeforeExpiry(found, now);
}

/** Publishes the refunds waiting (every merchant's; one keys-only Query of a sparse index). */
async function countWaitingRefunds(now: Date): Promise<number> {
  const census = await waitingRefundsCensus();
  publishValue('RefundsWaiting', census.count);
  if (census.oldestCreatedAt) publishValue('OldestRefundWaitingHours', Math.floor((now.getTime() - Date.parse(census.oldestCreatedAt)) / 3_600_000));
  return census.count;
}

export async function sweepMinute(now: Date): Promise<{ expired: number; numbered: number; renewals: number; refundsWaiting?: number }> {
  const [expiry, numbering, renewals, refunds] = await Promise.allSettled([
    expireDueOrders(now, {}, beforeExpiry),
    numberNewOrders(now, now.getTime() + NUMBERING_BUDGET_MS),
    queueDueSubscriptions(now),
    countWaitingRefunds(now),
  ]);
  if (expiry.status === 'rejected') throw expiry.reason;
  if (numbering.status === 'rejected') throw numbering.reason;
  if (renewals.status === 'rejected') throw renewals.reason;
  const expired = expiry.value;
  if (expired > 0) logger.info('orders expired', { expired });
  if (numbering.value.numbered > 0 || !numbering.value.complete) logger.info('orders numbered', { ...numbering.value });
  // A failed count only loses one reading of the metric.
  if (refunds.status === 'rejected') logger.warn('refunds waiting not counted', { reason: String(refunds.reason) });
  if (renewals.value.length > 0) logger.info('subscription renewals queued', { queued: renewals.value.length });
  return { expired, numbered: numbering.value.numbered, renewals: renewals.value.length, ...(refunds.status === 'fulfilled' ? { refundsWaiting: refunds.value } : {}) };
}
