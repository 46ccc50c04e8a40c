import { apiConfig } from '#shared/core/config';
import { GatewayRouter } from '#shared/payments/gateway';
import { liveGateways as liveGatewaysFrom } from '#shared/payments/gateways/live';

/**
 * Live merchants' gateways (ALIPAY, ALIGLOBAL, WECHAT), each configured by its credentials
 * (`<CODE>_CREDENTIALS_PARAMETER` in AWS) and built on first use; one without credentials
 * fails closed. Its own module so that the functions that only talk to gateways
 * (notifications, refunds, the expiry sweep) do not load address derivation and rate sources.
 */
export const liveGateways = new GatewayRouter(liveGatewaysFrom(process.env, () => apiConfig().paymentPageUrl));
