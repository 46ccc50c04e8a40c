import { AppError } from '#shared/domain/errors';
import type { OrderStatus } from '#shared/domain/statuses';

/**
 * The order lifecycle (docs/merchant-guide.md, "Order statuses"). NEW -> NEW is a checkout that replaces the
 * invoice; every other edge is a status change that produces exactly one callback.
 */
export const TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  NEW: ['NEW', 'PENDING', 'PAID', 'UNRESOLVED', 'EXPIRED', 'CANCELED'],
  // PENDING -> NEW: the only payment's transaction left the chain (a reorganisation) before
  // it confirmed; the order waits for payment again (and expires if its time has passed).
  // PENDING -> EXPIRED: what was seen never reached a block within UNCONFIRMED_TIMEOUT_SECONDS
  // of the invoice's expiry (dropped from the mempool, or double-spent); if it confirms after
  // all, EXPIRED -> UNRESOLVED (PAID_LATE) as for any late payment.
  PENDING: ['NEW', 'PAID', 'UNRESOLVED', 'EXPIRED'],
  PAID: ['REFUND_PENDING'],
  // UNRESOLVED -> REFUND_PENDING: the merchant refunds the overpaid part or the whole payment (issue 30).
  UNRESOLVED: ['RESOLVED', 'REFUND_PENDING'],
  RESOLVED: [],
  EXPIRED: ['UNRESOLVED'],
  CANCELED: [],
  REFUND_PENDING: ['REFUNDED'],
  REFUNDED: [],
};

/** Why an order needs the merchant's attention. */
export type UnresolvedReason = 'UNDERPAID' | 'OVERPAID' | 'PAID_LATE' | 'PAID_TO_REPLACED_INVOICE';

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export class InvalidTransitionError extends AppError {
  readonly code = 'ORDER_STATUS_INVALID';
  constructor(
    readonly from: OrderStatus,
    readonly to: OrderStatus,
  ) {
    super(`An order in status ${from} cannot become ${to}.`);
  }
}

/** Guards one edge of the machine; throws {@link InvalidTransitionError} for any other. */
export function assertTransition(from: OrderStatus, to: OrderStatus): void {
  if (!canTransition(from, to)) throw new InvalidTransitionError(from, to);
}
