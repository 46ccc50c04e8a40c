import type { LocalSqs } from '#infra/local/sqs';
import { startQueuePoller } from '#infra/local/queue-poller';
import { startStreamPoller } from '#infra/local/stream-poller';
import { isOutboxInsert } from '#shared/callbacks/outbox';
import { isEmailRecord } from '#shared/email/events';
import type { EmailTransport } from '#shared/email/transport';
import { isPeriodOrderRecord } from '#shared/services/renewal-queue';

/**
 * Concurrent delivery pollers (each takes batches of up to 10 messages): Lambda starts an SQS
 * event source with five concurrent batches and scales up from there.
 */
export const DELIVERY_CONCURRENCY = 8;

export interface PipelineOptions {
  dynamodbEndpoint: string;
  tableName: string;
  sqs: LocalSqs;
  /** Where the stream poller keeps its position (survives restarts with the data). */
  checkpointFile?: string;
  /** How often the sweeper looks for deliveries whose queue message was lost. */
  sweepSeconds: number;
  onError?: (error: unknown) => void;
  /**
   * Email on (EMAIL_QUEUE_URL set): the stream's email records also reach order-events, and the
   * email queue is consumed with this transport (the runtime's SMTP server). The daily summary
   * is queued every `summarySeconds` (in AWS once a day; a second run the same day sends nothing).
   */
  email?: { transport: EmailTransport; summarySeconds: number };
}

/** Concurrent email pollers: the sender function's event source runs a few batches at once. */
export const EMAIL_CONCURRENCY = 2;

/**
 * The callback pipeline as AWS runs it, on the local parts: the table's stream, filtered as
 * the event source mapping filters it, feeds the order-events handler, the callback queue
 * feeds the delivery handler, and the sweeper runs on a timer. It sweeps once at start: the
 * emulator's queue is empty after a restart, and every delivery that was waiting for a
 * message gets one again.
 * Needs CALLBACK_QUEUE_URL, CALLBACK_DLQ_URL and SQS_ENDPOINT in the environment.
 */
export async function startCallbackPipeline(options: PipelineOptions): Promise<() => Promise<void>> {
  const { handler: orderEvents } = await import('#functions/order-events/handler');
  const { handler: deliverCallback } = await import('#functions/deliver-callback/handler');
  const { sweepDeliveries } = await import('#shared/callbacks/delivery-job');
  const { callbackConfig } = await import('#shared/core/config');
  const report = options.onError ?? ((error: unknown) => console.error('callback pipeline:', error));

  await sweepDeliveries(new Date(), 0);
  const stream = await startStreamPoller({
    endpoint: options.dynamodbEndpoint,
    tableName: options.tableName,
    handler: orderEvents,
    // The event filters of the AWS mapping: deliveries being inserted, period orders' status changes, and with email on its records.
    filter: (record) => isOutboxInsert(record) || isPeriodOrderRecord(record) || (options.email !== undefined && isEmailRecord(record)),
    checkpointFile: options.checkpointFile,
    onError: report,
  });
  // Lambda runs several delivery invocations at once when the queue fills; so do we.
  const queues = await Promise.all(
    Array.from({ length: DELIVERY_CONCURRENCY }, () =>
      startQueuePoller({
        endpoint: options.sqs.endpoint,
        queueUrl: options.sqs.callbackQueueUrl,
        handler: deliverCallback,
        onError: report,
      }),
    ),
  );
  const emails = options.email ? await startEmailSender(options.sqs, options.email, report) : async () => undefined;
  const renewals = await startRenewals(options.sqs, report);
  let sweeping: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    sweeping = sweeping.then(() => sweepDeliveries(new Date(), callbackConfig().sweepGraceSeconds)).catch(report);
  }, options.sweepSeconds * 1000);

  return async () => {
    clearInterval(timer);
    await sweeping;
    await stream.stop();
    await Promise.all(queues.map((queue) => queue.stop()));
    await emails();
    await renewals();
  };
}

/** The renewal queue's consumer (the renew-subscriptions function's). */
async function startRenewals(sqs: LocalSqs, report: (error: unknown) => void): Promise<() => Promise<void>> {
  const { handler } = await import('#functions/renew-subscriptions/handler');
  const poller = await startQueuePoller({ endpoint: sqs.endpoint, queueUrl: sqs.subscriptionQueueUrl, handler, onError: report });
  return () => poller.stop();
}

/** The email queue's consumers (the send-email function's, with the local transport) and the daily summary's timer. */
async function startEmailSender(sqs: LocalSqs, email: NonNullable<PipelineOptions['email']>, report: (error: unknown) => void): Promise<() => Promise<void>> {
  const { emailQueueHandler } = await import('#shared/email/sender');
  const { queueDailySummaries } = await import('#shared/email/summary');
  const handler = emailQueueHandler(email.transport);
  const pollers = await Promise.all(Array.from({ length: EMAIL_CONCURRENCY }, () => startQueuePoller({ endpoint: sqs.endpoint, queueUrl: sqs.emailQueueUrl, handler, onError: report })));
  let summarizing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    summarizing = summarizing.then(() => queueDailySummaries(new Date())).catch(report);
  }, email.summarySeconds * 1000);
  return async () => {
    clearInterval(timer);
    await summarizing;
    await Promise.all(pollers.map((poller) => poller.stop()));
  };
}
