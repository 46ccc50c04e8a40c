/** Order and invoice statuses (MugglePay's names). */
export const ORDER_STATUSES = [
  'NEW',
  'PENDING',
  'PAID',
  'UNRESOLVED',
  'RESOLVED',
  'EXPIRED',
  'CANCELED',
  'REFUND_PENDING',
  'REFUNDED',
] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

export function isOrderStatus(value: unknown): value is OrderStatus {
  return typeof value === 'string' && (ORDER_STATUSES as readonly string[]).includes(value);
}
