import { formatDecimal } from '#shared/domain/money';
import type { GatewayPayment, GatewayPaymentRequest, PaymentGateway } from '#shared/payments/gateways/port';

/**
 * The sandbox gateway: links to a page of the payment page's own host that says what a real
 * gateway would show. Nothing is charged; sandbox payments are simulated over the API.
 */
export class SandboxGateway implements PaymentGateway {
  constructor(private readonly pageBaseUrl: string) {}

  async createPayment(request: GatewayPaymentRequest): Promise<GatewayPayment> {
    const page = new URL(`sandbox-gateway/${request.gateway.toLowerCase()}`, this.pageBaseUrl);
    page.searchParams.set('invoice', request.invoiceId);
    page.searchParams.set('amount', formatDecimal(request.amount));
    page.searchParams.set('mode', request.mobile ? 'app' : 'qr');
    return { url: page.toString() };
  }
}
