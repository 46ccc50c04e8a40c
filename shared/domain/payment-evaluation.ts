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
  /** The least-confirmed payment's confirmations. */
  confirmations: number;
  requiredConfirmations: number;
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

/** Under, within or over the accepted band around the pay amount. */
function amountVerdict(situation: PaymentSituation): 'under' | 'ok' | 'over' {
  const slack = multiply(situation.payAmount, multiply(situation.tolerancePercent, ONE_PERCENT));
  if (compare(situation.totalPaid, subtract(situation.payAmount, slack)) < 0) return 'under';
  if (compare(situation.totalPaid, add(situation.payAmount, slack)) > 0) return 'over';
  return 'ok';
}

function settled(situation: PaymentSituation): PaymentOutcome {
  const verdict = amountVerdict(situation);
  if (verdict === 'under') return { to: 'UNRESOLVED', reason: 'UNDERPAID' };
  if (verdict === 'over') return { to: 'UNRESOLVED', reason: 'OVERPAID' };
  return { to: 'PAID' };
}

/**
 * Where a payment moves an order (pure: no clock, no I/O). Undefined means "no status
 * change" (not enough confirmations yet, or the order is past the point payments move it).
 *
 * - NEW, seen before expiry: PENDING until confirmed; then PAID within tolerance, else
 *   UNRESOLVED (UNDERPAID / OVERPAID).
 * - PENDING: the same once confirmed.
 * - Seen after expiry (NEW not yet swept, or EXPIRED) within the late window: UNRESOLVED
 *   (PAID_LATE), whatever the amount: the rate it was priced at is gone.
 */
export function evaluatePayment(situation: PaymentSituation): PaymentOutcome {
  const late = situation.seenAt.getTime() > situation.expiredAt.getTime();
  const withinLateWindow = situation.seenAt.getTime() <= situation.expiredAt.getTime() + situation.lateWindowMs;
  if (compare(situation.totalPaid, ZERO) <= 0) return undefined;
  switch (situation.status) {
    case 'NEW':
      if (late) return withinLateWindow ? { to: 'UNRESOLVED', reason: 'PAID_LATE' } : undefined;
      return situation.confirmations < situation.requiredConfirmations ? { to: 'PENDING' } : settled(situation);
    case 'PENDING':
      return situation.confirmations < situation.requiredConfirmations ? undefined : settled(situation);
    case 'EXPIRED':
      return withinLateWindow ? { to: 'UNRESOLVED', reason: 'PAID_LATE' } : undefined;
    default:
      return undefined;
  }
}
