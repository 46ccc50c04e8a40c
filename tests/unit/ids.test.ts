import { describe, expect, it } from 'vitest';
import { isId, newTimeOrderedId, orderIdFor } from '#shared/domain/ids';

describe('orderIdFor', () => {
  const key = 'ab'.repeat(32);

  it('is a version-8 UUID the API accepts as an id', () => {
    const id = orderIdFor(key, 7, 'shop-1');
    expect(isId(id)).toBe(true);
    expect(id[14]).toBe('8');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
  });

  it('is the same for the same key, merchant and reference, and differs when any of them differs', () => {
    const id = orderIdFor(key, 7, 'shop-1');
    expect(orderIdFor(key, 7, 'shop-1')).toBe(id);
    const others = [orderIdFor(key, 8, 'shop-1'), orderIdFor(key, 7, 'shop-2'), orderIdFor('cd'.repeat(32), 7, 'shop-1')];
    expect(new Set([id, ...others]).size).toBe(4);
  });

  it('does not let a user id and a reference run together ("1" + "23" vs "12" + "3")', () => {
    expect(orderIdFor(key, 1, '23')).not.toBe(orderIdFor(key, 12, '3'));
  });
});

describe('newTimeOrderedId', () => {
  it('is a version-7 UUID that sorts by its creation time', () => {
    const ids = [1_700_000_000_000, 1_700_000_000_001, 1_800_000_000_000].map((ms) => newTimeOrderedId(ms));
    for (const id of ids) {
      expect(isId(id)).toBe(true);
      expect(id[14]).toBe('7');
    }
    expect([...ids].reverse().sort()).toEqual(ids);
    expect(ids[0]!.slice(0, 13).replace('-', '')).toBe((1_700_000_000_000).toString(16).padStart(12, '0'));
  });

  it('differs within one millisecond', () => {
    expect(newTimeOrderedId(5)).not.toBe(newTimeOrderedId(5));
  });
});
