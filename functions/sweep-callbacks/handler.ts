import { callbackConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { sweepDeliveries } from '#shared/callbacks/delivery-job';

/** Scheduled: re-queues callback deliveries whose queue message was lost. */
export const handler = async (): Promise<{ requeued: number }> => {
  const requeued = await sweepDeliveries(new Date(), callbackConfig().sweepGraceSeconds);
  if (requeued > 0) logger.warn('callback deliveries re-queued', { requeued });
  return { requeued };
};
