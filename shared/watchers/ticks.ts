/**
 * The stepped watcher's timer ("a chain in demand is stepped, not waited on": operator-guide.md
 * "How payments are detected"). A
 * chain in demand is watched by a chain of short invocations: each one steps the chain and
 * sends the next step as an SQS message delayed by WATCH_INTERVAL_SECONDS (or less while behind,
 * more after failures). The tick-watchers function takes the message off the queue and invokes
 * the chain's watch-chain function with it (shared/watchers/stepped.ts). Lambda then bills each
 * step's work, never the wait between two steps.
 */
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { delaySeconds, sqs } from '#shared/aws/sqs';

/** One step of a chain's watch, as the queue carries it and the watcher is invoked with it. */
export interface WatchTick {
  source: 'watch-tick';
  chain: string;
  /**
   * The chain's lease holder this tick belongs to: a tick whose owner no longer holds the lease
   * (another run took over, or a twin passed it first) ends its line at its next claim.
   */
  owner: string;
  /** When `owner` claimed the lease (ISO): the line claims it again a minute later. */
  claimed_at: string;
  /** Steps in a row that failed (the backoff's exponent); 0 after a step that worked. */
  failures: number;
}

/** Sends the next tick, visible after `delaySeconds` (0 to 900). */
export type TickSender = (tick: WatchTick, delaySeconds: number) => Promise<void>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The tick in an invocation's event, or undefined when the event is not one (the minute's
 * schedule, a wake). A tick that is malformed, or for another chain than the function's, throws:
 * only our own queue sends them, so it is a bug, not input.
 */
export function tickOf(event: unknown, chain: string): WatchTick | undefined {
  if (typeof event !== 'object' || event === null || (event as { source?: unknown }).source !== 'watch-tick') return undefined;
  const tick = event as Record<string, unknown>;
  const claimed = typeof tick.claimed_at === 'string' ? Date.parse(tick.claimed_at) : Number.NaN;
  if (tick.chain !== chain || typeof tick.owner !== 'string' || !UUID.test(tick.owner) || !Number.isFinite(claimed) || !Number.isSafeInteger(tick.failures) || (tick.failures as number) < 0) {
    throw new Error(`${chain}: a watch tick that is not one of this chain's: ${JSON.stringify(event).slice(0, 300)}`);
  }
  return { source: 'watch-tick', chain, owner: tick.owner, claimed_at: new Date(claimed).toISOString(), failures: tick.failures as number };
}

/** The tick message's body as tick-watchers reads it back (JSON); undefined for anything else. */
export function tickInMessage(body: string): WatchTick | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const chain = (parsed as { chain?: unknown } | null)?.chain;
  if (typeof chain !== 'string') return undefined;
  try {
    return tickOf(parsed, chain);
  } catch {
    return undefined;
  }
}

/** A {@link TickSender} to the step timer's queue. */
export function queueTickSender(queueUrl: string): TickSender {
  return async (tick, delay) => {
    await sqs().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(tick), DelaySeconds: delaySeconds(delay) }));
  };
}
