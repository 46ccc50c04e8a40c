import type { LambdaHandler, StreamingLambdaHandler } from '#shared/http/api-handler';
import { installLambdaStreaming } from '#infra/local/lambda-streaming';

// Streamed handlers (middy's streamifyResponse) need the Lambda runtime's global when they load.
installLambdaStreaming();

type HandlerModule = { handler: LambdaHandler | StreamingLambdaHandler };

/**
 * The handler module of each function folder, loaded on first use like a Lambda cold start
 * (after the runtime has set the environment the handlers' config reads).
 */
const loaders: Record<string, () => Promise<HandlerModule>> = {
  'create-order': () => import('#functions/create-order/handler'),
  'get-order': () => import('#functions/get-order/handler'),
  'checkout-order': () => import('#functions/checkout-order/handler'),
  'list-orders': () => import('#functions/list-orders/handler'),
  'cancel-order': () => import('#functions/cancel-order/handler'),
  'refund-order': () => import('#functions/refund-order/handler'),
  'resolve-order': () => import('#functions/resolve-order/handler'),
  'list-refunds': () => import('#functions/list-refunds/handler'),
  'report-refund-txid': () => import('#functions/report-refund-txid/handler'),
  'renew-refund-link': () => import('#functions/renew-refund-link/handler'),
  'pay-open-refund': () => import('#functions/pay-open-refund/handler'),
  'pay-set-refund-address': () => import('#functions/pay-set-refund-address/handler'),
  'sandbox-pay': () => import('#functions/sandbox-pay/handler'),
  'sandbox-complete-refund': () => import('#functions/sandbox-complete-refund/handler'),
  'list-callbacks': () => import('#functions/list-callbacks/handler'),
  'redeliver-callback': () => import('#functions/redeliver-callback/handler'),
  'pay-get-order': () => import('#functions/pay-get-order/handler'),
  'create-link': () => import('#functions/create-link/handler'),
  'list-links': () => import('#functions/list-links/handler'),
  'get-link': () => import('#functions/get-link/handler'),
  'update-link': () => import('#functions/update-link/handler'),
  'pay-get-link': () => import('#functions/pay-get-link/handler'),
  'pay-create-link-order': () => import('#functions/pay-create-link-order/handler'),
  'portal-list-links': () => import('#functions/portal-list-links/handler'),
  'portal-create-link': () => import('#functions/portal-create-link/handler'),
  'portal-get-link': () => import('#functions/portal-get-link/handler'),
  'portal-update-link': () => import('#functions/portal-update-link/handler'),
  'get-health': () => import('#functions/get-health/handler'),
  'pay-checkout-order': () => import('#functions/pay-checkout-order/handler'),
  'pay-cancel-order': () => import('#functions/pay-cancel-order/handler'),
  'pay-sandbox-pay': () => import('#functions/pay-sandbox-pay/handler'),
  'alipay-notify': () => import('#functions/alipay-notify/handler'),
  'aliglobal-notify': () => import('#functions/aliglobal-notify/handler'),
  'wechat-notify': () => import('#functions/wechat-notify/handler'),
  'portal-session': () => import('#functions/portal-session/handler'),
  'portal-invite-options': () => import('#functions/portal-invite-options/handler'),
  'portal-accept-invite': () => import('#functions/portal-accept-invite/handler'),
  'portal-sign-in-options': () => import('#functions/portal-sign-in-options/handler'),
  'portal-sign-in': () => import('#functions/portal-sign-in/handler'),
  'portal-recover': () => import('#functions/portal-recover/handler'),
  'portal-sign-out': () => import('#functions/portal-sign-out/handler'),
  'portal-list-passkeys': () => import('#functions/portal-list-passkeys/handler'),
  'portal-passkey-options': () => import('#functions/portal-passkey-options/handler'),
  'portal-add-passkey': () => import('#functions/portal-add-passkey/handler'),
  'portal-list-orders': () => import('#functions/portal-list-orders/handler'),
  'portal-export-orders': () => import('#functions/portal-export-orders/handler'),
  'portal-get-order': () => import('#functions/portal-get-order/handler'),
  'portal-cancel-order': () => import('#functions/portal-cancel-order/handler'),
  'portal-refund-order': () => import('#functions/portal-refund-order/handler'),
  'portal-complete-refund': () => import('#functions/portal-complete-refund/handler'),
  'portal-refund-quote': () => import('#functions/portal-refund-quote/handler'),
  'portal-report-refund-txid': () => import('#functions/portal-report-refund-txid/handler'),
  'portal-renew-refund-link': () => import('#functions/portal-renew-refund-link/handler'),
  'portal-list-refunds': () => import('#functions/portal-list-refunds/handler'),
  'portal-list-unmatched': () => import('#functions/portal-list-unmatched/handler'),
  'portal-resolve-order': () => import('#functions/portal-resolve-order/handler'),
  'portal-resend-callback': () => import('#functions/portal-resend-callback/handler'),
  'portal-list-tokens': () => import('#functions/portal-list-tokens/handler'),
  'portal-create-token': () => import('#functions/portal-create-token/handler'),
  'portal-revoke-token': () => import('#functions/portal-revoke-token/handler'),
  'portal-show-secret': () => import('#functions/portal-show-secret/handler'),
  'portal-roll-secret': () => import('#functions/portal-roll-secret/handler'),
  'portal-get-settings': () => import('#functions/portal-get-settings/handler'),
  'portal-preview-keys': () => import('#functions/portal-preview-keys/handler'),
  'portal-change-settings': () => import('#functions/portal-change-settings/handler'),
  'portal-audit-log': () => import('#functions/portal-audit-log/handler'),
  'portal-get-email-preferences': () => import('#functions/portal-get-email-preferences/handler'),
  'portal-change-email-preferences': () => import('#functions/portal-change-email-preferences/handler'),
  'portal-list-team': () => import('#functions/portal-list-team/handler'),
  'portal-invite-member': () => import('#functions/portal-invite-member/handler'),
  'portal-change-role': () => import('#functions/portal-change-role/handler'),
  'portal-remove-member': () => import('#functions/portal-remove-member/handler'),
};

/** Loads once, then hands out the same module, as a warm Lambda would (import() per call is slow under tsx). */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

export const apiFunctions: Record<string, () => Promise<HandlerModule>> = Object.fromEntries(
  Object.entries(loaders).map(([name, load]) => [name, once(load)]),
);
