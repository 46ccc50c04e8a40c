import { isGateway } from '#shared/domain/currencies';
import { logger } from '#shared/core/logger';
import { expireDueOrders } from '#shared/services/expiry';
import type { Found } from '#shared/domain/order';

/** Live gateway orders are looked up at their gateway first; the gateway code loads only then. */
async function beforeExpiry(found: Found, now: Date): Promise<'expire' | 'keep'> {
  const currency = found.invoice?.pay_currency;
  if (found.order.sandbox || !currency || !isGateway(currency)) return 'expire';
  const { settleBeforeExpiry } = await import('#shared/services/gateway-payments');
  return settleBeforeExpiry(found, now);
}

/**
 * Scheduled (EventBridge, every minute in AWS; EXPIRY_SWEEP_SECONDS locally): expires due NEW
 * orders; a live gateway order is first looked up at its gateway (a late notification).
 */
export const handler = async (): Promise<{ expired: number }> => {
  const expired = await expireDueOrders(new Date(), {}, beforeExpiry);
  if (expired > 0) logger.info('orders expired', { expired });
  return { expired };
};
