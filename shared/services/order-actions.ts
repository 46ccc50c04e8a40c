/** What a merchant (or the buyer, on the payment page) asks of an order: cancel, refund, resolve. */
import { CancelFailedError, RefundFailedError, ResolveFailedError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { type Found, moveTo } from '#shared/domain/order';
import { changeOrder, checkedId, unknownOrder } from '#shared/services/order-changes';

/** NEW -> CANCELED, by the merchant (owner given) or the buyer on the payment page. */
export function cancelOrder(owner: MerchantProfile | undefined, orderId: unknown, now: Date): Promise<Found> {
  return changeOrder(checkedId(orderId), owner, unknownOrder, (found) => {
    if (found.order.status !== 'NEW') throw new CancelFailedError();
    return moveTo(found, 'CANCELED', now);
  });
}

/**
 * PAID -> REFUND_PENDING; the refund's completion arrives through {@link completeRefund}.
 * `repeatable` says which REFUND_PENDING orders may be asked again (answered unchanged: a
 * gateway's refund is retried by asking again).
 */
export function refundOrder(owner: MerchantProfile, orderId: unknown, now: Date, options: { repeatable?: (found: Found) => boolean } = {}): Promise<Found> {
  return changeOrder(checkedId(orderId), owner, unknownOrder, (found) => {
    if (found.order.status === 'REFUND_PENDING' && options.repeatable?.(found)) return undefined;
    if (found.order.status !== 'PAID') throw new RefundFailedError();
    return moveTo(found, 'REFUND_PENDING', now);
  });
}

/** UNRESOLVED -> RESOLVED: the merchant has dealt with an off payment. */
export function resolveOrder(owner: MerchantProfile, orderId: unknown, now: Date): Promise<Found> {
  return changeOrder(checkedId(orderId), owner, unknownOrder, (found) => {
    if (found.order.status !== 'UNRESOLVED') throw new ResolveFailedError();
    return moveTo(found, 'RESOLVED', now);
  });
}
