import { flag, positiveInteger, requiredString } from '#shared/env';

/**
 * Configuration of the API handlers, read and checked once at cold start.
 * See README "Configuration" for every variable.
 */
export const apiConfig = {
  /** Base address of the hosted payment page; `payment_url` adds `?id=<order_id>`. */
  paymentPageUrl: new URL(requiredString(process.env, 'PAYMENT_PAGE_URL')).toString(),
  invoiceTtlCryptoSeconds: positiveInteger(process.env, 'INVOICE_TTL_CRYPTO_SECONDS', 3600),
  invoiceTtlGatewaySeconds: positiveInteger(process.env, 'INVOICE_TTL_GATEWAY_SECONDS', 10_800),
  /** An order never checked out expires this long after creation. */
  orderTtlSeconds: positiveInteger(process.env, 'ORDER_TTL_SECONDS', 86_400),
  /** A payment this long after an invoice expired is still matched (UNRESOLVED, PAID_LATE). */
  latePaymentWindowSeconds: positiveInteger(process.env, 'LATE_PAYMENT_WINDOW_SECONDS', 7 * 86_400),
  /** Accept loopback callback URLs: only the local runtime sets this (never the AWS stack). */
  allowLoopbackCallbacks: flag(process.env, 'CALLBACK_ALLOW_LOOPBACK'),
} as const;
