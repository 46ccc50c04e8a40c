/**
 * Telling a block chain's reorganisation and finding its fork: a tip that replaced the
 * cursor's block (or a chain that got shorter), or a block whose `previousHash` is not the
 * cursor's hash, means the chain changed below the cursor. The fork is the newest block the
 * cursor remembers that is still on the chain; the watcher (block-watcher.ts) takes back the
 * maturing payments above it and moves the cursor there.
 */
import { sameBlockHash } from '#shared/store/chain-cursors';
import type { ChainCursor } from '#shared/store/chain-cursors';
import type { BlockRef, BlockSource } from '#shared/watchers/sources/port';

/** The chain reorganised below every hash the cursor remembers: nothing is booked until an operator looks. */
export class ReorganisationTooDeepError extends Error {
  constructor(chain: string, depth: number) {
    super(`${chain}: the chain reorganised deeper than the ${depth} blocks the cursor remembers`);
    this.name = 'ReorganisationTooDeepError';
  }
}

/** The cursor's block replaced (same height, other hash) or the chain got shorter. */
export function tipReplaced(cursor: BlockRef, tip: BlockRef): boolean {
  return tip.height < cursor.height || (tip.height === cursor.height && tip.hash !== cursor.hash);
}

/** Walks back from the cursor through the hashes it remembers to the newest block still on the chain. */
export async function findFork(source: BlockSource, cursor: ChainCursor, tip: BlockRef): Promise<BlockRef> {
  for (const ref of [...cursor.recent].reverse()) {
    if (ref.height > tip.height) continue;
    const hash = await source.blockHash(ref.height);
    // The cursor remembers the end of each hash; the fork becomes the cursor, with the whole one.
    if (sameBlockHash(hash, ref.hash)) return { height: ref.height, hash };
  }
  throw new ReorganisationTooDeepError(source.chain, cursor.recent.length);
}
