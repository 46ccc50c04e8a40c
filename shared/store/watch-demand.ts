/**
 * Pay-per-use watching: a chain is polled only while something needs it. Checkout extends the
 * chain's demand (`watch_until`, one conditional UpdateItem per invoice); a scheduled run with
 * no demand left and no payment maturing on the chain only looks at the source once and stops.
 * A lease lets one run poll a chain at a time, so a run woken by a checkout and the scheduled
 * one never both pay for polling.
 *
 * The demand item's changes are what wakes an idle chain within seconds: the table stream,
 * filtered to them ({@link WATCH_DEMAND_PATTERN}), reaches the wake-watchers function
 * (shared/watchers/wake.ts), which starts the chain's run at once unless one is polling.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { type FilterPattern, filterPredicate } from '#shared/aws/lambda-event-filter';
import { db, tableName } from '#shared/store/client';
import { putIf, updateIf } from '#shared/store/conditional';
import { chainPartition, ENTITY, MATURING_PREFIX, watchDemandKey, watchLeaseKey } from '#shared/store/keys';

/**
 * Demand is stored rounded up to this step: every checkout of the same few minutes asks for the
 * same `watch_until`, so a busy chain's item (and with it the stream and the wake function)
 * changes at most once per step, while the first checkout on an idle chain always changes it.
 */
export const DEMAND_STEP_MS = 5 * 60_000;

/** `until` rounded up to the next {@link DEMAND_STEP_MS} boundary (unchanged when on one). */
export const demandHorizon = (until: Date): Date => new Date(Math.ceil(until.getTime() / DEMAND_STEP_MS) * DEMAND_STEP_MS);

/**
 * Keeps `chain` watched until at least `until`, rounded up ({@link demandHorizon}); a later
 * demand already stored stays. The write is refused (and nothing reaches the stream) when the
 * stored demand already reaches that far.
 */
export async function demandWatching(chain: string, until: Date): Promise<void> {
  await updateIf(watchDemandKey(chain), {
    UpdateExpression: 'SET watch_until = :until, #type = :type',
    ConditionExpression: 'attribute_not_exists(watch_until) OR watch_until < :until',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':until': demandHorizon(until).toISOString(), ':type': ENTITY.watchDemand },
  });
}

/**
 * The table stream records that may wake a chain: a demand item written (the first demand of a
 * chain is an INSERT, every later one a MODIFY). The CDK event source mapping of wake-watchers
 * (FilterCriteria) uses this pattern, so no other write to the table invokes the function (the
 * local runtime polls every chain all the time and has nothing to wake; bench/wake.ts filters its
 * local stream poller with {@link isWatchDemandChange}).
 */
export const WATCH_DEMAND_PATTERN = {
  eventName: ['INSERT', 'MODIFY'],
  dynamodb: { NewImage: { type: { S: [ENTITY.watchDemand] } } },
} as const satisfies FilterPattern;

/** Whether a stream record is a demand change (see {@link WATCH_DEMAND_PATTERN}). */
export const isWatchDemandChange: (record: unknown) => boolean = filterPredicate(WATCH_DEMAND_PATTERN);

/**
 * Whether `chain` must be polled at `now`: an invoice's demand has not run out, or a payment
 * booked from a block still waits for its confirmations. Two small reads (1 read unit).
 */
export async function watchingNeeded(chain: string, now: Date): Promise<boolean> {
  const [demand, maturing] = await Promise.all([
    db().send(new GetCommand({ TableName: tableName(), Key: watchDemandKey(chain), ProjectionExpression: 'watch_until' })),
    db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': chainPartition(chain), ':prefix': MATURING_PREFIX },
        Limit: 1,
        ProjectionExpression: 'SK',
      }),
    ),
  ]);
  const until = demand.Item?.watch_until;
  return (typeof until === 'string' && until > now.toISOString()) || (maturing.Items?.length ?? 0) > 0;
}

/**
 * Takes (or renews) the right to poll `chain` until `until` for `owner` (a run's id): true when
 * it is ours, false while another run holds an unexpired lease.
 */
export async function takeWatchLease(chain: string, owner: string, until: Date, now: Date): Promise<boolean> {
  const outcome = await putIf(
    { ...watchLeaseKey(chain), type: ENTITY.watchLease, owner, lease_until: until.toISOString() },
    {
      ConditionExpression: 'attribute_not_exists(lease_until) OR lease_until < :now OR #owner = :owner',
      ExpressionAttributeNames: { '#owner': 'owner' },
      ExpressionAttributeValues: { ':now': now.toISOString(), ':owner': owner },
    },
  );
  return outcome.written;
}

/**
 * Hands `chain`'s lease from `from` to `to` until `until` (the stepped watcher's claim, once a
 * minute: shared/watchers/stepped.ts): true when `from` still held it (expired or not: nobody
 * took it since), false when another run took it or a twin of this run passed it first.
 * `to` is a fresh id of this claim's own, so finding it already there means this very write
 * landed: the SDK tried again an attempt whose answer was lost (a reset, a timeout). Without
 * that, the retry failed its own condition and the line ended as superseded, its new owner
 * holding the lease with no tick until it expired (issue 43).
 */
export async function passWatchLease(chain: string, from: string, to: string, until: Date): Promise<boolean> {
  return updateIf(watchLeaseKey(chain), {
    UpdateExpression: 'SET #owner = :to, lease_until = :until',
    ConditionExpression: '#owner = :from OR #owner = :to',
    ExpressionAttributeNames: { '#owner': 'owner' },
    ExpressionAttributeValues: { ':from': from, ':to': to, ':until': until.toISOString() },
  });
}

/**
 * Whether a run holds `chain`'s lease at `now` (it polls the chain). One eventually consistent
 * GetItem of the lease's `lease_until` only (0.5 read unit): the wake function's IAM lets it
 * read nothing else.
 */
export async function watchLeaseHeld(chain: string, now: Date): Promise<boolean> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: watchLeaseKey(chain), ProjectionExpression: 'lease_until' }));
  const until = Item?.lease_until;
  return typeof until === 'string' && until >= now.toISOString();
}

/** Gives the lease back at the end of a run (only if it is still ours), so a woken run may start at once. */
export async function releaseWatchLease(chain: string, owner: string): Promise<void> {
  await updateIf(watchLeaseKey(chain), {
    UpdateExpression: 'SET lease_until = :past',
    ConditionExpression: '#owner = :owner',
    ExpressionAttributeNames: { '#owner': 'owner' },
    ExpressionAttributeValues: { ':owner': owner, ':past': new Date(0).toISOString() },
  });
}
