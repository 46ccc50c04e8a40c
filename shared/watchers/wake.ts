/**
 * Waking an idle chain within seconds of a checkout. Checkout writes the chain's demand item
 * (shared/store/watch-demand.ts); the table stream, filtered to those writes, brings each one
 * here (the wake-watchers function on AWS). When the demand had run out before the write (the
 * scheduled runs only look once a minute) and no run holds the chain's lease, the chain's run
 * is started now instead of at the next scheduled minute. A busy chain (its demand was still
 * live: the scheduled runs poll it) costs no read, and no run.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { asyncInvoker } from '#shared/aws/lambda-invoke';
import { wakeConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { chainOfPartition } from '#shared/store/keys';
import { isWatchDemandChange, watchLeaseHeld } from '#shared/store/watch-demand';

/**
 * Starts one run of `chain`'s watcher (AWS: its watch-chain function, invoked asynchronously)
 * with `event` (default: a wake's); tick-watchers passes a chain's next step (shared/watchers/ticks.ts).
 */
export type WatcherStarter = (chain: string, event?: unknown) => Promise<void>;

/** What a demand change did: started a run, or why not. */
export type WakeOutcome = 'woken' | 'busy' | 'leased' | 'ignored';

/**
 * One stream record: a demand write on a chain that was idle before it, with no run holding
 * the chain, starts a run. Idempotent enough for the stream's retries: a replayed record finds
 * the lease taken by the run it started (or starts one more, which waits for the lease).
 */
export async function wakeWatcher(record: DynamoDBRecord, start: WatcherStarter, now = new Date()): Promise<WakeOutcome> {
  // The mapping's filter already dropped every other record; one it let through by mistake is skipped.
  if (!isWatchDemandChange(record)) return 'ignored';
  const chain = chainOfPartition(record.dynamodb?.Keys?.PK?.S ?? '');
  if (chain === undefined) return 'ignored';
  const before = record.dynamodb?.OldImage?.watch_until?.S;
  const writtenAt = record.dynamodb?.ApproximateCreationDateTime;
  const at = writtenAt === undefined ? now : new Date(writtenAt * 1000);
  // Its demand was live when this write came: the scheduled runs poll it already.
  if (before !== undefined && before > at.toISOString()) return 'busy';
  if (await watchLeaseHeld(chain, now)) return 'leased';
  await start(chain);
  logger.info('watcher woken', { chain });
  return 'woken';
}

let starter: WatcherStarter | undefined;

/**
 * AWS: queues one invocation of the chain's watch-chain function (WATCHER_FUNCTIONS). A chain
 * without one (a demand, or a tick left by a deployment, the stack configures no watcher for) is
 * logged and skipped: retrying could not help, and the demand stays for whatever watches the
 * chain later.
 */
export function invokeWatcher(): WatcherStarter {
  if (starter) return starter;
  const { watcherFunctions, region, lambdaEndpoint } = wakeConfig();
  const invoke = asyncInvoker({ region, ...(lambdaEndpoint ? { endpoint: lambdaEndpoint } : {}) });
  starter = async (chain, event = { source: 'wake-watchers', chain }) => {
    const name = watcherFunctions[chain];
    if (name === undefined) {
      logger.warn('a chain with demand has no watcher function to wake', { chain });
      return;
    }
    await invoke(name, event);
  };
  return starter;
}
