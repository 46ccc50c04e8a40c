/**
 * The stepped watcher (shared/watchers/stepped.ts) as the AWS functions run it, for tests: one
 * invocation, the ticks it sent kept in a list, or a queue of the SQS emulator of a test's own.
 */
import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { sqs } from '#shared/aws/sqs';
import { type StepOptions, watchChainStep } from '#shared/watchers/stepped';
import { tickInMessage, type TickSender, type WatchTick } from '#shared/watchers/ticks';

export interface SentTick {
  tick: WatchTick;
  delaySeconds: number;
}

/** A sender that keeps what it was given. */
export function keptTicks(): { sent: SentTick[]; send: TickSender } {
  const sent: SentTick[] = [];
  return { sent, send: async (tick, delaySeconds) => void sent.push({ tick, delaySeconds }) };
}

/** One invocation of `chain`'s watcher by the schedule or a wake (`tick` undefined) or by a tick. */
export function invokeWatcherOnce(chain: string, tick?: WatchTick, options: Partial<StepOptions> = {}) {
  return watchChainStep(chain, tick, { send: options.send ?? keptTicks().send, budgetMs: 5_000, ...options });
}

/** A fresh queue on the test run's SQS emulator (SQS_ENDPOINT), its URL. */
export async function freshQueue(name = `ticks-${randomUUID()}`): Promise<string> {
  const { QueueUrl } = await sqs().send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '30' } }));
  return QueueUrl!;
}

/** The ticks on `queueUrl` that are visible within `waitSeconds` (taken off the queue's visibility, not deleted). */
export async function receiveTicks(queueUrl: string, waitSeconds = 2): Promise<WatchTick[]> {
  const { Messages } = await sqs().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: waitSeconds }));
  return (Messages ?? []).map((message) => tickInMessage(message.Body ?? '')).filter((tick): tick is WatchTick => tick !== undefined);
}

/**
 * The BTC watch-chain function's environment as the stack sets it, and tick-watchers'
 * (WATCHER_FUNCTIONS): the function `watch-chain-btc` behind a Lambda API at `lambdaEndpoint`,
 * an Esplora source at `esploraUrl`, one confirmation, a step a second.
 */
export function steppedBtcEnv(options: { table: string; lambdaEndpoint: string; esploraUrl: string; tickQueueUrl?: string }): Record<string, string> {
  return {
    TABLE_NAME: options.table,
    WATCH_CHAIN: 'BTC',
    ...(options.tickQueueUrl ? { WATCH_TICK_QUEUE_URL: options.tickQueueUrl } : {}),
    WATCHER_FUNCTIONS: JSON.stringify({ BTC: 'watch-chain-btc' }),
    LAMBDA_ENDPOINT: options.lambdaEndpoint,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    BTC_ESPLORA_URL: options.esploraUrl,
    BTC_CONFIRMATIONS: '1',
    WATCH_INTERVAL_SECONDS: '1',
  };
}
