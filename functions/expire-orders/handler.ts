import { isGateway } from '#shared/domain/currencies';
import { logger } from '#shared/core/logger';
import { expireDueOrders } from '#shared/services/expiry';
import { numberNewOrders } from '#shared/services/order-numbering';
import type { Found } from '#shared/domain/order';

/** Live gateway orders are looked up at their gateway first; the gateway code loads only then. */
async function beforeExpiry(found: Found, now: Date): Promise<'expire' | 'keep'> {
  const currency = found.invoice?.pay_currency;
  if (found.order.sandbox || !currency || !isGateway(currency)) return 'expire';
  const { settleBeforeExpiry } = await import('#shared/services/gateway-payments');
  return settleBeforeExpiry(found, now);
}

/** The numbering stops after this long (the function has 50 s); the next run goes on. */
const NUMBERING_BUDGET_MS = 35_000;

/**
 * Scheduled (EventBridge, every minute in AWS; EXPIRY_SWEEP_SECONDS locally): expires due NEW
 * orders (a live gateway order is first looked up at its gateway) and numbers the orders
 * created since the last run (Get Orders' deep offsets). Both run; either failing fails the run.
 */
export const handler = async (): Promise<{ expired: number; numbered: number }> => {
  const now = new Date();
  const [expiry, numbering] = await Promise.allSettled([
    expireDueOrders(now, {}, beforeExpiry),
    numberNewOrders(now, now.getTime() + NUMBERING_BUDGET_MS),
  ]);
  if (expiry.status === 'rejected') throw expiry.reason;
  if (numbering.status === 'rejected') throw numbering.reason;
  const expired = expiry.value;
  if (expired > 0) logger.info('orders expired', { expired });
  if (numbering.value.numbered > 0 || !numbering.value.complete) logger.info('orders numbered', { ...numbering.value });
  return { expired, numbered: numbering.value.numbered };
};
