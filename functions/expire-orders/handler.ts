import { logger } from '#shared/http/logger';
import { settleBeforeExpiry } from '#shared/services/gateway-payments';
import { expireDueOrders } from '#shared/services/lifecycle';

/**
 * Scheduled (EventBridge, every minute in AWS; EXPIRY_SWEEP_SECONDS locally): expires due NEW
 * orders; a live gateway order is first looked up at its gateway (a late notification).
 */
export const handler = async (): Promise<{ expired: number }> => {
  const expired = await expireDueOrders(new Date(), 100, settleBeforeExpiry);
  if (expired > 0) logger.info('orders expired', { expired });
  return { expired };
};
