/**
 * When a request may be answered before the table has counted it (shared/store/quotas.ts,
 * `WindowHeadroom`): only while what this container has counted for its client in the window,
 * answered or not, stays within half the limit.
 */
import { describe, expect, it } from 'vitest';
import { WindowHeadroom } from '#shared/store/quotas';

const limit = { limit: 10, windowSeconds: 2 };
const start = 1_800_000_000_000; // a window boundary (divisible by 2 s)

describe('WindowHeadroom', () => {
  it('lets requests go ahead of their counts up to half the limit, counting the unanswered ones', () => {
    const headroom = new WindowHeadroom();
    const admitted = Array.from({ length: 7 }, () => headroom.begin('M1', limit, start).ahead);
    expect(admitted).toEqual([true, true, true, true, true, false, false]);
  });

  it('learns the window count from the answers: under half goes ahead, half and more waits', () => {
    const headroom = new WindowHeadroom();
    const first = headroom.begin('M1', limit, start);
    expect(first.ahead).toBe(true);
    first.answered({ allowed: true, used: 3 }); // two came from other containers
    const second = headroom.begin('M1', limit, start + 10);
    expect(second.ahead).toBe(true); // (3 + 1) * 2 <= 10
    second.answered({ allowed: true, used: 5 });
    expect(headroom.begin('M1', limit, start + 20).ahead).toBe(false);
    // An answer older than one already heard does not lower the count.
    const late = headroom.begin('M2', limit, start);
    const later = headroom.begin('M2', limit, start);
    expect([late.ahead, later.ahead]).toEqual([true, true]);
    later.answered({ allowed: true, used: 5 });
    late.answered({ allowed: true, used: 3 });
    expect(headroom.begin('M2', limit, start).ahead).toBe(false);
  });

  it('waits for the rest of a window once a count was limited, and starts afresh in the next', () => {
    const headroom = new WindowHeadroom();
    const refused = headroom.begin('P10.0.0.1', limit, start);
    expect(refused.ahead).toBe(true);
    refused.answered({ allowed: false, retryAfterSeconds: 2 });
    expect(headroom.begin('P10.0.0.1', limit, start + 1999).ahead).toBe(false);
    expect(headroom.begin('P10.0.0.1', limit, start + 2000).ahead).toBe(true);
    // Each client has its own view.
    expect(headroom.begin('P10.0.0.2', limit, start + 1999).ahead).toBe(true);
  });

  it('frees an unanswered place when the count fails, learning nothing from it; an answer counts once', () => {
    const headroom = new WindowHeadroom();
    const counts = Array.from({ length: 5 }, () => headroom.begin('M1', limit, start));
    expect(counts.map((count) => count.ahead)).toEqual([true, true, true, true, true]);
    expect(headroom.begin('M1', limit, start).ahead).toBe(false);
    counts[0]!.answered(undefined);
    counts[0]!.answered(undefined);
    counts[1]!.answered(undefined);
    // 6 sent, 2 of them answered with nothing: 4 unanswered, so one more fits in half of 10.
    expect(headroom.begin('M1', limit, start).ahead).toBe(true);
    expect(headroom.begin('M1', limit, start).ahead).toBe(false);
  });

  it('never lets a request ahead when half the limit is under one request', () => {
    const headroom = new WindowHeadroom();
    expect(headroom.begin('M1', { limit: 1, windowSeconds: 1 }, start).ahead).toBe(false);
    expect(headroom.begin('M2', { limit: 2, windowSeconds: 1 }, start).ahead).toBe(true);
    expect(headroom.begin('M2', { limit: 2, windowSeconds: 1 }, start).ahead).toBe(false);
  });

  it('remembers at most maxClients clients, forgetting the oldest view first', () => {
    const headroom = new WindowHeadroom(2);
    for (const client of ['A', 'B']) headroom.begin(client, limit, start).answered({ allowed: false, retryAfterSeconds: 2 });
    headroom.begin('C', limit, start);
    // C took A's place: B is still known to be limited, A starts afresh.
    expect(headroom.begin('B', limit, start).ahead).toBe(false);
    expect(headroom.begin('A', limit, start).ahead).toBe(true);
  });
});
