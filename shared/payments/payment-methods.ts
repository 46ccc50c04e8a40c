import { currency as currencyInfo, isGateway } from '#shared/domain/currencies';
import { PaymentNotAvailableError } from '#shared/domain/errors';
import { formatFixed, toMinorUnits } from '#shared/domain/money';
import type { PaymentGateway } from '#shared/payments/gateway';
import { deriveAddress, paymentUri, type AddressCurrency } from '#shared/payments/addresses/index';
import { lightningUri, type LightningNode } from '#shared/payments/lightning/index';
import type { PaymentDetails, PaymentMethods, PaymentRequest } from '#shared/payments/methods';
import { nextCounterValue } from '#shared/store/counters';

/**
 * The public BIP32 test-vector-1 account key m/84'/0'/0' (seed 000102...0f). Its private key
 * is published, so it must never receive real funds: it is used only for sandbox merchants.
 */
export const SANDBOX_XPUB =
  'xpub6C1HVMz946r433QEjZGpYYWYcspxXXBPys5PBGkmQboRXE6RLfFiStEkKbWKCZaPgDrzZh9nUEunxuiuy6MNdw23du2Ek7GoKYMJVH8eK5E';

const DERIVED: readonly string[] = ['BTC', 'LTC', 'BCH', 'ETH'];

export interface PaymentMethodsConfig {
  /** Platform extended public keys per currency (the fallback when a merchant has none). */
  platformXpubs: Readonly<Partial<Record<AddressCurrency, string>>>;
  /** The EOS account that receives payments; each invoice gets its own memo. */
  eosAccount: string | undefined;
  lightning: LightningNode;
  /** Gateways for live merchants that have them enabled (none configured: only sandbox). */
  gateway: PaymentGateway | undefined;
  /** The gateway sandbox merchants use. */
  sandboxGateway: PaymentGateway;
}

/**
 * Payment details for every listed currency: a fresh HD address per invoice for BTC, LTC,
 * BCH and ETH (index from an atomic counter per key), an account plus memo for EOS, a BOLT11
 * invoice for LBTC, and sandbox gateway links for ALIPAY, ALIGLOBAL and WECHAT.
 */
export class HdPaymentMethods implements PaymentMethods {
  constructor(private readonly config: PaymentMethodsConfig) {}

  async paymentDetails(request: PaymentRequest): Promise<PaymentDetails> {
    const code = request.currency;
    if (DERIVED.includes(code)) return this.derived(code as AddressCurrency, request);
    if (code === 'EOS') return this.eos(request);
    if (code === 'LBTC') return this.lightning(request);
    if (isGateway(code)) return this.gateway(request);
    throw new PaymentNotAvailableError(`${code} cannot be paid here`);
  }

  /** The merchant's own key first, then the platform's; sandbox merchants fall back to the test key. */
  private xpubFor(code: AddressCurrency, request: PaymentRequest): string {
    const own = request.merchant.xpubs?.[code];
    if (own) return own;
    const platform = this.config.platformXpubs[code];
    if (platform) return platform;
    if (request.merchant.sandbox) return SANDBOX_XPUB;
    throw new PaymentNotAvailableError(`${code} has no receiving key configured`);
  }

  private async derived(code: AddressCurrency, request: PaymentRequest): Promise<PaymentDetails> {
    const xpub = this.xpubFor(code, request);
    // One counter per (key, currency): every invoice gets the next unused child index.
    const index = (await nextCounterValue(`address#${code}#${xpub}`)) - 1;
    const address = deriveAddress(code, xpub, index);
    const amount = formatFixed(request.amount, currencyInfo(code).payPrecision);
    return { payment_address: address, payment_uri: paymentUri(code, address, amount) };
  }

  private async eos(request: PaymentRequest): Promise<PaymentDetails> {
    const account = this.config.eosAccount ?? (request.merchant.sandbox ? 'sandboxpayio' : undefined);
    if (!account) throw new PaymentNotAvailableError('EOS has no receiving account configured');
    const memo = request.invoiceId;
    const quantity = `${formatFixed(request.amount, 4)} EOS`;
    return {
      payment_address: account,
      memo,
      payment_uri: `eos:${account}?quantity=${encodeURIComponent(quantity)}&memo=${memo}`,
    };
  }

  private async lightning(request: PaymentRequest): Promise<PaymentDetails> {
    // BTC amount (8 decimals) to millisatoshi: exact, 1 BTC = 10^11 msat.
    const amountMsat = toMinorUnits(request.amount, 11);
    const invoice = await this.config.lightning.createInvoice({
      amountMsat,
      description: request.description.slice(0, 200),
      expirySeconds: Math.max(1, Math.round((request.expiresAt.getTime() - request.now.getTime()) / 1000)),
      now: request.now,
    });
    return { payment_address: invoice.bolt11, payment_uri: lightningUri(invoice.bolt11) };
  }

  private async gateway(request: PaymentRequest): Promise<PaymentDetails> {
    const gateway = request.merchant.sandbox ? this.config.sandboxGateway : this.config.gateway;
    if (!gateway) throw new PaymentNotAvailableError(`${request.currency} gateway is not configured`);
    const { url } = await gateway.createPayment({
      gateway: request.currency,
      orderId: request.orderId,
      invoiceId: request.invoiceId,
      amount: request.amount,
      description: request.description,
      mobile: request.mobile,
      expiresAt: request.expiresAt,
      now: request.now,
    });
    return { payment_address: url, payment_uri: url, gateway_url: url };
  }
}
