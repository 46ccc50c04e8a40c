import { add, compare, type Decimal, multiply, parseDecimal, subtract, ZERO } from '#shared/domain/money';
import type { OrderStatus } from '#shared/domain/statuses';
import type { UnresolvedReason } from '#shared/domain/status-machine';

export interface PaymentSituation {
  status: OrderStatus;
  /** What the invoice asks for, in its pay currency. */
  payAmount: Decimal;
  expiredAt: Date;
  /** Sum of every payment seen for the invoice. */
  totalPaid: Decimal;
  /** Sum of the payments with the confirmations their currency requires. */
  confirmedPaid: Decimal;
  /** Merchant tolerance in percent of the pay amount (0 by default). */
  tolerancePercent: Decimal;
  /** When the (first) payment was seen. */
  seenAt: Date;
  /** How long after expiry a payment is still matched (and made UNRESOLVED, PAID_LATE). */
  lateWindowMs: number;
}

export type PaymentOutcome = { to: OrderStatus; reason?: UnresolvedReason } | undefined;

/** 1% as a decimal: tolerance is given in percent. */
const ONE_PERCENT = parseDecimal('0.01');

/** Under, within or over the accepted band around the pay amount, for the confirmed sum. */
function amountVerdict(situation: PaymentSituation): 'under' | 'ok' | 'over' {
  const slack = multiply(situation.payAmount, multiply(situation.tolerancePercent, ONE_PERCENT));
  if (compare(situation.confirmedPaid, subtract(situation.payAmount, slack)) < 0) return 'under';
  if (compare(situation.confirmedPaid, add(situation.payAmount, slack)) > 0) return 'over';
  return 'ok';
}

/**
 * NEW or PENDING, seen in time: the confirmed sum decides. Enough (or too much) confirmed is
 * final whatever else is still unconfirmed (a stray unconfirmed payment cannot hold a paid
 * order back); short of it, the order waits while payments are still confirming, and is
 * UNDERPAID once every payment seen is confirmed.
 */
function inTime(situation: PaymentSituation): PaymentOutcome {
  const verdict = amountVerdict(situation);
  if (verdict === 'ok') return { to: 'PAID' };
  if (verdict === 'over') return { to: 'UNRESOLVED', reason: 'OVERPAID' };
  const stillConfirming = compare(situation.totalPaid, situation.confirmedPaid) > 0;
  if (!stillConfirming) return { to: 'UNRESOLVED', reason: 'UNDERPAID' };
  return situation.status === 'NEW' ? { to: 'PENDING' } : undefined;
}

/**
 * Where a payment moves an order (pure: no clock, no I/O). Undefined means "no status
 * change" (not enough confirmations yet, or the order is past the point payments move it).
 *
 * - NEW, seen before expiry: PENDING while its payments confirm; PAID once the confirmed sum
 *   is within tolerance, UNRESOLVED OVERPAID above it, UNRESOLVED UNDERPAID when everything
 *   seen is confirmed and short.
 * - PENDING: the same (no change while it waits).
 * - Seen after expiry (NEW not yet swept, or EXPIRED) within the late window: UNRESOLVED
 *   (PAID_LATE) once a payment is confirmed, whatever the amount: the rate it was priced at
 *   is gone. An unconfirmed late payment changes nothing yet (it may never confirm).
 */
export function evaluatePayment(situation: PaymentSituation): PaymentOutcome {
  const late = situation.seenAt.getTime() > situation.expiredAt.getTime();
  const withinLateWindow = situation.seenAt.getTime() <= situation.expiredAt.getTime() + situation.lateWindowMs;
  const confirmedLate = withinLateWindow && compare(situation.confirmedPaid, ZERO) > 0;
  if (compare(situation.totalPaid, ZERO) <= 0) return undefined;
  switch (situation.status) {
    case 'NEW':
      if (late) return confirmedLate ? { to: 'UNRESOLVED', reason: 'PAID_LATE' } : undefined;
      return inTime(situation);
    case 'PENDING':
      return inTime(situation);
    case 'EXPIRED':
      return confirmedLate ? { to: 'UNRESOLVED', reason: 'PAID_LATE' } : undefined;
    default:
      return undefined;
  }
}
