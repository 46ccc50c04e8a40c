import { describe, expect, it } from 'vitest';
import { evaluatePayment, type PaymentSituation } from '#shared/domain/payment-evaluation';
import { parseDecimal } from '#shared/domain/money';

const expiredAt = new Date('2026-01-01T01:00:00.000Z');
const base: PaymentSituation = {
  status: 'NEW',
  payAmount: parseDecimal('0.001'),
  expiredAt,
  totalPaid: parseDecimal('0.001'),
  confirmedPaid: parseDecimal('0.001'),
  tolerancePercent: parseDecimal('0'),
  seenAt: new Date('2026-01-01T00:30:00.000Z'),
  lateWindowMs: 3_600_000,
};
const at = (iso: string) => new Date(iso);
/** Paid `total` in all, of which `confirmed` has its confirmations (all of it by default). */
const paid = (total: string, confirmed = total): Partial<PaymentSituation> => ({
  totalPaid: parseDecimal(total),
  confirmedPaid: parseDecimal(confirmed),
});

describe('evaluatePayment', () => {
  it.each<[string, Partial<PaymentSituation>, ReturnType<typeof evaluatePayment>]>([
    ['exact and confirmed: PAID', {}, { to: 'PAID' }],
    ['exact, not yet confirmed: PENDING', paid('0.001', '0'), { to: 'PENDING' }],
    ['one satoshi short: UNDERPAID', paid('0.00099999'), { to: 'UNRESOLVED', reason: 'UNDERPAID' }],
    ['one satoshi over: OVERPAID', paid('0.00100001'), { to: 'UNRESOLVED', reason: 'OVERPAID' }],
    ['0.5% short with 1% tolerance: PAID', { ...paid('0.000995'), tolerancePercent: parseDecimal('1') }, { to: 'PAID' }],
    ['exactly 1% short with 1% tolerance: PAID', { ...paid('0.00099'), tolerancePercent: parseDecimal('1') }, { to: 'PAID' }],
    ['just past 1% short: UNDERPAID', { ...paid('0.00098999'), tolerancePercent: parseDecimal('1') }, { to: 'UNRESOLVED', reason: 'UNDERPAID' }],
    ['half confirmed, the rest still confirming: PENDING', paid('0.001', '0.0005'), { to: 'PENDING' }],
    ['paid in full and confirmed, a stray payment unconfirmed: PAID', paid('0.0010001', '0.001'), { to: 'PAID' }],
    ['confirmed over, more unconfirmed: OVERPAID', paid('0.003', '0.002'), { to: 'UNRESOLVED', reason: 'OVERPAID' }],
    ['PENDING, still unconfirmed: no change', { status: 'PENDING', ...paid('0.001', '0') }, undefined],
    ['PENDING, part confirmed, part confirming: no change', { status: 'PENDING', ...paid('0.001', '0.0004') }, undefined],
    ['PENDING, now confirmed: PAID', { status: 'PENDING' }, { to: 'PAID' }],
    ['PENDING, all confirmed and short: UNDERPAID', { status: 'PENDING', ...paid('0.0005') }, { to: 'UNRESOLVED', reason: 'UNDERPAID' }],
    ['NEW but seen after expiry (not swept yet), confirmed: PAID_LATE', { seenAt: at('2026-01-01T01:00:00.001Z') }, { to: 'UNRESOLVED', reason: 'PAID_LATE' }],
    ['NEW but seen after expiry, unconfirmed: no change yet', { seenAt: at('2026-01-01T01:00:00.001Z'), ...paid('0.001', '0') }, undefined],
    ['EXPIRED, within the window, confirmed: PAID_LATE', { status: 'EXPIRED', seenAt: at('2026-01-01T01:30:00.000Z') }, { to: 'UNRESOLVED', reason: 'PAID_LATE' }],
    ['EXPIRED, within the window, unconfirmed: no change yet', { status: 'EXPIRED', seenAt: at('2026-01-01T01:30:00.000Z'), ...paid('0.001', '0') }, undefined],
    ['seen at the very millisecond of expiry: still in time, PAID', { seenAt: expiredAt }, { to: 'PAID' }],
    ['EXPIRED, seen at the last millisecond of the window: PAID_LATE', { status: 'EXPIRED', seenAt: at('2026-01-01T02:00:00.000Z') }, { to: 'UNRESOLVED', reason: 'PAID_LATE' }],
    ['EXPIRED, after the window: no change', { status: 'EXPIRED', seenAt: at('2026-01-01T02:00:00.001Z') }, undefined],
    ['NEW, seen after the window: no change', { seenAt: at('2026-01-01T03:00:00.000Z') }, undefined],
    ['PAID: no change', { status: 'PAID' }, undefined],
    ['CANCELED: no change', { status: 'CANCELED' }, undefined],
    ['UNRESOLVED: no change', { status: 'UNRESOLVED' }, undefined],
    ['nothing paid: no change', paid('0'), undefined],
  ])('%s', (_, change, expected) => {
    expect(evaluatePayment({ ...base, ...change })).toEqual(expected);
  });
});
