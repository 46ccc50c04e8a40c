import type { LambdaHandler } from '#shared/http/api-handler';

/**
 * The handler module of each function folder, loaded on first use like a Lambda cold start
 * (after the runtime has set the environment the handlers' config reads).
 */
const loaders: Record<string, () => Promise<{ handler: LambdaHandler }>> = {
  'create-order': () => import('#functions/create-order/handler'),
  'get-order': () => import('#functions/get-order/handler'),
  'checkout-order': () => import('#functions/checkout-order/handler'),
  'list-orders': () => import('#functions/list-orders/handler'),
  'cancel-order': () => import('#functions/cancel-order/handler'),
  'refund-order': () => import('#functions/refund-order/handler'),
  'resolve-order': () => import('#functions/resolve-order/handler'),
  'sandbox-pay': () => import('#functions/sandbox-pay/handler'),
  'sandbox-complete-refund': () => import('#functions/sandbox-complete-refund/handler'),
  'list-callbacks': () => import('#functions/list-callbacks/handler'),
  'redeliver-callback': () => import('#functions/redeliver-callback/handler'),
  'pay-get-order': () => import('#functions/pay-get-order/handler'),
  'get-health': () => import('#functions/get-health/handler'),
  'pay-checkout-order': () => import('#functions/pay-checkout-order/handler'),
  'pay-cancel-order': () => import('#functions/pay-cancel-order/handler'),
  'pay-sandbox-pay': () => import('#functions/pay-sandbox-pay/handler'),
  'alipay-notify': () => import('#functions/alipay-notify/handler'),
  'aliglobal-notify': () => import('#functions/aliglobal-notify/handler'),
  'wechat-notify': () => import('#functions/wechat-notify/handler'),
};

/** Loads once, then hands out the same module, as a warm Lambda would (import() per call is slow under tsx). */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

export const apiFunctions: Record<string, () => Promise<{ handler: LambdaHandler }>> = Object.fromEntries(
  Object.entries(loaders).map(([name, load]) => [name, once(load)]),
);
