/**
 * The local runtime's reader of the table's stream, in place of the Lambda event source mapping
 * of the order-events function. This file is the polling loop (rounds over the readable
 * shards, the pause when nothing came, drain and stop); the shards' iterators, checkpoints and
 * backoff are in stream-shards.ts, the checkpoint file in stream-checkpoints.ts, one handler
 * call with the event filter in stream-batches.ts, and the records as Lambda delivers them in
 * stream-records.ts.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { LOCAL_AWS_ENV } from '#infra/local/dynamodb';
import { type BatchTarget, invokeBatch } from '#infra/local/stream-batches';
import { CheckpointFile } from '#infra/local/stream-checkpoints';
import { readableShards, type ShardReadEnd, type ShardState, StreamShards } from '#infra/local/stream-shards';

export interface StreamPollerOptions {
  /** DynamoDB Local's endpoint (it serves the Streams API on the same port). */
  endpoint: string;
  tableName: string;
  /** The order-events Lambda handler, called as the Lambda event source mapping calls it. */
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
  /**
   * The mapping's event filtering: only records it accepts reach the handler (a batch left
   * with none is not handed over at all); the others count as handled, as in Lambda, and the
   * checkpoint moves past them. Default: every record.
   */
  filter?: (record: DynamoDBRecord) => boolean;
  /** JSON file `{ [shardId]: sequenceNumber }` of the last record handled per shard. */
  checkpointFile?: string;
  /** Records per handler call, from one shard (GetRecords returns at most 1000). */
  batchSize?: number;
  /** Pause between polls when a poll found nothing new. */
  pollIntervalMs?: number;
  /** The region put in the records' `awsRegion` (default AWS_REGION, else us-east-1). */
  region?: string;
  /** Called for handler failures and API errors; the poller itself keeps running. */
  onError?: (error: unknown) => void;
}

export interface StreamPoller {
  /** Stops polling; resolves once an in-flight handler call and its checkpoint are done. */
  stop(): Promise<void>;
  /**
   * Resolves once a full pass that began after this call found every shard read to its
   * current end, with nothing failed waiting for a retry and no batch in flight. A handler
   * that keeps failing keeps it waiting, as Lambda would keep retrying; it rejects on stop().
   */
  drain(): Promise<void>;
}

/** `delivered`: records were read, handed to the handler or dropped by the filter. */
type PollOutcome = ShardReadEnd | 'delivered';

/**
 * Reads a table's stream like the Lambda event source mapping does for the order-events
 * function: per shard in order, parents before children, batches of up to `batchSize`
 * records, the mapping's event filter applied, ReportBatchItemFailures honoured, and (with a
 * checkpoint file) resumed after a restart at the first record not yet handled.
 */
export async function startStreamPoller(options: StreamPollerOptions): Promise<StreamPoller> {
  const batchSize = options.batchSize ?? 100;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 1000) {
    throw new RangeError(`batchSize must be an integer from 1 to 1000 (GetRecords' limit), got ${batchSize}`);
  }
  const pollIntervalMs = options.pollIntervalMs ?? 200;
  const region = options.region ?? process.env.AWS_REGION ?? LOCAL_AWS_ENV.AWS_REGION;
  const onError = options.onError ?? ((error: unknown) => console.error('stream poller:', error));
  const clientConfig = {
    endpoint: options.endpoint,
    region,
    credentials: { accessKeyId: LOCAL_AWS_ENV.AWS_ACCESS_KEY_ID, secretAccessKey: LOCAL_AWS_ENV.AWS_SECRET_ACCESS_KEY },
  };
  const dynamodb = new DynamoDBClient(clientConfig);
  const streams = new DynamoDBStreamsClient(clientConfig);
  const destroyClients = () => {
    dynamodb.destroy();
    streams.destroy();
  };

  let shards: StreamShards;
  let target: BatchTarget;
  try {
    const streamArn = await latestStreamArn(dynamodb, options.tableName);
    shards = new StreamShards(streams, streamArn, await CheckpointFile.open(options.checkpointFile), pollIntervalMs, onError);
    await shards.describe();
    target = { handler: options.handler, ...(options.filter ? { filter: options.filter } : {}), streamArn, region, onError };
  } catch (error) {
    destroyClients();
    throw error;
  }

  /** One read of `shard` and, when it had records, one handler call and the shard moved on. */
  async function pollShard(shard: ShardState): Promise<PollOutcome> {
    const page = await shards.read(shard, batchSize);
    if (typeof page === 'string') return page;
    const { sequenceNumbers, firstFailed } = await invokeBatch(page.records, target);
    await shards.settle(shard, page, sequenceNumbers, firstFailed);
    return 'delivered';
  }

  const loop = new PollLoop(shards, pollShard, pollIntervalMs, onError);
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        await loop.stop();
        destroyClients();
        loop.rejectDrains();
      })();
      return stopping;
    },
    drain: () => loop.drain(),
  };
}

