/**
 * The local stream poller's shard bookkeeping (infra/local/stream-poller.ts): which shards the
 * stream has (listed again now and then, since DynamoDB rolls them over), which may be read
 * (parents before children), each one's iterator and checkpoint, and the wait after a failed
 * handler call before the shard is read again from its checkpoint.
 */
import { DescribeStreamCommand, type DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand, type _Record as SdkRecord, type GetRecordsOutput } from '@aws-sdk/client-dynamodb-streams';
import type { CheckpointFile } from '#infra/local/stream-checkpoints';
import { type Backoff, backoffDelay } from '#shared/core/backoff';

export interface ShardState {
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

/** A page of a shard's records to hand over, and where the shard reads next once they are handled. */
export interface ShardPage {
  records: SdkRecord[];
  next: string | undefined;
}

/** A read that found no records: `empty` (more may come), `finished` (the shard is closed and read) or `failed` (read again later). */
export type ShardReadEnd = 'empty' | 'finished' | 'failed';

/** Shards whose records may be read now: not finished, and the parent (if still known) done. */
export function readableShards<T extends { id: string; parentId: string | undefined; finished: boolean }>(shards: readonly T[]): T[] {
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

const errorName = (error: unknown) => (error instanceof Error ? error.name : '');

/** The shards of one stream, as the poller knows them. */
export class StreamShards {
  private readonly shards = new Map<string, ShardState>();
  private lastDescribe = 0;

  constructor(
    private readonly streams: DynamoDBStreamsClient,
    private readonly streamArn: string,
    private readonly checkpoints: CheckpointFile,
    /** The first wait after a failed handler call (the poll interval), doubled per failure. */
    private readonly retryBaseMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Every shard known, in the order first listed. */
  list(): ShardState[] {
    return [...this.shards.values()];
  }

  /** Whether the stream is due to be listed again (its new child shards found). */
  describeDue(): boolean {
    return Date.now() - this.lastDescribe >= DESCRIBE_EVERY_MS;
  }

  /** A shard closed: it has children to look for at the next round. */
  describeSoon(): void {
    this.lastDescribe = 0;
  }

  /** Lists the stream's shards: new ones start at their saved checkpoint, those no longer listed are forgotten. */
  async describe(): Promise<void> {
    const listed = new Set<string>();
    let exclusiveStartShardId: string | undefined;
    do {
      const page = await this.streams.send(new DescribeStreamCommand({ StreamArn: this.streamArn, ExclusiveStartShardId: exclusiveStartShardId }));
      for (const shard of page.StreamDescription?.Shards ?? []) {
        if (!shard.ShardId) continue;
        listed.add(shard.ShardId);
        if (!this.shards.has(shard.ShardId)) {
          this.shards.set(shard.ShardId, {
            id: shard.ShardId,
            parentId: shard.ParentShardId,
            iterator: undefined,
            checkpoint: this.checkpoints.of(shard.ShardId),
            finished: false,
            failures: 0,
            retryAt: 0,
          });
        }
      }
      exclusiveStartShardId = page.StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);
    // Shards past the stream's 24 h retention are no longer listed; forget them.
    for (const id of this.shards.keys()) if (!listed.has(id)) this.shards.delete(id);
    this.lastDescribe = Date.now();
  }

  /** The next page of `shard`'s records (at most `limit`), or why there is none to hand over. */
  async read(shard: ShardState, limit: number): Promise<ShardPage | ShardReadEnd> {
    shard.iterator ??= await this.freshIterator(shard);
    if (!shard.iterator) {
      shard.finished = true;
      return 'finished';
    }
    let page: GetRecordsOutput;
    try {
      page = await this.streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: limit }));
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
    if (records.length > 0) return { records, next: page.NextShardIterator };
    shard.iterator = page.NextShardIterator;
    if (shard.iterator) return 'empty';
    shard.finished = true;
    return 'finished';
  }

  /**
   * Moves `shard` on after a page was handed over: past the whole page when nothing failed,
   * else (as Lambda) checkpointed up to the record before the first failure, a filtered-out one
   * included, and read again from there after the backoff.
   */
  async settle(shard: ShardState, page: ShardPage, sequenceNumbers: readonly string[], firstFailed: number): Promise<void> {
    if (firstFailed === -1) {
      shard.checkpoint = sequenceNumbers[sequenceNumbers.length - 1];
      shard.failures = 0;
      shard.iterator = page.next;
      if (!shard.iterator) shard.finished = true;
      await this.checkpoints.save(this.shards.values());
      return;
    }
    if (firstFailed > 0) {
      shard.checkpoint = sequenceNumbers[firstFailed - 1];
      shard.failures = 0;
      await this.checkpoints.save(this.shards.values());
    }
    this.backOff(shard);
  }

  /** A failed call at the shard's position: read again from its checkpoint, after a wait doubling per failure. */
  backOff(shard: ShardState): void {
    shard.failures += 1;
    shard.iterator = undefined; // re-read from the checkpoint
    shard.retryAt = Date.now() + backoffDelay({ ...SHARD_BACKOFF, base: this.retryBaseMs }, shard.failures);
  }

  private async freshIterator(shard: ShardState): Promise<string | undefined> {
    const fromStart = () => this.streams.send(new GetShardIteratorCommand({ StreamArn: this.streamArn, ShardId: shard.id, ShardIteratorType: 'TRIM_HORIZON' }));
    if (!shard.checkpoint) return (await fromStart()).ShardIterator;
    try {
      const after = await this.streams.send(
        new GetShardIteratorCommand({
          StreamArn: this.streamArn,
          ShardId: shard.id,
          ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
          SequenceNumber: shard.checkpoint,
        }),
      );
      return after.ShardIterator;
    } catch (error) {
      if (errorName(error) !== 'TrimmedDataAccessException') throw error;
      // The checkpoint is older than the stream's retention: those records are gone.
      this.onError(new Error(`stream records after ${shard.checkpoint} in ${shard.id} were trimmed; reading from the oldest`));
      return (await fromStart()).ShardIterator;
    }
  }
}
