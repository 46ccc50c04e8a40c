import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { handleStreamBatch } from '#shared/aws/lambda-batches';
import { invokeWatcher, wakeWatcher } from '#shared/watchers/wake';

/**
 * The table's stream, filtered by the event source mapping to writes of a chain's watch demand
 * (WATCH_DEMAND_PATTERN): an idle chain's first checkout starts its watch-chain function now,
 * not at the next scheduled minute.
 */
export const handler = (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> =>
  handleStreamBatch(event, 'watcher wake', async (record) => {
    await wakeWatcher(record, invokeWatcher());
  });
