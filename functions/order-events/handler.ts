import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Order } from '#shared/domain/order';
import { logger } from '#shared/http/logger';
import { recordStatusChange } from '#shared/services/callbacks';
import { ENTITY } from '#shared/store/keys';

type Image = Record<string, AttributeValue>;

const orderOf = (image: Image | undefined): Order | undefined => {
  if (!image) return undefined;
  const item = unmarshall(image);
  return item.type === ENTITY.order ? (item as Order) : undefined;
};

/**
 * The table's stream (NEW_AND_OLD_IMAGES): each order write that changed its status gets its
 * callback queued. Records of different orders are handled concurrently, those of one order
 * in stream order. On a failure, that record and every record after it in the batch are
 * reported (ReportBatchItemFailures), so Lambda retries from there; handling is idempotent,
 * so records after it that did succeed are harmless to repeat.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const byOrder = new Map<string, { index: number; record: DynamoDBRecord }[]>();
  event.Records.forEach((record, index) => {
    const key = JSON.stringify(record.dynamodb?.Keys ?? index);
    byOrder.set(key, [...(byOrder.get(key) ?? []), { index, record }]);
  });
  const failedAt = await Promise.all(
    [...byOrder.values()].map(async (records) => {
      for (const { index, record } of records) {
        try {
          const after = orderOf(record.dynamodb?.NewImage as Image | undefined);
          if (record.eventName !== 'REMOVE' && after) {
            await recordStatusChange(orderOf(record.dynamodb?.OldImage as Image | undefined), after, new Date());
          }
        } catch (error) {
          logger.error('order event failed', { error: error as Error, eventID: record.eventID });
          return index;
        }
      }
      return undefined;
    }),
  );
  const first = Math.min(...failedAt.filter((index): index is number => index !== undefined));
  if (!Number.isFinite(first)) return { batchItemFailures: [] };
  return {
    batchItemFailures: event.Records.slice(first).map((failed) => ({ itemIdentifier: failed.dynamodb?.SequenceNumber ?? '' })),
  };
};
