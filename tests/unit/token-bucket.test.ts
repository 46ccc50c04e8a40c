import { describe, expect, it } from 'vitest';
import { clientAddressKey, TokenBuckets } from '#shared/core/token-bucket';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('TokenBuckets', () => {
  it('allows a burst, then one request per 1/rate seconds, and says when the next one fits', () => {
    const time = clock();
    const buckets = new TokenBuckets({ maxKeys: 10, now: time.now });
    const limit = { rate: 2, burst: 3 };
    expect([1, 2, 3].map(() => buckets.take('a', limit).allowed)).toEqual([true, true, true]);
    expect(buckets.take('a', limit)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    time.advance(499);
    expect(buckets.take('a', limit).allowed).toBe(false);
    time.advance(1);
    expect(buckets.take('a', limit).allowed).toBe(true);
    expect(buckets.take('a', limit).allowed).toBe(false);
    // Refills to the burst, never beyond it.
    time.advance(60_000);
    expect([1, 2, 3, 4].map(() => buckets.take('a', limit).allowed)).toEqual([true, true, true, false]);
  });

  it('rounds Retry-After up to whole seconds at a slow rate', () => {
    const time = clock();
    const buckets = new TokenBuckets({ maxKeys: 10, now: time.now });
    const limit = { rate: 0.1, burst: 1 };
    expect(buckets.take('slow', limit).allowed).toBe(true);
    expect(buckets.take('slow', limit)).toEqual({ allowed: false, retryAfterSeconds: 10 });
    time.advance(2_500);
    expect(buckets.take('slow', limit)).toEqual({ allowed: false, retryAfterSeconds: 8 });
  });

  it('keeps one bucket per key: emptying one leaves the others full', () => {
    const buckets = new TokenBuckets({ maxKeys: 10, now: clock().now });
    const limit = { rate: 1, burst: 2 };
    buckets.take('a', limit);
    buckets.take('a', limit);
    expect(buckets.take('a', limit).allowed).toBe(false);
    expect(buckets.take('b', limit).allowed).toBe(true);
    expect(buckets.take('b', limit).allowed).toBe(true);
  });

  it('keeps at most maxKeys buckets, dropping the least recently used', () => {
    const buckets = new TokenBuckets({ maxKeys: 3, now: clock().now });
    const limit = { rate: 1, burst: 1 };
    for (const key of ['a', 'b', 'c']) buckets.take(key, limit);
    buckets.take('a', limit); // a is now the most recently used (and empty)
    for (let i = 0; i < 1000; i += 1) buckets.take(`flood-${i}`, limit);
    expect(buckets.size).toBe(3);
    // A key that was dropped comes back with a full bucket: more room, never less.
    expect(buckets.take('a', limit).allowed).toBe(true);
  });

  it('does not limit at a rate of 0 (the quota is off)', () => {
    const buckets = new TokenBuckets({ maxKeys: 1, now: clock().now });
    for (let i = 0; i < 100; i += 1) expect(buckets.take('a', { rate: 0, burst: 1 }).allowed).toBe(true);
    expect(buckets.size).toBe(0);
  });
});

describe('clientAddressKey', () => {
  it.each([
    ['203.0.113.9', '203.0.113.9'],
    ['::ffff:203.0.113.9', '203.0.113.9'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8:0:0:abcd::9', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s -> %s', (address, key) => {
    expect(clientAddressKey(address)).toBe(key);
  });
});
