import { describe, expect, it, vi } from 'vitest';
import { sign, webhookHeaders } from '#shared/callbacks/signing';
import { verifyCallback } from '../support/webhook-verify';
import { CALLBACK_BACKOFF, MAX_RETRY_AFTER_SECONDS, withRetryAfter } from '#shared/callbacks/schedule';
import { jobRetryDelay } from '#shared/jobs/delayed-jobs';
import { SQS_LONGEST_WAIT_SECONDS } from '#shared/core/backoff';
import { deliveryFor } from '#shared/callbacks/outbox';
import type { Order } from '#shared/domain/order';

/** The callbacks' wait after try `attempt` failed, as the job pipeline computes it (base 60 s unless given). */
const retryDelay = (attempt: number, base: number, random: () => number) => jobRetryDelay({ ...CALLBACK_BACKOFF, base }, attempt, random);

// The Standard Webhooks specification's published test vector.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

/** verifyCallback with the clock at `seconds` (the library reads Date.now). */
function verifyAt(seconds: number, ...args: Parameters<typeof verifyCallback>): boolean {
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(seconds * 1000);
    return verifyCallback(...args);
  } finally {
    vi.useRealTimers();
  }
}

describe('Standard Webhooks signing', () => {
  it('reproduces the specification test vector', () => {
    expect(sign(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it('verifies its own headers and refuses tampering, other secrets and stale timestamps', () => {
    const headers = webhookHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body);
    expect(verifyAt(VECTOR.timestamp + 10, VECTOR.secret, headers, VECTOR.body)).toBe(true);
    expect(verifyAt(VECTOR.timestamp, VECTOR.secret, headers, VECTOR.body.replace('2', '3'))).toBe(false);
    expect(verifyAt(VECTOR.timestamp, 'whsec_c2VjcmV0LW9mLWFub3RoZXItbWVyY2hhbnQ=', headers, VECTOR.body)).toBe(false);
    expect(verifyAt(VECTOR.timestamp + 301, VECTOR.secret, headers, VECTOR.body)).toBe(false);
    expect(verifyAt(VECTOR.timestamp, VECTOR.secret, { ...headers, 'webhook-id': 'msg_other' }, VECTOR.body)).toBe(false);
    // Several signatures (key rotation): any one valid is enough.
    expect(verifyAt(VECTOR.timestamp, VECTOR.secret, { ...headers, 'webhook-signature': `v1,bm90LWl0 ${VECTOR.signature}` }, VECTOR.body)).toBe(true);
  });

  it('refuses a secret without the whsec_ prefix', () => {
    expect(() => sign('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'id', 1, '{}')).toThrow(new RangeError('a callback secret starts with whsec_'));
  });

  it('signs with every secret of a roll, space-separated, so a receiver knowing either one accepts', () => {
    const previous = 'whsec_c2VjcmV0LW9mLWFub3RoZXItbWVyY2hhbnQ=';
    const headers = webhookHeaders([VECTOR.secret, previous], VECTOR.id, VECTOR.timestamp, VECTOR.body);
    expect(headers['webhook-signature']!.split(' ')).toEqual([VECTOR.signature, sign(previous, VECTOR.id, VECTOR.timestamp, VECTOR.body)]);
    for (const secret of [VECTOR.secret, previous]) expect(verifyAt(VECTOR.timestamp, secret, headers, VECTOR.body)).toBe(true);
    expect(verifyAt(VECTOR.timestamp, 'whsec_b3RoZXI=', headers, VECTOR.body)).toBe(false);
  });
});

describe('retry schedule', () => {
  it('doubles from the base to a nominal 12 hours, jitter adding 0 to 20%', () => {
    expect(retryDelay(1, 60, () => 0)).toBe(60);
    expect(retryDelay(2, 60, () => 0)).toBe(120);
    expect(retryDelay(1, 60, () => 0.5)).toBe(66);
    expect(retryDelay(1, 60, () => 0.999999)).toBe(72);
    expect(retryDelay(20, 60, () => 0)).toBe(SQS_LONGEST_WAIT_SECONDS);
    expect(retryDelay(20, 60, () => 0.999999)).toBe(Math.round(SQS_LONGEST_WAIT_SECONDS * 1.2));
  });

  it('spans at least 72 hours with the defaults whatever the jitter draws', () => {
    const span = (random: () => number) => Array.from({ length: 15 }, (_, i) => retryDelay(i + 1, 60, random)).reduce((sum, delay) => sum + delay, 0);
    expect(span(() => 0)).toBeGreaterThanOrEqual(72 * 3600);
    for (let run = 0; run < 1000; run += 1) expect(span(Math.random)).toBeGreaterThanOrEqual(72 * 3600);
    expect(span(() => 0.999999)).toBeLessThan(93 * 3600);
  });

  it('honours Retry-After in seconds or as a date, never shortening the backoff, at most a day', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(withRetryAfter(60, '120', now)).toBe(120);
    expect(withRetryAfter(60, '5', now)).toBe(60);
    expect(withRetryAfter(60, 'Thu, 01 Jan 2026 00:10:00 GMT', now)).toBe(600);
    expect(withRetryAfter(60, '86400', now)).toBe(86_400);
    expect(withRetryAfter(60, '999999', now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(withRetryAfter(90_000, '60', now)).toBe(90_000);
    expect(withRetryAfter(60, 'soon', now)).toBe(60);
    expect(withRetryAfter(60, undefined, now)).toBe(60);
  });
});

describe('deliveryFor', () => {
  const order = {
    order_id: '94be2b2a-2905-4857-b701-b04e57e84593',
    user_id: 1,
    merchant_order_id: 'm-1',
    title: '',
    description: '',
    callback_url: 'https://shop.example/cb',
    cancel_url: '',
    success_url: '',
    token: 't',
    price_amount: '9.99',
    price_currency: 'USD',
    pay_amount: '0.0001537',
    pay_currency: 'BTC',
    receive_currency: '',
    receive_amount: '9.99',
    status: 'NEW',
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    deleted: 0,
    version: 2,
    mobile: false,
    fast: false,
    sandbox: true,
  } satisfies Order;
  const now = new Date('2026-01-01T00:01:00.000Z');

  it('owes one callback per status change, with a stable event id', () => {
    const paid: Order = { ...order, status: 'PAID', version: 3, receive_currency: 'USD' };
    const delivery = deliveryFor(order, paid, now)!;
    expect(delivery).toMatchObject({ event_id: 'evt_94be2b2a29054857b701b04e57e84593_3', status: 'PAID', version: 3, state: 'PENDING', attempt_count: 0 });
    expect(deliveryFor(order, paid, new Date())!.event_id).toBe(delivery.event_id);
    expect(JSON.parse(delivery.payload)).toMatchObject({ status: 'PAID', price_amount: 9.99, pay_amount: 0.0001537, receive_amount: 9.99, token: 't', version: 3 });
  });

  it('owes nothing for a creation, a write that keeps the status, or an order without callback_url', () => {
    expect(deliveryFor(undefined, order, now)).toBeUndefined();
    expect(deliveryFor(order, { ...order, version: 3 }, now)).toBeUndefined();
    expect(deliveryFor({ ...order, callback_url: '' }, { ...order, callback_url: '', status: 'PAID' }, now)).toBeUndefined();
  });
});
