import { isGateway } from '#shared/domain/currencies';
import { InvoiceNotExistError, RefundNotPendingError, ServiceUnavailableError, UnknownOrderError } from '#shared/domain/errors';
import type { MerchantProfile } from '#shared/domain/merchant';
import { add, parseDecimal, ZERO } from '#shared/domain/money';
import { logger } from '#shared/core/logger';
import { GatewayCallError, type GatewayNotification, type GatewayTrade, type LiveGateway, NotificationRejectedError } from '#shared/payments/gateways/port';
import { liveGateways } from '#shared/payments/gateways/router';
import { refundOrder } from '#shared/services/order-actions';
import { completeRefund, recordPayment } from '#shared/services/payment-reports';
import type { Found } from '#shared/domain/order';

/** How a notification was taken: `accepted` (acted on or safely ignored) or `rejected` (nothing changed). */
export type NotificationVerdict = 'accepted' | 'rejected';

/** The live gateway of a code; a gateway whose credentials cannot be read is a temporary outage. */
async function gatewayFor(code: string): Promise<LiveGateway | undefined> {
  try {
    return await liveGateways.get(code);
  } catch (error) {
    throw new ServiceUnavailableError(error);
  }
}

/**
 * A gateway's notification. Its signature is verified before anything is read or changed;
 * then a paid trade is recorded as the payment of the invoice it names (its trade number is
 * the txid, so replays and repeats are one payment, and a notification that arrives after the
 * expiry sweep's own query found the trade changes nothing more), and a refund's success
 * completes the refund. Anything not provably from the gateway is rejected with nothing changed.
 */
export async function takeGatewayNotification(code: string, notification: GatewayNotification, now: Date): Promise<NotificationVerdict> {
  const gateway = await gatewayFor(code);
  if (!gateway) {
    logger.warn('notification for a gateway without credentials', { gateway: code });
    return 'rejected';
  }
  let event;
  try {
    event = gateway.readNotification(notification, now);
  } catch (error) {
    if (error instanceof NotificationRejectedError || error instanceof GatewayCallError) {
      logger.warn('gateway notification rejected', { gateway: code, reason: error.message });
      return 'rejected';
    }
    throw error;
  }
  if (event.kind === 'trade') await recordTrade(code, event.trade, now);
  else if (event.kind === 'refund' && event.succeeded) await recordRefund(code, event.reference.orderId, event.refundId, now);
  else if (event.kind === 'ignored') logger.info('gateway notification needs no change', { gateway: code, reason: event.reason });
  return 'accepted';
}

/** A paid trade as the payment of its invoice (idempotent by the gateway's trade number). */
async function recordTrade(code: string, trade: GatewayTrade, now: Date): Promise<void> {
  if (trade.state !== 'PAID' || !trade.amount) return;
  try {
    const result = await recordPayment({
      orderId: trade.orderId,
      invoiceId: trade.invoiceId,
      currency: code,
      amount: trade.amount,
      confirmations: 1,
      txid: trade.tradeNo,
      seenAt: trade.paidAt,
      now,
    });
    if (result.invoice?.invoice_id !== trade.invoiceId) {
      // The buyer paid an invoice the order left behind after it was paid another way.
      logger.error('gateway payment of a replaced invoice of a settled order: refund it at the gateway', {
        gateway: code,
        orderId: trade.orderId,
        invoiceId: trade.invoiceId,
        tradeNo: trade.tradeNo,
      });
    }
  } catch (error) {
    // Genuine (it is signed) but not ours to book: keep it in the log, do not make the gateway retry forever.
    if (error instanceof UnknownOrderError || error instanceof InvoiceNotExistError) {
      logger.error('gateway payment for an unknown order or invoice', { gateway: code, orderId: trade.orderId, invoiceId: trade.invoiceId, tradeNo: trade.tradeNo });
      return;
    }
    throw error;
  }
}

async function recordRefund(code: string, orderId: string, refundId: string, now: Date): Promise<void> {
  try {
    await completeRefund({ orderId, txid: refundId, now });
  } catch (error) {
    if (error instanceof RefundNotPendingError || error instanceof UnknownOrderError) {
      logger.warn('gateway refund for an order without a pending refund', { gateway: code, orderId, refundId });
      return;
    }
    throw error;
  }
}

/** A live merchant's order whose current invoice is at a gateway (only those can be refunded or queried there). */
function gatewayInvoiceOf(found: Found): string | undefined {
  const currency = found.invoice?.pay_currency;
  return !found.order.sandbox && currency && isGateway(currency) ? currency : undefined;
}

/**
 * Before the expiry sweep expires a live gateway order, the gateway is asked whether it was
 * paid (its notification may be late or lost): a paid trade is recorded instead. `keep` leaves
 * the order NEW for the next run: the gateway could not be asked, for up to an hour past due.
 */
export async function settleBeforeExpiry(found: Found, now: Date): Promise<'expire' | 'keep'> {
  const code = gatewayInvoiceOf(found);
  if (!code || !found.invoice) return 'expire';
  const reference = { orderId: found.order.order_id, invoiceId: found.invoice.invoice_id };
  try {
    const gateway = await liveGateways.get(code);
    if (!gateway) return 'expire';
    const trade = await gateway.queryPayment(reference);
    if (trade?.state !== 'PAID') return 'expire';
    await recordTrade(code, trade, now);
    return 'keep';
  } catch (error) {
    const overdueMs = now.getTime() - Date.parse(found.order.due_at ?? found.invoice.expired_at);
    logger.warn('gateway query before expiry failed', { gateway: code, orderId: reference.orderId, reason: (error as Error).message });
    return overdueMs < 3600_000 ? 'keep' : 'expire';
  }
}

/**
 * Refund Order: PAID -> REFUND_PENDING, then, for a live merchant's gateway order, the refund
 * at the gateway; its confirmation makes the order REFUNDED at once (WeChat Pay may confirm
 * later, by notification). Asking again while REFUND_PENDING retries the gateway's refund
 * (the same refund request there). Other currencies wait for the merchant, as before.
 */
export async function requestRefund(owner: MerchantProfile, orderId: unknown, now: Date): Promise<Found> {
  const found = await refundOrder(owner, orderId, now, { repeatable: (current) => gatewayInvoiceOf(current) !== undefined });
  const code = gatewayInvoiceOf(found);
  if (found.order.status !== 'REFUND_PENDING' || !code || !found.invoice) return found;
  const payments = found.invoice.payments ?? [];
  const paid = payments.reduce((total, payment) => add(total, parseDecimal(payment.amount)), ZERO);
  const tradeNo = payments[0]?.txid;
  if (!tradeNo) return found;
  try {
    const gateway = await liveGateways.get(code);
    if (!gateway) return found;
    const refund = await gateway.refund({ orderId: found.order.order_id, invoiceId: found.invoice.invoice_id, tradeNo, amount: paid });
    if (!refund.confirmed) return found;
    return await completeRefund({ orderId: found.order.order_id, txid: refund.refundId, owner, now });
  } catch (error) {
    if (!(error instanceof GatewayCallError)) throw error;
    // The order stays REFUND_PENDING: asking again retries the same refund at the gateway.
    logger.warn('gateway refund failed', { gateway: code, orderId: found.order.order_id, reason: error.message });
    return found;
  }
}
