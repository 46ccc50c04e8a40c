import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
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
 * The table's stream (NEW_AND_OLD_IMAGES): each order write that changed its status becomes a
 * callback delivery. Records of one batch are handled in order; the first failure and all
 * after it are reported, so Lambda retries from there (ReportBatchItemFailures).
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  for (const [index, record] of event.Records.entries()) {
    try {
      const after = orderOf(record.dynamodb?.NewImage as Image | undefined);
      if (record.eventName !== 'REMOVE' && after) {
        await recordStatusChange(orderOf(record.dynamodb?.OldImage as Image | undefined), after, new Date());
      }
    } catch (error) {
      logger.error('order event failed', { error: error as Error, eventID: record.eventID });
      return {
        batchItemFailures: event.Records.slice(index).map((failed) => ({
          itemIdentifier: failed.dynamodb?.SequenceNumber ?? '',
        })),
      };
    }
  }
  return { batchItemFailures: [] };
};
