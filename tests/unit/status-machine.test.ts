import { describe, expect, it } from 'vitest';
import { assertTransition, canTransition, InvalidTransitionError } from '#shared/domain/status-machine';
import { statusOf } from '#shared/http/errors';
import { ORDER_STATUSES, type OrderStatus } from '#shared/domain/statuses';

/** The transitions of docs/merchant-guide.md "Order statuses", written out independently of the implementation's. */
const ALLOWED = new Set([
  'NEW>NEW',
  'NEW>PENDING',
  'NEW>PAID',
  'PENDING>PAID',
  'PENDING>NEW',
  // A payment that never reached a block within the unconfirmed timeout (docs/merchant-guide.md "Order statuses").
  'PENDING>EXPIRED',
  'NEW>UNRESOLVED',
  'PENDING>UNRESOLVED',
  'NEW>EXPIRED',
  'EXPIRED>UNRESOLVED',
  'NEW>CANCELED',
  'UNRESOLVED>RESOLVED',
  'PAID>REFUND_PENDING',
  // A refund of an UNRESOLVED order's overpaid part or whole payment (docs/merchant-guide.md "Order statuses").
  'UNRESOLVED>REFUND_PENDING',
  'REFUND_PENDING>REFUNDED',
]);

const pairs: [OrderStatus, OrderStatus][] = ORDER_STATUSES.flatMap((from) => ORDER_STATUSES.map((to) => [from, to] as [OrderStatus, OrderStatus]));

describe('status machine', () => {
  it('covers all 81 pairs of the nine statuses', () => {
    expect(pairs).toHaveLength(81);
  });

  it.each(pairs.filter(([from, to]) => ALLOWED.has(`${from}>${to}`)))('allows %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it.each(pairs.filter(([from, to]) => !ALLOWED.has(`${from}>${to}`)))('forbids %s -> %s', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    expect(() => assertTransition(from, to)).toThrow(InvalidTransitionError);
  });

  it('refuses with a 400 ORDER_STATUS_INVALID naming both statuses (what the API answers)', () => {
    const refusal = (() => {
      try {
        assertTransition('PAID', 'NEW');
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(InvalidTransitionError);
    expect(statusOf(refusal as InvalidTransitionError)).toBe(400);
    expect(refusal).toMatchObject({ code: 'ORDER_STATUS_INVALID', message: 'An order in status PAID cannot become NEW.', from: 'PAID', to: 'NEW' });
  });

  it('has RESOLVED, CANCELED and REFUNDED as the only final statuses (none can become any status)', () => {
    const final = ORDER_STATUSES.filter((from) => ORDER_STATUSES.every((to) => !canTransition(from, to)));
    expect([...final].sort()).toEqual(['CANCELED', 'REFUNDED', 'RESOLVED']);
  });
});
