import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type AttributeValue as SdkAttributeValue,
  type _Record as SdkRecord,
  type GetRecordsOutput,
} from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LOCAL_AWS_ENV } from '#infra/local/dynamodb';
import { type Backoff, backoffDelay } from '#shared/core/backoff';

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

/** Checkpoints by shard id: the sequence number of the last record handled successfully. */
export type StreamCheckpoints = Record<string, string>;

interface ShardState {
  id: string;
  parentId: string | undefined;
  /** Where the next GetRecords reads; undefined means "ask for one from the checkpoint". */
  iterator: string | undefined;
  checkpoint: string | undefined;
  /** Closed and read to its end: its children may be read now. */
  finished: boolean;
  /** Consecutive failed handler calls at the same position (for the backoff). */
  failures: number;
  retryAt: number;
}

/** `delivered`: records were read, handed to the handler or dropped by the filter. */
type PollOutcome = 'empty' | 'delivered' | 'finished' | 'failed';

/** Shards whose records may be read now: not finished, and the parent (if still known) done. */
export function readableShards<T extends { id: string; parentId: string | undefined; finished: boolean }>(
  shards: readonly T[],
): T[] {
  const byId = new Map(shards.map((shard) => [shard.id, shard]));
  return shards.filter((shard) => {
    if (shard.finished) return false;
    const parent = shard.parentId === undefined ? undefined : byId.get(shard.parentId);
    // A parent the stream no longer lists has been trimmed: nothing left to keep in order with.
    return parent === undefined || parent.finished;
  });
}

