import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
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

/** A count's answer: allowed, or refused with the seconds until the client's window ends. */
export type Take = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * The quota key of a client address: an IPv4 address as is, an IPv6 address by its /64 (one
 * subscriber usually holds a whole /64, so keying single addresses would give it 2^64
 * quotas). An IPv4-mapped IPv6 address is its IPv4 address.
 */
export function clientAddressKey(raw: string): string {
  const address = raw.split('%', 1)[0]!; // an IPv6 zone (fe80::1%eth0) names no other client
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::', 2);
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/** A hot quota item throttled by DynamoDB is a client sending far over its quota: limited too. */
const THROTTLED = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** A count's answer: allowed with the window's count after it (this request's included), or limited. */
export type WindowTake = (Take & { allowed: true; used: number }) | Exclude<Take, { allowed: true }>;

/** The window `nowMs` falls in (windows are numbered from the epoch). */
export const windowOf = (limit: WindowLimit, nowMs: number) => Math.floor(nowMs / 1000 / limit.windowSeconds);

/**
 * Counts one request of `client` in the current window. Limited when the window already holds
 * `limit` (the condition fails and nothing changes) or when the item is throttled; other store
 * errors are thrown (the caller decides). Items expire by TTL a minute after their window.
 */
export async function takeFromWindow(client: string, limit: WindowLimit, nowMs = Date.now()): Promise<WindowTake> {
  const window = windowOf(limit, nowMs);
  const windowEnd = (window + 1) * limit.windowSeconds;
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: quotaKey(client, window),
        UpdateExpression: 'ADD used :one SET #type = :type, #expires = :expires',
        ConditionExpression: 'attribute_not_exists(used) OR used < :limit',
        ExpressionAttributeNames: { '#type': 'type', '#expires': TABLE_KEYS.ttlAttribute },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit.limit, ':type': ENTITY.quota, ':expires': windowEnd + 60 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return { allowed: true, used: Number(Attributes?.used ?? limit.limit) };
  } catch (error) {
    const name = (error as { name?: string }).name ?? '';
    if (isConditionFailure(error) || THROTTLED.has(name)) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(windowEnd - nowMs / 1000)) };
    }
    throw error;
  }
}

/**
 * What one container knows of its clients' quota windows, so that a request well inside its
 * quota need not wait for its count (docs/security.md, "Request quotas"): per client, the
 * window's count as the table last answered it and the counts sent and not yet answered. A
 * request may go ahead of its count (be answered without waiting for it) while that count,
 * the unanswered ones and the request itself come to at most half the window's limit; past
 * that, each request waits for its own count, so the table's condition decides it exactly.
 * A count that comes back limited keeps the rest of its window strict; a new window starts from
 * nothing. Other containers' requests are seen only through the answers, so a client past its
 * quota can get one request through per container whose last answer was under half (and the
 * table counts it). At most `maxClients` clients are remembered, the oldest view first out.
 */
export class WindowHeadroom {
  private readonly views = new Map<string, { window: number; used: number; unanswered: number }>();

  constructor(private readonly maxClients = 10_000) {}

  /**
   * Begins counting a request of `client` at `nowMs`: says whether the request may go ahead of
   * its count, and takes the count's answer (undefined when it could not count: nothing is
   * learnt). Until `answered` is called, the count is one of the client's unanswered ones.
   */
  begin(client: string, limit: WindowLimit, nowMs: number): { ahead: boolean; answered: (taken: WindowTake | undefined) => void } {
    const window = windowOf(limit, nowMs);
    let view = this.views.get(client);
    if (!view || view.window < window) {
      this.views.delete(client);
      if (this.views.size >= this.maxClients) this.views.delete(this.views.keys().next().value!);
      view = { window, used: 0, unanswered: 0 };
      this.views.set(client, view);
    }
    const ahead = view.window === window && (view.used + view.unanswered + 1) * 2 <= limit.limit;
    view.unanswered += 1;
    const counted = view;
    let open = true;
    const answered = (taken: WindowTake | undefined) => {
      if (!open) return;
      open = false;
      counted.unanswered -= 1;
      if (taken) counted.used = Math.max(counted.used, taken.allowed ? taken.used : limit.limit);
    };
    return { ahead, answered };
  }
}
