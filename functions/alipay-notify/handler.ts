import { ALIPAY_ANSWERS, gatewayNotifyHandler } from '#shared/http/gateway-notify';

/** POST /v1/gateways/alipay/notify: Alipay's asynchronous trade notification (a signed form POST). */
export const handler = gatewayNotifyHandler('ALIPAY', ALIPAY_ANSWERS);
