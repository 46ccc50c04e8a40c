/**
 * The path each gateway posts its asynchronous notifications to, written once: the route table
 * serves these paths (shared/http/routes.ts) and each gateway is given its URL on
 * `PUBLIC_API_URL` (shared/payments/gateways/live.ts). They are declared here, not in the route
 * table, because a gateway imports only core and domain (docs/architecture.md, "Layers and the
 * direction of imports"), never shared/http/.
 */
export const NOTIFY_PATHS = {
  ALIPAY: '/v1/gateways/alipay/notify',
  ALIGLOBAL: '/v1/gateways/aliglobal/notify',
  WECHAT: '/v1/gateways/wechat/notify',
} as const;
