import { dayBefore, utcDay } from '#shared/domain/email';
import { enqueueEmailJob } from '#shared/email/queue';
import { merchantsPaidOn } from '#shared/store/emails';

/**
 * The daily summary's run (scheduled once a day, after midnight UTC): one job per merchant paid
 * the day before, on the email queue; the sender mails it to the users who chose the summary.
 * A second run the same day queues the same event ids, so nothing is sent twice.
 */
export async function queueDailySummaries(now: Date): Promise<number> {
  const day = dayBefore(utcDay(now));
  const merchants = await merchantsPaidOn(day);
  for (const merchantId of merchants) {
    await enqueueEmailJob({ event: { kind: 'daily_summary', event_id: `daily_summary.${merchantId}.${day}`, merchant_id: merchantId, date: day }, attempt: 0 });
  }
  return merchants.length;
}
