import type { Decimal } from '#shared/domain/money';
import { formatDecimal } from '#shared/domain/money';

/** A payment at a gateway (Alipay, Alipay Global, WeChat Pay) for one invoice. */
export interface GatewayPaymentRequest {
  /** ALIPAY, ALIGLOBAL or WECHAT. */
  gateway: string;
  invoiceId: string;
  /** In the gateway's settlement fiat (CNY). */
  amount: Decimal;
  description: string;
  /** The buyer is on a phone: the link opens the gateway's app instead of a PC QR page. */
  mobile: boolean;
  expiresAt: Date;
}

export interface GatewayPayment {
  /** Where the buyer pays: the app link (mobile) or the QR page (PC). */
  url: string;
}

/** A payment gateway; a real one is configured by credentials from SSM, the sandbox needs none. */
export interface PaymentGateway {
  createPayment(request: GatewayPaymentRequest): Promise<GatewayPayment>;
}

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
