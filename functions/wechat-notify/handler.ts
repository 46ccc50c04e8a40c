import { gatewayNotifyHandler, WECHAT_ANSWERS } from '#shared/http/gateway-notify';

/** POST /v1/gateways/wechat/notify: WeChat Pay's notifications (payments and refunds), signed, resource encrypted. */
export const handler = gatewayNotifyHandler('WECHAT', WECHAT_ANSWERS);
