import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handleQueueBatch } from '#shared/aws/lambda-batches';
import { logger } from '#shared/core/logger';
import { tickInMessage } from '#shared/watchers/ticks';
import { invokeWatcher } from '#shared/watchers/wake';

/**
 * The step timer's queue (shared/watchers/ticks.ts): each message is a chain's next step, due
 * now; it invokes that chain's watch-chain function with it (asynchronously). A message that is
 * not a tick is dropped (logged); an invocation the Lambda API refused comes back after the
 * queue's visibility timeout.
 */
export const handler = (event: SQSEvent): Promise<SQSBatchResponse> =>
  handleQueueBatch(event, 'watch tick', async (record) => {
    const tick = tickInMessage(record.body);
    if (!tick) {
      logger.error('a message on the watch tick queue is not a tick', { messageId: record.messageId });
      return 'done';
    }
    await invokeWatcher()(tick.chain, tick);
    return 'done';
  });
