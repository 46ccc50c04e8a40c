import { describe, expect, it } from 'vitest';
import { isId, orderIdFor } from '#shared/domain/ids';

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
