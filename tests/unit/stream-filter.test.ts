import { describe, expect, it } from 'vitest';
import type { DynamoDBRecord } from 'aws-lambda';
import { filterPredicate, type FilterPattern } from '#shared/aws/lambda-event-filter';
import { isOutboxInsert } from '#shared/callbacks/outbox';
import { isWatchDemandChange } from '#shared/store/watch-demand';

const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', newType: string | undefined, oldType?: string): DynamoDBRecord => ({
  eventID: '1',
  eventName,
  eventSource: 'aws:dynamodb',
  dynamodb: {
    Keys: { PK: { S: 'ORDER#x' }, SK: { S: 'DELIVERY#0000000002' } },
    ...(newType === undefined ? {} : { NewImage: { PK: { S: 'ORDER#x' }, type: { S: newType }, state: { S: 'PENDING' } } }),
    ...(oldType === undefined ? {} : { OldImage: { PK: { S: 'ORDER#x' }, type: { S: oldType } } }),
    SequenceNumber: '1',
  },
});

describe('the order-events stream filter', () => {
  it('lets through the insert of a delivery and nothing else', () => {
    expect(isOutboxInsert(record('INSERT', 'DELIVERY'))).toBe(true);
    expect(isOutboxInsert(record('INSERT', 'ORDER'))).toBe(false);
    expect(isOutboxInsert(record('MODIFY', 'ORDER', 'ORDER'))).toBe(false);
    // An attempt being recorded, a redelivery reset, the sweeper's mark: all MODIFY.
    expect(isOutboxInsert(record('MODIFY', 'DELIVERY', 'DELIVERY'))).toBe(false);
    expect(isOutboxInsert(record('REMOVE', undefined, 'DELIVERY'))).toBe(false);
    expect(isOutboxInsert(record('INSERT', 'INVOICE'))).toBe(false);
  });
});

describe('the wake-watchers stream filter', () => {
  it('lets through a demand written (the first: INSERT, later ones: MODIFY) and nothing else', () => {
    expect(isWatchDemandChange(record('INSERT', 'WATCH_DEMAND'))).toBe(true);
    expect(isWatchDemandChange(record('MODIFY', 'WATCH_DEMAND', 'WATCH_DEMAND'))).toBe(true);
    // Its removal cannot wake anything; the lease, the cursor, orders and deliveries never reach it.
    expect(isWatchDemandChange(record('REMOVE', undefined, 'WATCH_DEMAND'))).toBe(false);
    expect(isWatchDemandChange(record('MODIFY', 'WATCH_LEASE', 'WATCH_LEASE'))).toBe(false);
    expect(isWatchDemandChange(record('INSERT', 'DELIVERY'))).toBe(false);
    expect(isWatchDemandChange(record('MODIFY', 'ORDER', 'ORDER'))).toBe(false);
  });
});

describe('filter pattern matcher (exact values nested in objects)', () => {
  const matches = (pattern: FilterPattern, event: unknown) => filterPredicate(pattern)(event);

  it('matches a field equal to any listed value, every field required', () => {
    const pattern = { kind: ['a', 'b'], detail: { size: [3], on: [true] } };
    expect(matches(pattern, { kind: 'b', detail: { size: 3, on: true, other: 'x' }, extra: 1 })).toBe(true);
    expect(matches(pattern, { kind: 'c', detail: { size: 3, on: true } })).toBe(false);
    expect(matches(pattern, { kind: 'a', detail: { size: 4, on: true } })).toBe(false);
    expect(matches(pattern, { kind: 'a', detail: { size: 3 } })).toBe(false);
  });

  it('compares exactly: no type coercion, no case folding, no prefixes', () => {
    expect(matches({ n: [5] }, { n: '5' })).toBe(false);
    expect(matches({ n: ['5'] }, { n: 5 })).toBe(false);
    expect(matches({ s: ['INSERT'] }, { s: 'insert' })).toBe(false);
    expect(matches({ s: ['INS'] }, { s: 'INSERT' })).toBe(false);
    expect(matches({ b: [false] }, { b: 0 })).toBe(false);
  });

  it('treats a missing field as no match, and null as a value of its own', () => {
    expect(matches({ x: [null] }, { x: null })).toBe(true);
    expect(matches({ x: [null] }, {})).toBe(false);
    expect(matches({ x: ['a'] }, {})).toBe(false);
    expect(matches({ x: { y: ['a'] } }, { x: null })).toBe(false);
    expect(matches({ x: { y: ['a'] } }, { x: 'a' })).toBe(false);
    expect(matches({ toString: ['a'] }, {})).toBe(false);
  });

  it('matches an array field when one of its elements matches', () => {
    expect(matches({ tags: ['b'] }, { tags: ['a', 'b'] })).toBe(true);
    expect(matches({ tags: ['c'] }, { tags: ['a', 'b'] })).toBe(false);
    expect(matches({ x: { y: ['a'] } }, { x: [{ y: 'a' }] })).toBe(false);
  });

  it('refuses syntax outside the subset instead of matching differently from AWS', () => {
    expect(() => filterPredicate({ name: [{ prefix: 'a' }] } as unknown as FilterPattern)).toThrow(/only exact values/);
    expect(() => filterPredicate({ x: ['a'], y: [] })).toThrow(/at y lists no values/);
    expect(() => filterPredicate({})).toThrow(/non-empty object/);
    expect(() => filterPredicate({ x: {} })).toThrow(/at x must be a non-empty object/);
  });
});
