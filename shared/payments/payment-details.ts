import type { Decimal } from '#shared/domain/money';
import type { MerchantProfile } from '#shared/domain/merchant';

/** What a buyer needs to pay an invoice in one currency. */
export interface PaymentDetails {
  payment_address: string;
  /** A URI a wallet opens (BIP21, EIP-681, lightning:...), also the QR code's content. */
  payment_uri: string;
  memo?: string;
  /**
   * Where payments arrive when it is not `payment_address` (USDC_XLM: the plain account of the
   * muxed payment address): what the address index and the watcher's list name.
   */
  watched_address?: string;
  /** A gateway's own payment link (used as `payment_url` when `fast` is set). */
  gateway_url?: string;
  /** HD currencies: the child index the address was derived at (operators sweep by it). */
  address_index?: number;
}

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
