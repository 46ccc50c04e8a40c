import { describe, expect, it } from 'vitest';
import { ExpiringCache } from '#shared/core/cache';

describe('ExpiringCache', () => {
  const clock = () => {
    let now = 1_000;
    return { now: () => now, advance: (ms: number) => (now += ms) };
  };

  it('keeps a value for less than its age, then forgets it', () => {
    const time = clock();
    const cache = new ExpiringCache<string, number>({ maxEntries: 10, maxAgeMs: 100, now: time.now });
    cache.set('a', 1);
    time.advance(99);
    expect(cache.get('a')).toBe(1);
    time.advance(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('never holds more than its bound: the entry stored first goes', () => {
    const cache = new ExpiringCache<number, string>({ maxEntries: 3, maxAgeMs: 60_000 });
    for (let key = 1; key <= 5; key += 1) cache.set(key, `v${key}`);
    expect(cache.size).toBe(3);
    expect([1, 2, 3, 4, 5].map((key) => cache.get(key))).toEqual([undefined, undefined, 'v3', 'v4', 'v5']);
  });

  it('storing a key again renews its age and its place', () => {
    const time = clock();
    const cache = new ExpiringCache<string, number>({ maxEntries: 2, maxAgeMs: 100, now: time.now });
    cache.set('a', 1);
    cache.set('b', 2);
    time.advance(60);
    cache.set('a', 3);
    cache.set('c', 4);
    time.advance(60);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([3, undefined, 4]);
  });

  it('keeps nothing with an age of 0 (turned off)', () => {
    const cache = new ExpiringCache<string, number>({ maxEntries: 10, maxAgeMs: 0 });
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('loads a miss once, keeps what was found and asks again for what was not', async () => {
    const cache = new ExpiringCache<string, string>({ maxEntries: 10, maxAgeMs: 60_000 });
    const asked: string[] = [];
    const load = (key: string) => async () => {
      asked.push(key);
      return key === 'known' ? 'value' : undefined;
    };
    expect(await cache.getOrLoad('known', load('known'))).toBe('value');
    expect(await cache.getOrLoad('known', load('known'))).toBe('value');
    expect(await cache.getOrLoad('unknown', load('unknown'))).toBeUndefined();
    expect(await cache.getOrLoad('unknown', load('unknown'))).toBeUndefined();
    expect(asked).toEqual(['known', 'unknown', 'unknown']);
  });
});
