/**
 * One handler call of the local stream poller (infra/local/stream-poller.ts), as the Lambda
 * event source mapping makes it: a page of one shard's records turned into Lambda's records,
 * the mapping's event filter applied, and the handler's ReportBatchItemFailures answer read
 * into the first record to retry. Where the shard goes on from is its bookkeeping's
 * (infra/local/stream-shards.ts).
 */
import type { _Record as SdkRecord } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { toLambdaRecord } from '#infra/local/stream-records';

/** The function a stream's records are handed to, and how. */
export interface BatchTarget {
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
  /** The mapping's event filtering: only records it accepts reach the handler. Default: every record. */
  filter?: (record: DynamoDBRecord) => boolean;
  streamArn: string;
  region: string;
  onError: (error: unknown) => void;
}

/** What one call made of a page: the records' sequence numbers, and the index in the page of the first to retry (-1: none). */
export interface BatchOutcome {
  sequenceNumbers: string[];
  firstFailed: number;
}

/**
 * Hands the records the filter accepts to the handler in one event (none accepted: no call).
 * A handler that throws fails the whole batch, from its first record handed over; the records
 * the filter dropped count as handled, as in Lambda.
 */
export async function invokeBatch(records: readonly SdkRecord[], target: BatchTarget): Promise<BatchOutcome> {
  const lambdaRecords = records.map((record) => toLambdaRecord(record, target.streamArn, target.region));
  const sequenceNumbers = records.map((record) => record.dynamodb?.SequenceNumber ?? '');
  // Indexes (in the page) of the records the filter lets through to the handler.
  const selected = lambdaRecords.flatMap((record, index) => (!target.filter || target.filter(record) ? [index] : []));
  if (selected.length === 0) return { sequenceNumbers, firstFailed: -1 };
  try {
    const event: DynamoDBStreamEvent = { Records: selected.map((index) => lambdaRecords[index]!) };
    const failed = firstFailedIndex(
      await target.handler(event),
      selected.map((index) => sequenceNumbers[index]!),
    );
    return { sequenceNumbers, firstFailed: failed === -1 ? -1 : selected[failed]! };
  } catch (error) {
    target.onError(error);
    return { sequenceNumbers, firstFailed: selected[0]! };
  }
}

/**
 * Index of the first record to retry, from a handler's answer: -1 when all succeeded. As in
 * Lambda, a failure naming no record of the batch fails the whole batch.
 */
function firstFailedIndex(result: DynamoDBBatchResponse | void, sequenceNumbers: string[]): number {
  const failures = result?.batchItemFailures ?? [];
  if (failures.length === 0) return -1;
  let first = sequenceNumbers.length;
  for (const failure of failures) {
    const index = failure.itemIdentifier ? sequenceNumbers.indexOf(failure.itemIdentifier) : -1;
    if (index === -1) return 0;
    first = Math.min(first, index);
  }
  return first;
}
