import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type ChainCursor, readCursor, sameBlockHash, writeCursor } from '#shared/store/chain-cursors';
import { db, tableName } from '#shared/store/client';
import { chainCursorKey, ENTITY } from '#shared/store/keys';

/** The chain cursor's item: the recent blocks' hashes remembered by their last 128 bits. */

const hash = () => randomBytes(32).toString('hex');

function cursor(chain: string, blocks: number): ChainCursor {
  const recent = Array.from({ length: blocks }, (_, i) => ({ height: 800_000 + i, hash: hash() }));
  return { chain, height: recent.at(-1)!.height, hash: recent.at(-1)!.hash, recent, tip_height: recent.at(-1)!.height, updated_at: new Date().toISOString(), version: 1 };
}

describe('the chain cursor', () => {
  it('keeps 33 recent blocks in 16 bytes each and reads them back as the same blocks, at their heights', async () => {
    const written = cursor(`BTC-test-${randomUUID()}`, 33);
    expect(await writeCursor(written)).toBe(true);
    const item = (await db().send(new GetCommand({ TableName: tableName(), Key: chainCursorKey(written.chain) }))).Item!;
    expect(item.recent).toBeUndefined();
    expect((item.recent_hashes as Uint8Array).length).toBe(33 * 16);
    const read = (await readCursor(written.chain))!;
    expect([read.height, read.hash, read.version]).toEqual([written.height, written.hash, 1]);
    expect(read.recent.map((ref) => ref.height)).toEqual(written.recent.map((ref) => ref.height));
    read.recent.forEach((ref, i) => expect(sameBlockHash(ref.hash, written.recent[i]!.hash)).toBe(true));
    // Another block at the same height is not taken for the remembered one.
    expect(read.recent.some((ref) => sameBlockHash(ref.hash, hash()))).toBe(false);
    // An Ethereum hash (0x, upper or lower case) is remembered the same way.
    expect(sameBlockHash(`0x${written.hash.toUpperCase()}`, read.recent.at(-1)!.hash)).toBe(true);
  });

  it('reads a cursor stored with whole hashes (before) as it was', async () => {
    const old = cursor(`BTC-test-${randomUUID()}`, 5);
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...chainCursorKey(old.chain), type: ENTITY.chainCursor, ...old } }));
    expect(await readCursor(old.chain)).toEqual(old);
  });
});
