import { NOTIFY_PATHS } from '#shared/payments/gateways/notify-paths';
import { checkoutBodySchema, createOrderBodySchema, listOrdersQuerySchema, orderActionBodySchema, sandboxPayBodySchema, sandboxRefundBodySchema } from '#shared/schemas/orders';
import { payCheckoutBodySchema } from '#shared/schemas/pay';
import { createLinkBodySchema, linkOrderBodySchema, listLinksQuerySchema, updateLinkBodySchema } from '#shared/schemas/payment-links';
import {
  auditQuerySchema,
  emailPreferencesBodySchema,
  inviteMemberBodySchema,
  keyPreviewBodySchema,
  memberRoleBodySchema,
  passkeyAnswerBodySchema,
  portalOrdersQuerySchema,
  portalPageQuerySchema,
  recoveryCodeBodySchema,
  rollSecretBodySchema,
  settingsBodySchema,
  signOutBodySchema,
  tokenNameBodySchema,
} from '#shared/schemas/portal';
import {
  advanceClockBodySchema,
  cancelSubscriptionBodySchema,
  createPlanBodySchema,
  createSubscriptionBodySchema,
  listPlansQuerySchema,
  listSubscriptionsQuerySchema,
  updatePlanBodySchema,
} from '#shared/schemas/subscriptions';
import { portalSubscriptionsQuerySchema } from '#shared/schemas/portal-subscriptions';
import { payRefundAddressBodySchema, payRefundBodySchema, refundLinkBodySchema, refundOrderBodySchema, refundTxidBodySchema } from '#shared/schemas/refunds';
import { planSubscriptionBodySchema, subscriberBodySchema, subscriberLinkRequestBodySchema } from '#shared/schemas/subscriber';

/**
 * What a function may touch beyond the table (its `access`), declared where the function is
 * (here for a route's, in shared/http/event-functions.ts `EVENT_FUNCTIONS` for the others). The AWS stack
 * grants a function exactly what its routes declare and what their kind brings
 * ({@link routeGrants}), never by function name; tests/infra/stack.test.ts checks each grant
 * against these declarations and cdk-nag the policies. Locally every handler may do everything.
 */
export type Grant =
  /** Read the payment gateways' credential parameters and know the API's public URL: opens, refunds, expires or verifies gateway trades. */
  | 'gateways'
  /** Read the LND node's macaroon and certificate parameters: makes Lightning invoices. */
  | 'lightning'
  /** Read the API token key: a merchant route authenticates with it (implied), the portal makes tokens with it and shows refund links, and a subscriber's page link is made with it (their secrets are made again with it). */
  | 'token-key'
  /** Send jobs to the callback queue: queues a delivery (a redelivery, a swept one). */
  | 'callback-queue'
  /**
   * Read the chain sources' node URLs in SSM, as the chain watchers do: checks a transaction on
   * chain through the watchers' sources (shared/watchers/refund-check.ts; the other sources'
   * settings every function has).
   */
  | 'chain-sources';

/**
 * A request schema of shared/schemas/ (JSON Schema, `as const`). Its `$id` names it everywhere
 * else: the generated validator (`lowerCamel($id)` in shared/http/validators.generated.ts) and
 * the OpenAPI component.
 */
export interface RequestSchema {
  readonly $id: string;
  readonly type: 'object';
  readonly properties: Readonly<Record<string, object>>;
}

/**
 * Every HTTP route of the service and the function that serves it. The CDK stack and the
 * local runtime both build their routing from this list, so they cannot drift apart.
 * Paths use API Gateway's `{param}` syntax.
 */
