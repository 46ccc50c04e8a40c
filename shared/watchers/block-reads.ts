/**
 * The blocks after a block chain's cursor as its watcher reads them (block-watcher.ts), checked
 * before anything is booked: a block at another height than asked, or a range whose blocks do
 * not follow one another, is a source's garbage (a SourceError); a first block that does not
 * follow the cursor is a reorganisation (reorganisations.ts), answered as undefined.
 */
import { SourceError } from '#shared/core/source-error';
import type { ChainCursor } from '#shared/store/chain-cursors';
import type { Block, BlockRef, BlockSource, TransferFilter } from '#shared/watchers/sources/port';

/** A source that answers a block at another height than asked is not trusted with a booking. */
export function checkBlockHeight(source: BlockSource, block: BlockRef, height: number): void {
  if (block.height !== height) throw new SourceError(source.chain, `asked for block ${height}, got ${block.height}`);
}

/** The block after the cursor; undefined when it does not follow the cursor's block (a reorganisation). */
export async function nextBlock(source: BlockSource, cursor: ChainCursor): Promise<Block | undefined> {
  const height = cursor.height + 1;
  const block = await source.block(height);
  checkBlockHeight(source, block, height);
  return block.previousHash === cursor.hash ? block : undefined;
}

/**
 * One range read (sources with `blocks`) after the cursor, up to `last` at most, each block
 * following the one before; undefined when the first does not follow the cursor (a
 * reorganisation). `listed` keeps the transfers that may pay an open invoice.
 */
export async function rangeAfter(source: BlockSource, cursor: ChainCursor, last: number, listed: TransferFilter): Promise<Block[] | undefined> {
  const blocks = await source.blocks!(cursor.height + 1, last, listed);
  if (blocks.length === 0) throw new SourceError(source.chain, `no blocks after ${cursor.height}`);
  if (blocks[0]!.previousHash !== cursor.hash) {
    checkBlockHeight(source, blocks[0]!, cursor.height + 1);
    return undefined;
  }
  let previous: BlockRef = cursor;
  for (const block of blocks) {
    checkBlockHeight(source, block, previous.height + 1);
    if (block.previousHash !== previous.hash) throw new SourceError(source.chain, `block ${block.height} does not follow block ${previous.height}`);
    if (block.height > last) throw new SourceError(source.chain, `block ${block.height} is above ${last}, the last asked for`);
    previous = block;
  }
  return blocks;
}
