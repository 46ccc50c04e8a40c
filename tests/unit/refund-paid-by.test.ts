import { describe, expect, it } from 'vitest';
import { parseDecimal } from '#shared/domain/money';
import type { RefundTarget } from '#shared/store/address-index';
import { refundPaidBy } from '#shared/watchers/booking';

const refund = (refundId: string, amount: string, userId = 1, since = '2026-11-27T10:00:00.000Z'): RefundTarget => ({ userId, orderId: `order-${refundId}`, refundId, amount, since });
const transfer = (amount: string, at?: string) => ({ amount: parseDecimal(amount), ...(at ? { at: new Date(at) } : {}) });

describe('which refund a transfer to a refund address pays', () => {
  it('the oldest of exactly its amount, else the oldest it pays in full, else the oldest (a short payment)', () => {
    const waiting = [refund('a', '2'), refund('b', '1'), refund('c', '1')];
    expect(refundPaidBy(waiting, transfer('1'))?.refundId).toBe('b');
    expect(refundPaidBy(waiting, transfer('1.5'))?.refundId).toBe('b');
    expect(refundPaidBy(waiting, transfer('0.5'))?.refundId).toBe('a');
  });

  it('not one set after the transfer was made', () => {
    const waiting = [refund('old', '1', 1, '2026-11-27T10:00:00.000Z'), refund('new', '1', 1, '2026-11-27T12:00:00.000Z')];
    expect(refundPaidBy(waiting, transfer('1', '2026-11-27T11:00:00.000Z'))?.refundId).toBe('old');
    expect(refundPaidBy(waiting, transfer('1', '2026-11-27T09:00:00.000Z'))).toBeUndefined();
  });

  it("none when the address waits for refunds of two merchants: one merchant's payment never completes another's refund", () => {
    const waiting = [refund('shop-1', '1', 1), refund('shop-2', '1', 2)];
    expect(refundPaidBy(waiting, transfer('1'))).toBeUndefined();
    // The other merchant's refund set only after the transfer was made is not a candidate: no doubt left.
    const later = [refund('shop-1', '1', 1, '2026-11-27T10:00:00.000Z'), refund('shop-2', '1', 2, '2026-11-27T12:00:00.000Z')];
    expect(refundPaidBy(later, transfer('1', '2026-11-27T11:00:00.000Z'))?.refundId).toBe('shop-1');
  });
});