export interface Route {
  method: 'GET' | 'POST';
  path: string;
  /** Folder under functions/ holding `handler.ts`. */
  fn: string;
  /** Read-only functions get read-only grants in AWS. */
  access: 'read' | 'write';
  /**
   * No merchant token: the payment page's endpoints, where the unguessable order id is the
   * only capability. They get their own, tighter, throttling in AWS.
   */
  public?: true;
  /**
   * A payment gateway's notification endpoint: no merchant token, answered only when the
   * gateway's signature verifies, in the gateway's own format (not the API's JSON errors).
   */
  gateway?: true;
  /**
   * The merchant portal's API: browsers with a session cookie (never the `token` header),
   * served on the portal's own origin in AWS (CloudFront in front of both).
   */
  portal?: true;
  /**
   * A streamed answer (Lambda response streaming: status and headers first, then the body as
   * the handler writes it, with no size cap but the function's time). API Gateway's HTTP API
   * cannot stream, so in AWS the route is not on the HTTP API: its function has a function URL
   * (invoke mode RESPONSE_STREAM, auth AWS_IAM) that only the portal's CloudFront distribution
   * may call, on this path of the portal's origin. Locally the adapter writes the same stream as
   * a chunked answer. The handler must be wrapped with `awslambda.streamifyResponse` (middy's
   * `streamifyResponse`); a test checks the two agree.
   */
  stream?: true;
  /** The function's timeout in seconds, in AWS and locally (default: {@link FUNCTION_TIMEOUT_SECONDS}). */
  timeoutSeconds?: number;
  /** What the function may touch beyond the table and what the route's kind brings ({@link routeGrants}). */
  grants?: readonly Grant[];
  /**
   * The JSON body's schema, declared only here: tools/build-validators.ts generates its validator
   * from it (the handler imports that one by name; tests/unit/route-schemas.test.ts checks it is
   * this one), and the OpenAPI document its requestBody. No body: the handler reads none.
   */
  body?: RequestSchema;
  /** The query string's schema (validated with coercion: "20" is 20), as {@link body}: its validator and its OpenAPI parameters. */
  query?: RequestSchema;
}

/** A merchant API route: the `token` header authenticates (not the page's, a gateway's or the portal's). */
export const authenticates = (route: Route): boolean => !route.public && !route.gateway && !route.portal;

/**
 * Everything a route's function may touch beyond the table: its declared grants, the token key
 * when it authenticates merchants, the gateways when it is a gateway's notification endpoint.
 */
export function routeGrants(route: Route): ReadonlySet<Grant> {
  return new Set<Grant>([...(route.grants ?? []), ...(authenticates(route) ? (['token-key'] as const) : []), ...(route.gateway ? (['gateways'] as const) : [])]);
}

/**
 * A function's timeout unless its route or event says otherwise, in AWS and locally: an API
 * request is answered well within it, and an Idempotency-Key's holder is known to have ended
 * once it has passed (shared/http/middlewares/idempotency.ts).
 */
export const FUNCTION_TIMEOUT_SECONDS = 10;

/**
 * The streamed export's time: long enough for 100,000+ rows (docs/performance.md), short enough
 * that a stuck export ends within minutes. The handler stops a few seconds before it.
 */
export const EXPORT_TIMEOUT_SECONDS = 300;

