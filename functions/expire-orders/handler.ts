import { logger } from '#shared/core/logger';
import { expireDueOrders } from '#shared/services/lifecycle';

/** Scheduled (EventBridge, every minute in AWS; EXPIRY_SWEEP_SECONDS locally): expires due NEW orders. */
export const handler = async (): Promise<{ expired: number }> => {
  const expired = await expireDueOrders(new Date());
  if (expired > 0) logger.info('orders expired', { expired });
  return { expired };
};
