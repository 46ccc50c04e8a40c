import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Take } from '#shared/core/token-bucket';
import { db, tableName } from '#shared/store/client';
import { isConditionFailure } from '#shared/store/errors';
import { ENTITY, quotaKey } from '#shared/store/keys';
import { TABLE_KEYS } from '#shared/store/table';

/**
 * A request quota as the table keeps it: at most `limit` requests in each fixed window of
 * `windowSeconds`. One conditional UpdateItem per request (1 WRU, no read, no retry loop), which
 * is what makes it cheaper than a token bucket kept in the table (a read and a conditional
 * write, retried on contention). Its burst is up to twice `limit` across a window's edge.
 */
export interface WindowLimit {
  limit: number;
  windowSeconds: number;
}

/**
 * The window of a rate and burst: as long as the burst takes to refill (at least 1 s), and the
 * requests the rate allows in it, so the average is the rate and a full window is the burst.
 */
export function windowLimit(rate: number, burst: number): WindowLimit {
  const windowSeconds = Math.max(1, Math.ceil(burst / rate));
  return { limit: rate * windowSeconds, windowSeconds };
}

/** A hot quota item throttled by DynamoDB is a client sending far over its quota: limited too. */
const THROTTLED = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/**
 * Counts one request of `client` in the current window. Limited when the window already holds
 * `limit` (the condition fails and nothing changes) or when the item is throttled; other store
 * errors are thrown (the caller decides). Items expire by TTL a minute after their window.
 */
export async function takeFromWindow(client: string, limit: WindowLimit, nowMs = Date.now()): Promise<Take> {
  const window = Math.floor(nowMs / 1000 / limit.windowSeconds);
  const windowEnd = (window + 1) * limit.windowSeconds;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: quotaKey(client, window),
        UpdateExpression: 'ADD used :one SET #type = :type, #expires = :expires',
        ConditionExpression: 'attribute_not_exists(used) OR used < :limit',
        ExpressionAttributeNames: { '#type': 'type', '#expires': TABLE_KEYS.ttlAttribute },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit.limit, ':type': ENTITY.quota, ':expires': windowEnd + 60 },
      }),
    );
    return { allowed: true };
  } catch (error) {
    const name = (error as { name?: string }).name ?? '';
    if (isConditionFailure(error) || THROTTLED.has(name)) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(windowEnd - nowMs / 1000)) };
    }
    throw error;
  }
}