/** The merchant portal's API (shared/http/portal-handler.ts: sessions and CSRF). */
const PORTAL_ROUTES: readonly Route[] = (
  [
    // Signing in: invites, passkeys, recovery codes, sessions.
    { method: 'GET', path: '/v1/portal/session', fn: 'portal-session', access: 'read' },
    { method: 'POST', path: '/v1/portal/invites/{invite}/options', fn: 'portal-invite-options', access: 'write' },
    { method: 'POST', path: '/v1/portal/invites/{invite}/accept', fn: 'portal-accept-invite', access: 'write', body: passkeyAnswerBodySchema },
    { method: 'POST', path: '/v1/portal/sign-in/options', fn: 'portal-sign-in-options', access: 'write' },
    { method: 'POST', path: '/v1/portal/sign-in', fn: 'portal-sign-in', access: 'write', body: passkeyAnswerBodySchema },
    { method: 'POST', path: '/v1/portal/sign-in/recovery', fn: 'portal-recover', access: 'write', body: recoveryCodeBodySchema },
    { method: 'POST', path: '/v1/portal/sign-out', fn: 'portal-sign-out', access: 'write', body: signOutBodySchema },
    { method: 'GET', path: '/v1/portal/passkeys', fn: 'portal-list-passkeys', access: 'read' },
    { method: 'POST', path: '/v1/portal/passkeys/options', fn: 'portal-passkey-options', access: 'write' },
    { method: 'POST', path: '/v1/portal/passkeys', fn: 'portal-add-passkey', access: 'write', body: passkeyAnswerBodySchema },
    // The merchant's orders.
    { method: 'GET', path: '/v1/portal/orders', fn: 'portal-list-orders', access: 'read', query: portalOrdersQuerySchema },
    { method: 'GET', path: '/v1/portal/orders/export', fn: 'portal-export-orders', access: 'read', query: portalOrdersQuerySchema, stream: true, timeoutSeconds: EXPORT_TIMEOUT_SECONDS },
    { method: 'GET', path: '/v1/portal/orders/{order_id}', fn: 'portal-get-order', access: 'read', grants: ['token-key'] },
    { method: 'POST', path: '/v1/portal/orders/{order_id}/cancel', fn: 'portal-cancel-order', access: 'write', grants: ['token-key'] },
    { method: 'POST', path: '/v1/portal/orders/{order_id}/refund', fn: 'portal-refund-order', access: 'write', body: refundOrderBodySchema, grants: ['gateways', 'token-key'] },
    { method: 'POST', path: '/v1/portal/orders/{order_id}/complete-refund', fn: 'portal-complete-refund', access: 'write', grants: ['token-key'] },
    // A write: a quote past the rate cache's age fetches the rates and stores them for the others.
    { method: 'GET', path: '/v1/portal/orders/{order_id}/refund-quote', fn: 'portal-refund-quote', access: 'write' },
    { method: 'POST', path: '/v1/portal/orders/{order_id}/refund-txid', fn: 'portal-report-refund-txid', access: 'write', body: refundTxidBodySchema, grants: ['token-key', 'chain-sources'] },
    { method: 'POST', path: '/v1/portal/orders/{order_id}/refund-link', fn: 'portal-renew-refund-link', access: 'write', body: refundLinkBodySchema, grants: ['token-key'] },
    { method: 'GET', path: '/v1/portal/refunds', fn: 'portal-list-refunds', access: 'read', query: portalPageQuerySchema, grants: ['token-key'] },
    { method: 'GET', path: '/v1/portal/unmatched-payments', fn: 'portal-list-unmatched', access: 'read', query: portalPageQuerySchema },
    { method: 'POST', path: '/v1/portal/orders/{order_id}/resolve', fn: 'portal-resolve-order', access: 'write', grants: ['token-key'] },
    { method: 'POST', path: '/v1/portal/orders/{order_id}/callbacks/resend', fn: 'portal-resend-callback', access: 'write', grants: ['callback-queue', 'token-key'] },
    // The integration (owners and developers): API tokens, the callback secret, settings, the audit log.
    { method: 'GET', path: '/v1/portal/tokens', fn: 'portal-list-tokens', access: 'read' },
    { method: 'POST', path: '/v1/portal/tokens', fn: 'portal-create-token', access: 'write', body: tokenNameBodySchema, grants: ['token-key'] },
    { method: 'POST', path: '/v1/portal/tokens/{token_id}/revoke', fn: 'portal-revoke-token', access: 'write' },
    { method: 'POST', path: '/v1/portal/callback-secret', fn: 'portal-show-secret', access: 'read' },
    { method: 'POST', path: '/v1/portal/callback-secret/roll', fn: 'portal-roll-secret', access: 'write', body: rollSecretBodySchema },
    { method: 'GET', path: '/v1/portal/settings', fn: 'portal-get-settings', access: 'read' },
    { method: 'POST', path: '/v1/portal/settings/preview', fn: 'portal-preview-keys', access: 'read', body: keyPreviewBodySchema },
    { method: 'POST', path: '/v1/portal/settings', fn: 'portal-change-settings', access: 'write', body: settingsBodySchema },
    { method: 'GET', path: '/v1/portal/audit', fn: 'portal-audit-log', access: 'read', query: auditQuerySchema },
    // The user's own email preferences (every role).
    { method: 'GET', path: '/v1/portal/email-preferences', fn: 'portal-get-email-preferences', access: 'read' },
    { method: 'POST', path: '/v1/portal/email-preferences', fn: 'portal-change-email-preferences', access: 'write', body: emailPreferencesBodySchema },
    // Payment links (owners and developers change them; viewers read).
    { method: 'GET', path: '/v1/portal/links', fn: 'portal-list-links', access: 'read', query: listLinksQuerySchema },
    { method: 'POST', path: '/v1/portal/links', fn: 'portal-create-link', access: 'write', body: createLinkBodySchema },
    { method: 'GET', path: '/v1/portal/links/{link_id}', fn: 'portal-get-link', access: 'read' },
    { method: 'POST', path: '/v1/portal/links/{link_id}', fn: 'portal-update-link', access: 'write', body: updateLinkBodySchema },
    // Recurring billing (owners and developers change plans, cancel and move a sandbox test clock; viewers read).
    { method: 'GET', path: '/v1/portal/plans', fn: 'portal-list-plans', access: 'read', query: listPlansQuerySchema },
    { method: 'POST', path: '/v1/portal/plans', fn: 'portal-create-plan', access: 'write', body: createPlanBodySchema },
    { method: 'GET', path: '/v1/portal/plans/{plan_id}', fn: 'portal-get-plan', access: 'read' },
    { method: 'POST', path: '/v1/portal/plans/{plan_id}', fn: 'portal-update-plan', access: 'write', body: updatePlanBodySchema },
    { method: 'GET', path: '/v1/portal/subscriptions', fn: 'portal-list-subscriptions', access: 'read', query: portalSubscriptionsQuerySchema },
    {
      method: 'GET',
      path: '/v1/portal/subscriptions/export',
      fn: 'portal-export-subscriptions',
      access: 'read',
      query: portalSubscriptionsQuerySchema,
      stream: true,
      timeoutSeconds: EXPORT_TIMEOUT_SECONDS,
    },
    { method: 'GET', path: '/v1/portal/subscriptions/figures', fn: 'portal-subscription-figures', access: 'read' },
    { method: 'GET', path: '/v1/portal/subscriptions/{subscription_id}', fn: 'portal-get-subscription', access: 'read' },
    { method: 'POST', path: '/v1/portal/subscriptions/{subscription_id}/cancel', fn: 'portal-cancel-subscription', access: 'write', body: cancelSubscriptionBodySchema },
    { method: 'POST', path: '/v1/portal/subscriptions/{subscription_id}/advance', fn: 'portal-advance-clock', access: 'write', body: advanceClockBodySchema },
    // The team (owners).
    { method: 'GET', path: '/v1/portal/team', fn: 'portal-list-team', access: 'read' },
    { method: 'POST', path: '/v1/portal/team/invites', fn: 'portal-invite-member', access: 'write', body: inviteMemberBodySchema },
    { method: 'POST', path: '/v1/portal/team/{member_id}/role', fn: 'portal-change-role', access: 'write', body: memberRoleBodySchema },
    { method: 'POST', path: '/v1/portal/team/{member_id}/remove', fn: 'portal-remove-member', access: 'write' },
  ] as const
).map((route) => ({ ...route, portal: true as const }));

