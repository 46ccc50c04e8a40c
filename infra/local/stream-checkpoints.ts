/**
 * The local stream poller's position (infra/local/stream-poller.ts): the sequence number of the
 * last record handled per shard, kept in a JSON file so that a restart resumes at the first
 * record not yet handled. Without a file the position lives as long as the process.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Checkpoints by shard id: the sequence number of the last record handled successfully. */
export type StreamCheckpoints = Record<string, string>;

/** The checkpoint file `{ [shardId]: sequenceNumber }`, read once at start and written after each move. */
export class CheckpointFile {
  private constructor(
    private readonly file: string | undefined,
    private saved: StreamCheckpoints,
  ) {}

  /** The checkpoints saved in `file` (none without a file, or before its first write). */
  static async open(file: string | undefined): Promise<CheckpointFile> {
    return new CheckpointFile(file, file ? await readCheckpoints(file) : {});
  }

  /** Where a shard seen for the first time in this process resumes: its saved checkpoint, if any. */
  of(shardId: string): string | undefined {
    return this.saved[shardId];
  }

  /** Writes every shard's checkpoint (a no-op without a file). */
  async save(shards: Iterable<{ id: string; checkpoint: string | undefined }>): Promise<void> {
    if (!this.file) return;
    const checkpoints: StreamCheckpoints = {};
    for (const shard of shards) if (shard.checkpoint) checkpoints[shard.id] = shard.checkpoint;
    this.saved = checkpoints;
    await writeCheckpoints(this.file, checkpoints);
  }
}

async function readCheckpoints(file: string): Promise<StreamCheckpoints> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((value) => typeof value === 'string')) {
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
