import { logger } from '#shared/core/logger';
import { queueDailySummaries } from '#shared/email/summary';

/** Scheduled after midnight UTC: the day before's payment summaries, one job per merchant paid. */
export const handler = async (): Promise<{ merchants: number }> => {
  const merchants = await queueDailySummaries(new Date());
  logger.info('daily summaries queued', { merchants });
  return { merchants };
};