export const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/v1/orders', fn: 'create-order', access: 'write', body: createOrderBodySchema, grants: ['gateways', 'lightning'] },
  { method: 'GET', path: '/v1/orders', fn: 'list-orders', access: 'read', query: listOrdersQuerySchema },
  // The contract's path has a trailing slash; both spellings answer.
  { method: 'GET', path: '/v1/orders/', fn: 'list-orders', access: 'read', query: listOrdersQuerySchema },
  { method: 'GET', path: '/v1/orders/{order_id}', fn: 'get-order', access: 'read' },
  { method: 'POST', path: '/v1/orders/{order_id}/checkout', fn: 'checkout-order', access: 'write', body: checkoutBodySchema, grants: ['gateways', 'lightning'] },
  { method: 'POST', path: '/v1/orders/{order_id}/cancel', fn: 'cancel-order', access: 'write', body: orderActionBodySchema },
  { method: 'POST', path: '/v1/orders/{order_id}/refund', fn: 'refund-order', access: 'write', body: refundOrderBodySchema, grants: ['gateways'] },
  { method: 'POST', path: '/v1/orders/{order_id}/resolve', fn: 'resolve-order', access: 'write', body: orderActionBodySchema },
  { method: 'POST', path: '/v1/sandbox/orders/{order_id}/pay', fn: 'sandbox-pay', access: 'write', body: sandboxPayBodySchema },
  { method: 'POST', path: '/v1/sandbox/orders/{order_id}/complete-refund', fn: 'sandbox-complete-refund', access: 'write', body: sandboxRefundBodySchema },
  { method: 'GET', path: '/v1/orders/{order_id}/refunds', fn: 'list-refunds', access: 'read' },
  { method: 'POST', path: '/v1/orders/{order_id}/refund-txid', fn: 'report-refund-txid', access: 'write', body: refundTxidBodySchema, grants: ['chain-sources'] },
  { method: 'POST', path: '/v1/orders/{order_id}/refund-link', fn: 'renew-refund-link', access: 'write', body: refundLinkBodySchema },
  { method: 'GET', path: '/v1/orders/{order_id}/callbacks', fn: 'list-callbacks', access: 'read' },
  { method: 'POST', path: '/v1/orders/{order_id}/callbacks/redeliver', fn: 'redeliver-callback', access: 'write', body: orderActionBodySchema, grants: ['callback-queue'] },
  // Payment links (beyond the contract): the merchant's, then the link page's (no token).
  { method: 'POST', path: '/v1/links', fn: 'create-link', access: 'write', body: createLinkBodySchema },
  { method: 'GET', path: '/v1/links', fn: 'list-links', access: 'read', query: listLinksQuerySchema },
  { method: 'GET', path: '/v1/links/{link_id}', fn: 'get-link', access: 'read' },
  { method: 'POST', path: '/v1/links/{link_id}', fn: 'update-link', access: 'write', body: updateLinkBodySchema },
  // Recurring billing (beyond the contract): plans, subscriptions, the sandbox's test clock.
  { method: 'POST', path: '/v1/plans', fn: 'create-plan', access: 'write', body: createPlanBodySchema },
  { method: 'GET', path: '/v1/plans', fn: 'list-plans', access: 'read', query: listPlansQuerySchema },
  { method: 'GET', path: '/v1/plans/{plan_id}', fn: 'get-plan', access: 'read' },
  { method: 'POST', path: '/v1/plans/{plan_id}', fn: 'update-plan', access: 'write', body: updatePlanBodySchema },
  { method: 'POST', path: '/v1/subscriptions', fn: 'create-subscription', access: 'write', body: createSubscriptionBodySchema },
  { method: 'GET', path: '/v1/subscriptions', fn: 'list-subscriptions', access: 'read', query: listSubscriptionsQuerySchema },
  { method: 'GET', path: '/v1/subscriptions/{subscription_id}', fn: 'get-subscription', access: 'read' },
  { method: 'POST', path: '/v1/subscriptions/{subscription_id}/cancel', fn: 'cancel-subscription', access: 'write', body: cancelSubscriptionBodySchema },
  { method: 'POST', path: '/v1/sandbox/subscriptions/{subscription_id}/advance', fn: 'sandbox-advance-clock', access: 'write', body: advanceClockBodySchema },
  { method: 'GET', path: '/v1/pay/links/{link_id}', fn: 'pay-get-link', access: 'read', public: true },
  { method: 'POST', path: '/v1/pay/links/{link_id}/orders', fn: 'pay-create-link-order', access: 'write', body: linkOrderBodySchema, public: true, grants: ['gateways', 'lightning'] },
  // The hosted payment page's endpoints (buyer-safe views, no token).
  { method: 'GET', path: '/v1/pay/{order_id}', fn: 'pay-get-order', access: 'read', public: true },
  { method: 'POST', path: '/v1/pay/{order_id}/checkout', fn: 'pay-checkout-order', access: 'write', body: payCheckoutBodySchema, public: true, grants: ['gateways', 'lightning'] },
  { method: 'POST', path: '/v1/pay/{order_id}/cancel', fn: 'pay-cancel-order', access: 'write', public: true },
  { method: 'POST', path: '/v1/pay/{order_id}/sandbox-pay', fn: 'pay-sandbox-pay', access: 'write', public: true },
  // The buyer's refund page (the refund link's secret, sent in the body, is the only capability).
  { method: 'POST', path: '/v1/pay/refund', fn: 'pay-open-refund', access: 'read', body: payRefundBodySchema, public: true },
  { method: 'POST', path: '/v1/pay/refund/address', fn: 'pay-set-refund-address', access: 'write', body: payRefundAddressBodySchema, public: true },
  // A plan's link page (the plan id is its capability) and the subscriber's own page (its link's secret, in the body, is the only capability);
  // the two that make a page link's secret (made again from the server key, never stored) read the token key.
  { method: 'GET', path: '/v1/pay/plans/{plan_id}', fn: 'pay-get-plan', access: 'read', public: true },
  { method: 'POST', path: '/v1/pay/plans/{plan_id}/subscriptions', fn: 'pay-create-plan-subscription', access: 'write', body: planSubscriptionBodySchema, public: true, grants: ['token-key'] },
  { method: 'POST', path: '/v1/pay/plans/{plan_id}/subscriber-link', fn: 'pay-plan-subscriber-link', access: 'write', body: subscriberLinkRequestBodySchema, public: true },
  { method: 'POST', path: '/v1/pay/subscriptions/open', fn: 'pay-open-subscription', access: 'read', body: subscriberBodySchema, public: true },
  { method: 'POST', path: '/v1/pay/subscriptions/payment', fn: 'pay-subscription-payment', access: 'write', body: subscriberBodySchema, public: true },
  { method: 'POST', path: '/v1/pay/subscriptions/cancellation', fn: 'pay-cancel-subscription', access: 'write', body: subscriberBodySchema, public: true },
  { method: 'POST', path: '/v1/pay/subscriptions/link', fn: 'pay-renew-subscription-link', access: 'write', body: subscriberBodySchema, public: true, grants: ['token-key'] },
  // Operators' monitors: the payment sources' health (no token, nothing secret).
  { method: 'GET', path: '/v1/health', fn: 'get-health', access: 'read', public: true },
  // Payment gateways' asynchronous notifications (signed by the gateway; no token), at the paths the gateways are given.
  { method: 'POST', path: NOTIFY_PATHS.ALIPAY, fn: 'alipay-notify', access: 'write', gateway: true },
  { method: 'POST', path: NOTIFY_PATHS.ALIGLOBAL, fn: 'aliglobal-notify', access: 'write', gateway: true },
  { method: 'POST', path: NOTIFY_PATHS.WECHAT, fn: 'wechat-notify', access: 'write', gateway: true },
  ...PORTAL_ROUTES,
];
