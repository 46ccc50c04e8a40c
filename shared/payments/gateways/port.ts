import type { Decimal } from '#shared/domain/money';

/** A payment at a gateway (Alipay, Alipay Global, WeChat Pay) for one invoice. */
export interface GatewayPaymentRequest {
  /** ALIPAY, ALIGLOBAL or WECHAT. */
  gateway: string;
  /** The order the invoice belongs to (carried in the gateway's trade so a notification finds it). */
  orderId?: string;
  invoiceId: string;
  /** In the gateway's settlement fiat (CNY). */
  amount: Decimal;
  description: string;
  /** The buyer is on a phone: the link opens the gateway's app instead of a PC QR page. */
  mobile: boolean;
  expiresAt: Date;
  now?: Date;
  /** The buyer's IP address where known (WeChat Pay's H5 payments require it). */
  clientIp?: string;
}

export interface GatewayPayment {
  /** Where the buyer pays: the app link (mobile) or the QR page (PC). */
  url: string;
}

/** A payment gateway; a real one is configured by credentials from SSM, the sandbox needs none. */
export interface PaymentGateway {
  createPayment(request: GatewayPaymentRequest): Promise<GatewayPayment>;
}

/** Which invoice of which order a gateway trade pays (read back from the trade itself). */
export interface TradeReference {
  orderId: string;
  invoiceId: string;
}

/** A trade as the gateway reports it (a verified notification or the answer to a query). */
export interface GatewayTrade extends TradeReference {
  /** The gateway's own transaction id: the payment's txid (idempotency key). */
  tradeNo: string;
  /** PAID: the money is taken; WAITING: created or scanned, not paid; CLOSED: unpaid and closed (or fully refunded). */
  state: 'PAID' | 'WAITING' | 'CLOSED';
  /** What the buyer paid, in the settlement fiat; set when PAID. */
  amount?: Decimal;
  /** When the gateway took the payment. */
  paidAt?: Date;
}

/** The outcome of asking a gateway to refund a trade. */
export interface GatewayRefund {
  /** Our refund request id at the gateway (the same for every retry of one refund). */
  refundId: string;
  /** The gateway confirmed the money went back; false: still processing (a notification or a retry confirms). */
  confirmed: boolean;
}

/** What a verified notification says. */
export type GatewayEvent = { kind: 'trade'; trade: GatewayTrade } | { kind: 'refund'; reference: TradeReference; refundId: string; succeeded: boolean } | { kind: 'ignored'; reason: string };

/** A notification as it arrived: headers (lower-case names) and the raw body text. */
export interface GatewayNotification {
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
}

/** A notification that is not provably from the gateway (bad signature, stale, malformed). */
export class NotificationRejectedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NotificationRejectedError';
  }
}

/** The gateway could not be reached or answered something unusable; nothing was decided. */
export class GatewayCallError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GatewayCallError';
  }
}

/** A real gateway: payments, their state, refunds and verified notifications. */
export interface LiveGateway extends PaymentGateway {
  /** The pay currency it serves: ALIPAY, ALIGLOBAL or WECHAT. */
  readonly code: string;
  /** The trade of an invoice as the gateway sees it now; undefined when it has none (never opened). */
  queryPayment(reference: TradeReference): Promise<GatewayTrade | undefined>;
  /** Refunds a paid trade in full; idempotent (the same invoice is the same refund). */
  refund(request: TradeReference & { tradeNo: string; amount: Decimal }): Promise<GatewayRefund>;
  /** Verifies a notification (before anything else) and says what it reports; throws NotificationRejectedError. */
  readNotification(notification: GatewayNotification, now: Date): GatewayEvent;
}

/** Our trade number for an invoice: its id without dashes (32 hex digits, fits every gateway). */
export const tradeNumberOf = (invoiceId: string): string => invoiceId.replace(/-/g, '');

/** The invoice id back from {@link tradeNumberOf}. */
export function invoiceIdOfTradeNumber(tradeNumber: string): string | undefined {
  if (!/^[0-9a-f]{32}$/.test(tradeNumber)) return undefined;
  const hex = tradeNumber;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
