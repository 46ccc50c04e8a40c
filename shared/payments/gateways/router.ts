import { apiConfig, section } from '#shared/core/config';
import { secretVariables } from '#shared/core/env';
import { GATEWAY_CURRENCIES } from '#shared/domain/currencies';
import { GatewayRouter } from '#shared/payments/gateways/port';
import { liveGateways as liveGatewaysFrom } from '#shared/payments/gateways/live';

/**
 * Live merchants' gateways (ALIPAY, ALIGLOBAL, WECHAT), each configured by its credentials
 * (`<CODE>_CREDENTIALS_PARAMETER` in AWS) and built on first use; one without credentials
 * fails closed. Its own module so that the functions that only talk to gateways
 * (notifications, refunds, the expiry sweep) do not load address derivation and rate sources.
 */
export const liveGateways = new GatewayRouter((code) => resolver()(code));

/** The gateways' variables (credentials per code, PUBLIC_API_URL), read once by shared/core/config.ts. */
const gatewayEnvironment = section((env) => {
  const names = ['PUBLIC_API_URL', ...GATEWAY_CURRENCIES.flatMap((code) => secretVariables(`${code}_CREDENTIALS`))];
  return Object.fromEntries(names.map((name) => [name, env[name]]));
});

let resolve: ReturnType<typeof liveGatewaysFrom> | undefined;
const resolver = () => (resolve ??= liveGatewaysFrom(gatewayEnvironment(), () => apiConfig().paymentPageUrl));
