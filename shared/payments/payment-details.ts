import type { Decimal } from '#shared/domain/money';
import type { MerchantProfile } from '#shared/domain/merchant';
import type { Invoice } from '#shared/domain/order';

/** What a buyer needs to pay an invoice in one currency: the invoice's payment fields, as a payment method makes them. */
export type PaymentDetails = Pick<Invoice, 'payment_address' | 'payment_uri' | 'memo' | 'watched_address' | 'gateway_url' | 'address_index'>;

export interface PaymentRequest {
  merchant: MerchantProfile;
  orderId: string;
  invoiceId: string;
  currency: string;
  /** Exact amount in the pay currency (gateways: in their settlement fiat). */
  amount: Decimal;
  description: string;
  expiresAt: Date;
  mobile: boolean;
  fast: boolean;
  now: Date;
  /** The caller's IP address (WeChat Pay's H5 payments need the buyer's). */
  clientIp?: string;
}

/** Produces payment details for an invoice: addresses, memos, Lightning or gateway links. */
export interface PaymentMethods {
  /** Throws PaymentNotAvailableError when the currency cannot be paid right now. */
  paymentDetails(request: PaymentRequest): Promise<PaymentDetails>;
  /**
   * Takes back details that were never shown to anyone (the write that would have shown them
   * failed for certain): an HD address index goes back to its key's sequence.
   */
  releaseDetails(merchant: MerchantProfile, currency: string, details: PaymentDetails): Promise<void>;
}
