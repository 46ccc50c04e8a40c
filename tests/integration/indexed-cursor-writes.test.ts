import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseDecimal } from '#shared/domain/money';
import { readIndexCursor, writeIndexCursor } from '#shared/store/index-cursors';
import { IndexedWatcher } from '#shared/watchers/indexed-watcher';
import type { IndexedSource, Transfer } from '#shared/watchers/sources/port';

/**
 * The indexed watcher's cursor written at most once a `cursorEveryMs` while nothing is booked
 * (Stellar's paging token moves every ledger): the place is kept in memory between writes and
 * each step reads on from it; a step that reports a payment, or is behind, writes at once; a
 * cursor another run wrote since counts over the memory; a new watcher (a restart) reads from
 * what is stored.
 */

/** A source whose network moves one place a step; `pay` makes its next answer carry a payment. */
function movingSource() {
  const asked: (string | undefined)[] = [];
  let paying: Transfer | undefined;
  let behind = false;
  const source: IndexedSource = {
    chain: 'STELLAR',
    after: async (cursor) => {
      asked.push(cursor);
      const next = String(Number(cursor ?? '100') + 1);
      const transfers = paying ? [paying] : [];
      paying = undefined;
      return { transfers, next, more: behind };
    },
  };
  const pay = () => {
    paying = { key: randomUUID(), txid: randomUUID(), currency: 'USDC_XLM', address: 'GMERCHANT', memo: '1', amount: parseDecimal('1'), at: new Date() };
  };
  return { source, asked, pay, setBehind: (value: boolean) => (behind = value) };
}

function watcherOn(source: IndexedSource, cursorName: string, clock: { now: number }) {
  return new IndexedWatcher(source, { cursorName, cursorEveryMs: 60_000, clock: () => new Date(clock.now) });
}

/** A watcher of its own cursor on a moving source, after its first step (written) and a second 5 s later. */
async function twoStepsIn() {
  const name = `cursor-${randomUUID()}`;
  const clock = { now: Date.parse('2026-12-02T04:00:00Z') };
  const moving = movingSource();
  const watcher = watcherOn(moving.source, name, clock);
  await watcher.step();
  clock.now += 5_000;
  return { name, clock, moving, watcher };
}

describe('an indexed cursor written at most once a minute while nothing is booked', () => {
  it('keeps the place in memory between writes, reads on from it, and writes once the minute is over', async () => {
    const name = `cursor-${randomUUID()}`;
    const clock = { now: Date.parse('2026-12-02T04:00:00Z') };
    const { source, asked } = movingSource();
    const watcher = watcherOn(source, name, clock);
    expect(await watcher.step()).toMatchObject({ cursor: '101' });
    expect((await readIndexCursor(name))?.position).toBe('101');
    for (const expected of ['102', '103', '104']) {
      clock.now += 10_000;
      expect(await watcher.step()).toMatchObject({ cursor: expected, yielded: false });
    }
    // Read on from memory each step; nothing written in the minute.
    expect(asked).toEqual([undefined, '101', '102', '103']);
    expect(await readIndexCursor(name)).toMatchObject({ position: '101', version: 1 });
    clock.now += 31_000;
    await watcher.step();
    expect(await readIndexCursor(name)).toMatchObject({ position: '105', version: 2 });
  });

  it('writes at once a step that reports a payment, or that is behind', async () => {
    const name = `cursor-${randomUUID()}`;
    const clock = { now: Date.parse('2026-12-02T04:00:00Z') };
    const moving = movingSource();
    const watcher = watcherOn(moving.source, name, clock);
    await watcher.step();
    moving.pay();
    expect(await watcher.step()).toMatchObject({ transfers: 1, cursor: '102' });
    expect((await readIndexCursor(name))?.position).toBe('102');
    clock.now += 5_000;
    moving.setBehind(true);
    expect(await watcher.step()).toMatchObject({ cursor: '103', behind: 1 });
    expect((await readIndexCursor(name))?.position).toBe('103');
  });

  it('reads from the stored cursor when another run wrote since, and a restart reads from what is stored', async () => {
    const { name, clock, moving, watcher } = await twoStepsIn();
    await watcher.step();
    // The memory holds 102 over version 1; another run moves the stored cursor to 500.
    expect(await writeIndexCursor({ chain: name, position: '500', updated_at: new Date(clock.now).toISOString(), version: 2 })).toBe(true);
    clock.now += 5_000;
    await watcher.step();
    expect(moving.asked.at(-1)).toBe('500');
    // A new watcher (a restarted container) has no memory: it reads from the stored place.
    const restarted = movingSource();
    await watcherOn(restarted.source, name, clock).step();
    expect(restarted.asked).toEqual(['500']);
  });

  it('without cursorEveryMs every move is written', async () => {
    const name = `cursor-${randomUUID()}`;
    const { source } = movingSource();
    const watcher = new IndexedWatcher(source, { cursorName: name });
    await watcher.step();
    await watcher.step();
    expect(await readIndexCursor(name)).toMatchObject({ position: '102', version: 2 });
  });
});
