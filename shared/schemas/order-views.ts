/**
 * The merchant API's wire views of an order and its invoice: what Create Order, Get Order,
 * Checkout and Get Orders answer (their schemas: order-responses.ts). Amounts become JSON
 * numbers and times get their epoch-millisecond twins here, at the edge.
 */
import { decimalToNumber, parseDecimal } from '#shared/domain/money';
import type { Invoice, Order } from '#shared/domain/order';

const amount = (value: string): number => decimalToNumber(parseDecimal(value));
const epochMillis = (iso: string): number => Date.parse(iso);

/** The order of Get Order, Checkout and Get Orders. */
export function orderView(order: Order) {
  return {
    order_id: order.order_id,
    user_id: order.user_id,
    merchant_order_id: order.merchant_order_id,
    title: order.title,
    description: order.description,
    callback_url: order.callback_url,
    cancel_url: order.cancel_url,
    success_url: order.success_url,
    token: order.token,
    email: order.email ?? '',
    price_amount: amount(order.price_amount),
    price_currency: order.price_currency,
    pay_amount: amount(order.pay_amount),
    pay_currency: order.pay_currency,
    receive_currency: order.receive_currency,
    status: order.status,
    created_at: order.created_at,
    updated_at: order.updated_at,
    deleted: order.deleted,
    ...(order.unresolved_reason ? { unresolved_reason: order.unresolved_reason } : {}),
  };
}

/** The order inside Create Order's answer: the same fields without `token`, `receive_currency` and `deleted`. */
export function createdOrderView(order: Order) {
  const { token: _token, receive_currency: _receive, deleted: _deleted, unresolved_reason: _reason, ...created } = orderView(order);
  return created;
}

export function invoiceView(invoice: Invoice) {
  return {
    invoice_id: invoice.invoice_id,
    order_id: invoice.order_id,
    merchant_order_id: invoice.merchant_order_id,
    pay_amount: amount(invoice.pay_amount),
    pay_currency: invoice.pay_currency,
    receive_amount: amount(invoice.receive_amount),
    receive_currency: invoice.receive_currency,
    status: invoice.status,
    created_at: invoice.created_at,
    created_at_t: epochMillis(invoice.created_at),
    expired_at: invoice.expired_at,
    expired_at_t: epochMillis(invoice.expired_at),
    payment_address: invoice.payment_address,
    payment_uri: invoice.payment_uri,
    // What the transfer must carry beside the address ('' when nothing): TON's comment, Stellar's MEMO_ID, EOS's memo, Solana Pay's reference.
    payment_memo: invoice.memo ?? '',
    // MugglePay's names (its GetOrder; the Go SDK reads Invoice.Address): where to pay, the
    // memo the transfer must carry ('' when none) and what to encode in a QR code.
    address: invoice.payment_address,
    memo: invoice.memo ?? '',
    qrcode: invoice.payment_uri,
  };
}
