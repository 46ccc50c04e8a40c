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
  /**
   * `<CURRENCY>_CONFIRMATIONS` where set (BTC_CONFIRMATIONS=3): confirmations a payment in that
   * currency needs before it counts; the others keep the currency table's documented default.
   */
  confirmations: confirmationSettings(process.env),
} as const;

/** Configuration of the chain watchers (the AWS watcher function and the local runtime's loops). */
export const watchConfig = {
  /** Between two looks at a chain once caught up (the mempool and the tip). */
  watchIntervalSeconds: positiveInteger(process.env, 'WATCH_INTERVAL_SECONDS', 10),
} as const;

function confirmationSettings(env: NodeJS.ProcessEnv): Readonly<Record<string, number>> {
  const settings: Record<string, number> = {};
  for (const name of Object.keys(env)) {
    const match = /^([A-Z][A-Z0-9_]*)_CONFIRMATIONS$/.exec(name);
    if (match) settings[match[1]!] = positiveInteger(env, name, 1);
  }
  return settings;
}
