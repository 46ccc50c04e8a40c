import { decimalToNumber, parseDecimal } from '#shared/domain/money';
import type { Order } from '#shared/domain/order';
import type { RefundNotice } from '#shared/domain/refund';

const amount = (value: string | undefined): number | null => (value === undefined || value === '' ? null : decimalToNumber(parseDecimal(value)));

/**
 * The callback body: MugglePay's callback fields (order_id ... token, merchant_token, meta), then what a
 * merchant needs to order and de-duplicate events (event_id, updated_at, version) and the
 * settlement (receive_amount, receive_currency), and for a refund's status change the order's
 * refunds (exact amount as a string, currency, address, txid; the buyer's refund link while it is usable).
 */
export function callbackBody(order: Order, eventId: string, refunds?: readonly RefundNotice[]) {
  return {
    order_id: order.order_id,
    merchant_order_id: order.merchant_order_id,
    status: order.status,
    price_amount: amount(order.price_amount),
    price_currency: order.price_currency,
    pay_amount: amount(order.pay_amount),
    pay_currency: order.pay_currency,
    created_at: order.created_at,
    created_at_t: Date.parse(order.created_at),
    token: order.token,
    // The same token under its 2025 name, for integrations written against MugglePay's newer docs.
    merchant_token: order.token,
    meta: {
      invoice_id: order.invoice_id ?? null,
      ...(order.unresolved_reason ? { unresolved_reason: order.unresolved_reason } : {}),
    },
    event_id: eventId,
    updated_at: order.updated_at,
    version: order.version,
    receive_amount: amount(order.receive_amount),
    receive_currency: order.receive_currency,
    ...(refunds && refunds.length > 0 ? { refunds } : {}),
  };
}
