import { ALIPAY_ANSWERS, gatewayNotifyHandler } from '#shared/http/gateway-notify';

/** POST /v1/gateways/aliglobal/notify: Alipay Global's asynchronous trade notification (a signed form POST). */
export const handler = gatewayNotifyHandler('ALIGLOBAL', ALIPAY_ANSWERS);
