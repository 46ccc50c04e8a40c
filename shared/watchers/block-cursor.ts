/**
 * A block chain's cursor (height + hash, in the table: store/chain-cursors.ts) as its watcher
 * moves it: where a chain's first run starts (the tip: no invoice is older than the watcher),
 * past the blocks a step scanned, back to the fork of a reorganisation, and to the tip in an
 * idle look. Each move is one conditional write on the cursor's version, so of two overlapping
 * runs only one advances: a refused move (undefined) means another run moved the cursor first.
 * The cursor remembers the hashes of the `reorgDepth` blocks below it, the deepest
 * reorganisation its watcher can undo (reorganisations.ts).
 */
import { type ChainCursor, readCursor, writeCursor } from '#shared/store/chain-cursors';
import type { BlockRef } from '#shared/watchers/sources/port';

export class BlockCursor {
  constructor(
    /** The cursor's name in the table (the chain, or a test's own). */
    private readonly name: string,
    private readonly reorgDepth: number,
    private readonly clock: () => Date,
  ) {}

  /** The stored cursor; the first run of a chain starts at the tip (no invoice is older than the watcher). */
  async read(tip: BlockRef): Promise<ChainCursor | undefined> {
    const stored = await readCursor(this.name);
    if (stored) return stored;
    const first: ChainCursor = {
      chain: this.name,
      height: tip.height,
      hash: tip.hash,
      recent: [{ height: tip.height, hash: tip.hash }],
      tip_height: tip.height,
      updated_at: this.clock().toISOString(),
      version: 1,
    };
    return (await writeCursor(first)) ? first : undefined;
  }

  /** Moves past `blocks` (those after the cursor, in order), remembering their hashes. */
  async past(cursor: ChainCursor, blocks: readonly BlockRef[], tip: BlockRef): Promise<ChainCursor | undefined> {
    const last = blocks[blocks.length - 1]!;
    const recent = [...cursor.recent, ...blocks.map((block) => ({ height: block.height, hash: block.hash }))].slice(-(this.reorgDepth + 1));
    return this.write({
      ...cursor,
      height: last.height,
      hash: last.hash,
      recent,
      tip_height: tip.height,
      updated_at: this.clock().toISOString(),
      version: cursor.version + 1,
    });
  }

  /** Moves back to `fork`, the newest block still on the chain, forgetting the hashes above it. */
  async back(cursor: ChainCursor, fork: BlockRef, tip: BlockRef, now: Date): Promise<ChainCursor | undefined> {
    return this.write({
      ...cursor,
      height: fork.height,
      hash: fork.hash,
      recent: cursor.recent.filter((ref) => ref.height <= fork.height),
      tip_height: tip.height,
      updated_at: now.toISOString(),
      version: cursor.version + 1,
    });
  }

  /** Moves to the tip without the blocks in between (an idle look: no invoice is owed them). False when refused. */
  async toTip(cursor: ChainCursor, tip: BlockRef): Promise<boolean> {
    const next: ChainCursor = {
      ...cursor,
      height: tip.height,
      hash: tip.hash,
      recent: [{ height: tip.height, hash: tip.hash }],
      tip_height: tip.height,
      updated_at: this.clock().toISOString(),
      version: cursor.version + 1,
    };
    return writeCursor(next);
  }

  private async write(next: ChainCursor): Promise<ChainCursor | undefined> {
    return (await writeCursor(next)) ? next : undefined;
  }
}
