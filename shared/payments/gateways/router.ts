import { apiConfig, section } from '#shared/core/config';
import { secretVariables } from '#shared/core/env';
import { GATEWAY_CURRENCIES } from '#shared/domain/currencies';
import { PaymentNotAvailableError } from '#shared/domain/errors';
import { liveGatewayResolver } from '#shared/payments/gateways/live';
import { GatewayCallError, type GatewayPayment, type GatewayPaymentRequest, type LiveGateway, type PaymentGateway } from '#shared/payments/gateways/port';

/** The live gateways configured, by pay currency; a code without one fails closed. */
export class GatewayRouter implements PaymentGateway {
  constructor(private readonly resolve: (code: string) => Promise<LiveGateway | undefined>) {}

  /** The configured gateway for `code`, or undefined (throws PaymentNotAvailableError when configured but unusable). */
  get(code: string): Promise<LiveGateway | undefined> {
    return this.resolve(code);
  }

  async createPayment(request: GatewayPaymentRequest): Promise<GatewayPayment> {
    try {
      const gateway = await this.resolve(request.gateway);
      if (!gateway) throw new PaymentNotAvailableError(`${request.gateway} gateway is not configured`);
      return await gateway.createPayment(request);
    } catch (error) {
      if (error instanceof GatewayCallError) throw new PaymentNotAvailableError(undefined, error);
      throw error;
    }
  }
}

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

let resolve: ReturnType<typeof liveGatewayResolver> | undefined;
const resolver = () => (resolve ??= liveGatewayResolver(gatewayEnvironment(), () => apiConfig().paymentPageUrl));
