import { describe, expect, it } from 'vitest';
import { evaluatePayment, type PaymentSituation } from '#shared/domain/payment-evaluation';
import { parseDecimal } from '#shared/domain/money';

const expiredAt = new Date('2026-01-01T01:00:00.000Z');
const base: PaymentSituation = {
  status: 'NEW',
  payAmount: parseDecimal('0.001'),
  expiredAt,
  totalPaid: parseDecimal('0.001'),
  confirmations: 2,
  requiredConfirmations: 2,
  tolerancePercent: parseDecimal('0'),
  seenAt: new Date('2026-01-01T00:30:00.000Z'),
  lateWindowMs: 3_600_000,
};
const at = (iso: string) => new Date(iso);

describe('evaluatePayment', () => {
  it.each<[string, Partial<PaymentSituation>, ReturnType<typeof evaluatePayment>]>([
    ['exact and confirmed: PAID', {}, { to: 'PAID' }],
    ['exact, not yet confirmed: PENDING', { confirmations: 1 }, { to: 'PENDING' }],
    ['seen with 0 confirmations: PENDING', { confirmations: 0 }, { to: 'PENDING' }],
    ['one satoshi short: UNDERPAID', { totalPaid: parseDecimal('0.00099999') }, { to: 'UNRESOLVED', reason: 'UNDERPAID' }],
    ['one satoshi over: OVERPAID', { totalPaid: parseDecimal('0.00100001') }, { to: 'UNRESOLVED', reason: 'OVERPAID' }],
    ['0.5% short with 1% tolerance: PAID', { totalPaid: parseDecimal('0.000995'), tolerancePercent: parseDecimal('1') }, { to: 'PAID' }],
    ['exactly 1% short with 1% tolerance: PAID', { totalPaid: parseDecimal('0.00099'), tolerancePercent: parseDecimal('1') }, { to: 'PAID' }],
    ['just past 1% short: UNDERPAID', { totalPaid: parseDecimal('0.00098999'), tolerancePercent: parseDecimal('1') }, { to: 'UNRESOLVED', reason: 'UNDERPAID' }],
    ['PENDING, still unconfirmed: no change', { status: 'PENDING', confirmations: 1 }, undefined],
    ['PENDING, now confirmed: PAID', { status: 'PENDING' }, { to: 'PAID' }],
    ['PENDING, confirmed short: UNDERPAID', { status: 'PENDING', totalPaid: parseDecimal('0.0005') }, { to: 'UNRESOLVED', reason: 'UNDERPAID' }],
    ['NEW but seen after expiry (not swept yet): PAID_LATE', { seenAt: at('2026-01-01T01:00:00.001Z') }, { to: 'UNRESOLVED', reason: 'PAID_LATE' }],
    ['EXPIRED, within the window: PAID_LATE', { status: 'EXPIRED', seenAt: at('2026-01-01T01:30:00.000Z') }, { to: 'UNRESOLVED', reason: 'PAID_LATE' }],
    ['EXPIRED, after the window: no change', { status: 'EXPIRED', seenAt: at('2026-01-01T02:00:00.001Z') }, undefined],
    ['NEW, seen after the window: no change', { seenAt: at('2026-01-01T03:00:00.000Z') }, undefined],
    ['PAID: no change', { status: 'PAID' }, undefined],
    ['CANCELED: no change', { status: 'CANCELED' }, undefined],
    ['UNRESOLVED: no change', { status: 'UNRESOLVED' }, undefined],
    ['nothing paid: no change', { totalPaid: parseDecimal('0') }, undefined],
  ])('%s', (_, change, expected) => {
    expect(evaluatePayment({ ...base, ...change })).toEqual(expected);
  });
});
