/** Order and invoice statuses (MugglePay's names). */
export const ORDER_STATUSES = ['NEW', 'PENDING', 'PAID', 'UNRESOLVED', 'RESOLVED', 'EXPIRED', 'CANCELED', 'REFUND_PENDING', 'REFUNDED'] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];