/** A shard's wait after failed handler calls, ms, from the poll interval: doubling per failure up to 5 s, no jitter. */
export const SHARD_BACKOFF: Omit<Backoff, 'base'> = { cap: 5_000, jitter: 'none' };
/** New child shards appear when DynamoDB (and DynamoDB Local) rolls shards over, every 4 h. */
const DESCRIBE_EVERY_MS = 10_000;

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

  let streamArn: string;
  const shards = new Map<string, ShardState>();
  let savedCheckpoints: StreamCheckpoints;
  let lastDescribe = 0;
  try {
    const table = await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
    const arn = table.Table?.LatestStreamArn;
    if (!arn || table.Table?.StreamSpecification?.StreamEnabled === false) {
      throw new Error(`table ${options.tableName} has no stream enabled`);
    }
    streamArn = arn;
    savedCheckpoints = options.checkpointFile ? await readCheckpoints(options.checkpointFile) : {};
    await describeShards();
  } catch (error) {
    destroyClients();
    throw error;
  }

  async function describeShards(): Promise<void> {
    const listed = new Set<string>();
    let exclusiveStartShardId: string | undefined;
    do {
      const page = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: exclusiveStartShardId }),
      );
      for (const shard of page.StreamDescription?.Shards ?? []) {
        if (!shard.ShardId) continue;
        listed.add(shard.ShardId);
        if (!shards.has(shard.ShardId)) {
          shards.set(shard.ShardId, {
            id: shard.ShardId,
            parentId: shard.ParentShardId,
            iterator: undefined,
            checkpoint: savedCheckpoints[shard.ShardId],
            finished: false,
            failures: 0,
            retryAt: 0,
          });
        }
      }
      exclusiveStartShardId = page.StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);
    // Shards past the stream's 24 h retention are no longer listed; forget them.
    for (const id of shards.keys()) if (!listed.has(id)) shards.delete(id);
    lastDescribe = Date.now();
  }

  async function persistCheckpoints(): Promise<void> {
    if (!options.checkpointFile) return;
    const checkpoints: StreamCheckpoints = {};
    for (const shard of shards.values()) if (shard.checkpoint) checkpoints[shard.id] = shard.checkpoint;
    savedCheckpoints = checkpoints;
    await writeCheckpoints(options.checkpointFile, checkpoints);
  }

  async function freshIterator(shard: ShardState): Promise<string | undefined> {
    const fromStart = () =>
      streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.id, ShardIteratorType: 'TRIM_HORIZON' }));
    if (!shard.checkpoint) return (await fromStart()).ShardIterator;
    try {
      const after = await streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.id,
          ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
          SequenceNumber: shard.checkpoint,
        }),
      );
      return after.ShardIterator;
    } catch (error) {
      if (errorName(error) !== 'TrimmedDataAccessException') throw error;
      // The checkpoint is older than the stream's retention: those records are gone.
      onError(new Error(`stream records after ${shard.checkpoint} in ${shard.id} were trimmed; reading from the oldest`));
      return (await fromStart()).ShardIterator;
    }
  }

  function backOff(shard: ShardState): void {
    shard.failures += 1;
    shard.iterator = undefined; // re-read from the checkpoint
    shard.retryAt = Date.now() + backoffDelay({ ...SHARD_BACKOFF, base: pollIntervalMs }, shard.failures);
  }

  async function pollShard(shard: ShardState): Promise<PollOutcome> {
    shard.iterator ??= await freshIterator(shard);
    if (!shard.iterator) {
      shard.finished = true;
      return 'finished';
    }
    let page: GetRecordsOutput;
    try {
      page = await streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: batchSize }));
    } catch (error) {
      const name = errorName(error);
      // Iterators live 15 minutes (DynamoDB Local too), e.g. across a laptop's sleep.
      if (name === 'ExpiredIteratorException' || name === 'TrimmedDataAccessException') {
        shard.iterator = undefined;
        return 'failed';
      }
      if (name === 'ResourceNotFoundException') {
        // The shard outlived the retention period while we were reading it.
        shard.finished = true;
        return 'finished';
      }
      throw error;
    }
    const records = page.Records ?? [];
    if (records.length === 0) {
      shard.iterator = page.NextShardIterator;
      if (shard.iterator) return 'empty';
      shard.finished = true;
      return 'finished';
    }

    const lambdaRecords = records.map((record) => toLambdaRecord(record, streamArn, region));
    const sequenceNumbers = records.map((record) => record.dynamodb?.SequenceNumber ?? '');
    // Indexes (in the page) of the records the filter lets through to the handler.
    const selected = lambdaRecords.flatMap((record, index) => (!options.filter || options.filter(record) ? [index] : []));
    /** Index in the page of the first record to retry, -1 when none. */
    let firstFailed = -1;
    if (selected.length > 0) {
      try {
        const event: DynamoDBStreamEvent = { Records: selected.map((index) => lambdaRecords[index]!) };
        const failed = firstFailedIndex(await options.handler(event), selected.map((index) => sequenceNumbers[index]!));
        firstFailed = failed === -1 ? -1 : selected[failed]!;
      } catch (error) {
        onError(error);
        firstFailed = selected[0]!;
      }
    }
    if (firstFailed === -1) {
      shard.checkpoint = sequenceNumbers[sequenceNumbers.length - 1];
      shard.failures = 0;
      shard.iterator = page.NextShardIterator;
      if (!shard.iterator) shard.finished = true;
      await persistCheckpoints();
      return 'delivered';
    }
    if (firstFailed > 0) {
      // Lambda checkpoints up to the record before the first failure (a filtered-out one
      // included) and retries from it.
      shard.checkpoint = sequenceNumbers[firstFailed - 1];
      shard.failures = 0;
      await persistCheckpoints();
    }
    backOff(shard);
    return 'delivered';
  }

  let running = true;
  let round = 0;
  const drainWaiters: { afterRound: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  /**
   * One pass over the readable shards. `quiet`: every shard was read to its end and nothing
   * waits for a retry or a parent. `delivered`: records were read (poll again at once).
   */
  async function pollRound(): Promise<{ quiet: boolean; delivered: boolean }> {
    round += 1;
    if (drainWaiters.length > 0 || Date.now() - lastDescribe >= DESCRIBE_EVERY_MS) await describeShards();
    const unfinished = [...shards.values()].filter((shard) => !shard.finished);
    const readable = readableShards([...shards.values()]);
    let quiet = readable.length === unfinished.length;
    let delivered = false;
    for (const shard of readable) {
      if (!running) return { quiet: false, delivered };
      if (Date.now() < shard.retryAt) {
        quiet = false;
        continue;
      }
      try {
        const outcome = await pollShard(shard);
        if (outcome !== 'empty') quiet = false;
        if (outcome === 'delivered') delivered = true;
        // A shard closes when DynamoDB rolls it over: look for its children now.
        if (outcome === 'finished') lastDescribe = 0;
      } catch (error) {
        onError(error);
        backOff(shard);
        quiet = false;
      }
    }
    return { quiet, delivered };
  }

  async function loop(): Promise<void> {
    while (running) {
      let outcome = { quiet: false, delivered: false };
      try {
        outcome = await pollRound();
      } catch (error) {
        onError(error); // DescribeStream failed: try again after the pause.
      }
      if (outcome.quiet) {
        for (const waiter of drainWaiters.filter((w) => w.afterRound < round)) {
          drainWaiters.splice(drainWaiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      if (running && !outcome.delivered) await pause(pollIntervalMs);
    }
  }

  const looping = loop();
  let stopping: Promise<void> | undefined;

  return {
    stop() {
      stopping ??= (async () => {
        running = false;
        wake?.();
        await looping;
        destroyClients();
        for (const waiter of drainWaiters.splice(0)) waiter.reject(new Error('stream poller stopped before draining'));
      })();
      return stopping;
    },
    drain() {
      if (!running) return Promise.reject(new Error('stream poller is stopped'));
      return new Promise<void>((resolve, reject) => {
        drainWaiters.push({ afterRound: round, resolve, reject });
        wake?.();
      });
    },
  };
}

/**
 * Index of the first record to retry, from a handler's answer: -1 when all succeeded. As in
 * Lambda, a failure naming no record of the batch fails the whole batch.
 */
function firstFailedIndex(result: DynamoDBBatchResponse | void, sequenceNumbers: string[]): number {
  const failures = result?.batchItemFailures ?? [];
  if (failures.length === 0) return -1;
  let first = sequenceNumbers.length;
  for (const failure of failures) {
    const index = failure.itemIdentifier ? sequenceNumbers.indexOf(failure.itemIdentifier) : -1;
    if (index === -1) return 0;
    first = Math.min(first, index);
  }
  return first;
}

/** A Streams API record as Lambda delivers it (binary as base64, times in epoch seconds). */
function toLambdaRecord(record: SdkRecord, streamArn: string, region: string): DynamoDBRecord {
  const stream = record.dynamodb ?? {};
  const lambdaRecord: DynamoDBRecord = {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    dynamodb: {
      ...(stream.ApproximateCreationDateTime && {
        ApproximateCreationDateTime: stream.ApproximateCreationDateTime.getTime() / 1000,
      }),
      ...(stream.Keys && { Keys: toLambdaImage(stream.Keys) }),
      ...(stream.NewImage && { NewImage: toLambdaImage(stream.NewImage) }),
      ...(stream.OldImage && { OldImage: toLambdaImage(stream.OldImage) }),
      SequenceNumber: stream.SequenceNumber,
      SizeBytes: stream.SizeBytes,
      StreamViewType: stream.StreamViewType,
    },
    eventSourceARN: streamArn,
  };
  // Present on TTL deletions: { type: 'Service', principalId: 'dynamodb.amazonaws.com' }.
  if (record.userIdentity) lambdaRecord.userIdentity = { ...record.userIdentity };
  return lambdaRecord;
}

function toLambdaImage(image: Record<string, SdkAttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toLambdaValue(value)]));
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

function toLambdaValue(value: SdkAttributeValue): AttributeValue {
  if (value.S !== undefined) return { S: value.S };
  if (value.N !== undefined) return { N: value.N };
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.BOOL !== undefined) return { BOOL: value.BOOL };
  if (value.NULL !== undefined) return { NULL: value.NULL };
  if (value.SS !== undefined) return { SS: value.SS };
  if (value.NS !== undefined) return { NS: value.NS };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaValue) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  // The streams client deserializes an empty map ({"M": {}}) to a bare {}: the only attribute
  // value with no type key (sets cannot be empty), so it is an empty map.
  if (Object.keys(value).length === 0) return { M: {} };
  throw new Error(`unknown attribute value type: ${JSON.stringify(value)}`);
}

const errorName = (error: unknown) => (error instanceof Error ? error.name : '');

async function readCheckpoints(file: string): Promise<StreamCheckpoints> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    !Object.values(parsed).every((value) => typeof value === 'string')
  ) {
    throw new Error(`${file} is not a stream checkpoint file ({ shardId: sequenceNumber })`);
  }
  return parsed as StreamCheckpoints;
}

/** Written to a temporary file and renamed over the old one, so a crash never leaves half a file. */
async function writeCheckpoints(file: string, checkpoints: StreamCheckpoints): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(checkpoints, null, 2));
  await rename(temporary, file);
}