/** The table's stream, which must be enabled. */
async function latestStreamArn(dynamodb: DynamoDBClient, tableName: string): Promise<string> {
  const table = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }));
  const arn = table.Table?.LatestStreamArn;
  if (!arn || table.Table?.StreamSpecification?.StreamEnabled === false) {
    throw new Error(`table ${tableName} has no stream enabled`);
  }
  return arn;
}

interface DrainWaiter {
  afterRound: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * Rounds over the readable shards until stopped: the next at once when one delivered records,
 * else after the poll interval (cut short by a drain or a stop). A drain is answered by the
 * first quiet round that began after it was asked for.
 */
class PollLoop {
  private running = true;
  private round = 0;
  private readonly drainWaiters: DrainWaiter[] = [];
  private wake: (() => void) | undefined;
  private readonly looping: Promise<void>;

  constructor(
    private readonly shards: StreamShards,
    private readonly pollShard: (shard: ShardState) => Promise<PollOutcome>,
    private readonly pollIntervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.looping = this.loop();
  }

  /** Ends the loop: resolves once its round in flight (a handler call and its checkpoint) is done. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.looping;
  }

  /** After a stop: the drains still waiting will never be answered. */
  rejectDrains(): void {
    for (const waiter of this.drainWaiters.splice(0)) waiter.reject(new Error('stream poller stopped before draining'));
  }

  drain(): Promise<void> {
    if (!this.running) return Promise.reject(new Error('stream poller is stopped'));
    return new Promise<void>((resolve, reject) => {
      this.drainWaiters.push({ afterRound: this.round, resolve, reject });
      this.wake?.();
    });
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let outcome = { quiet: false, delivered: false };
      try {
        outcome = await this.pollRound();
      } catch (error) {
        this.onError(error); // DescribeStream failed: try again after the pause.
      }
      if (outcome.quiet) {
        for (const waiter of this.drainWaiters.filter((w) => w.afterRound < this.round)) {
          this.drainWaiters.splice(this.drainWaiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      if (this.running && !outcome.delivered) await this.pause(this.pollIntervalMs);
    }
  }

  /**
   * One pass over the readable shards. `quiet`: every shard was read to its end and nothing
   * waits for a retry or a parent. `delivered`: records were read (poll again at once).
   */
  private async pollRound(): Promise<{ quiet: boolean; delivered: boolean }> {
    this.round += 1;
    if (this.drainWaiters.length > 0 || this.shards.describeDue()) await this.shards.describe();
    const known = this.shards.list();
    const unfinished = known.filter((shard) => !shard.finished);
    const readable = readableShards(known);
    let quiet = readable.length === unfinished.length;
    let delivered = false;
    for (const shard of readable) {
      if (!this.running) return { quiet: false, delivered };
      if (Date.now() < shard.retryAt) {
        quiet = false;
        continue;
      }
      try {
        const outcome = await this.pollShard(shard);
        if (outcome !== 'empty') quiet = false;
        if (outcome === 'delivered') delivered = true;
        // A shard closes when DynamoDB rolls it over: look for its children now.
        if (outcome === 'finished') this.shards.describeSoon();
      } catch (error) {
        this.onError(error);
        this.shards.backOff(shard);
        quiet = false;
      }
    }
    return { quiet, delivered };
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}
