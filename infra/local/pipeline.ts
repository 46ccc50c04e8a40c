import type { LocalSqs } from '#infra/local/sqs';
import { startQueuePoller } from '#infra/local/queue-poller';
import { startStreamPoller } from '#infra/local/stream-poller';
import { isOutboxInsert } from '#shared/callbacks/outbox';

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
}

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
    // The event filter of the AWS mapping: only deliveries being inserted reach order-events.
    filter: isOutboxInsert,
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
  let sweeping: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    sweeping = sweeping.then(() => sweepDeliveries(new Date(), callbackConfig().sweepGraceSeconds)).catch(report);
  }, options.sweepSeconds * 1000);

  return async () => {
    clearInterval(timer);
    await sweeping;
    await stream.stop();
    await Promise.all(queues.map((queue) => queue.stop()));
  };
}
