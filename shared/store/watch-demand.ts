/**
 * Pay-per-use watching: a chain is polled only while something needs it. Checkout extends the
 * chain's demand (`watch_until`, one conditional UpdateItem per invoice); a scheduled run with
 * no demand left and no payment maturing on the chain only looks at the source once and stops.
 * A lease lets one run poll a chain at a time, so a run woken by a checkout and the scheduled
 * one never both pay for polling.
 */
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '#shared/store/client';
import { putIf, updateIf } from '#shared/store/conditional';
import { chainPartition, ENTITY, MATURING_PREFIX, watchDemandKey, watchLeaseKey } from '#shared/store/keys';

/** Keeps `chain` watched until at least `until` (a later demand already stored stays). */
export async function demandWatching(chain: string, until: Date): Promise<void> {
  await updateIf(watchDemandKey(chain), {
    UpdateExpression: 'SET watch_until = :until, #type = :type',
    ConditionExpression: 'attribute_not_exists(watch_until) OR watch_until < :until',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':until': until.toISOString(), ':type': ENTITY.watchDemand },
  });
}

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

/** Gives the lease back at the end of a run (only if it is still ours), so a woken run may start at once. */
export async function releaseWatchLease(chain: string, owner: string): Promise<void> {
  await updateIf(watchLeaseKey(chain), {
    UpdateExpression: 'SET lease_until = :past',
    ConditionExpression: '#owner = :owner',
    ExpressionAttributeNames: { '#owner': 'owner' },
    ExpressionAttributeValues: { ':owner': owner, ':past': new Date(0).toISOString() },
  });
}
