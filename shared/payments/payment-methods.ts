import { currency as currencyInfo, isGateway } from '#shared/domain/currencies';
import { PaymentNotAvailableError } from '#shared/domain/errors';
import { formatFixed, toMinorUnits } from '#shared/domain/money';
import { erc20TransferUri } from '#shared/payments/addresses/erc20-uri';
import type { PaymentGateway } from '#shared/payments/gateway';
import { deriveAddress, paymentUri, type AddressCurrency } from '#shared/payments/addresses/index';
import { lightningUri, type LightningNode } from '#shared/payments/lightning/index';
import type { PaymentDetails, PaymentMethods, PaymentRequest } from '#shared/payments/methods';
import type { EthereumConfig } from '#shared/payments/watchers/ethereum/config';
import { nextCounterValue } from '#shared/store/counters';

/**
 * The public BIP32 test-vector-1 account key m/84'/0'/0' (seed 000102...0f). Its private key
 * is published, so it must never receive real funds: it is used only for sandbox merchants.
 */
export const SANDBOX_XPUB =
  'xpub6C1HVMz946r433QEjZGpYYWYcspxXXBPys5PBGkmQboRXE6RLfFiStEkKbWKCZaPgDrzZh9nUEunxuiuy6MNdw23du2Ek7GoKYMJVH8eK5E';

const DERIVED: readonly string[] = ['BTC', 'LTC', 'BCH', 'ETH'];
/** ERC-20 pay currencies: paid to an ETH address (from the ETH key), with the token's own URI. */
const ERC20: readonly string[] = ['USDT_ERC20', 'USDC_ERC20'];

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
  /**
   * Ethereum: the chain id and token contracts payment URIs name, and whether a watcher
   * source is configured (without one, live merchants cannot be paid in ETH or its tokens:
   * nothing would see the payment).
   */
  ethereum: EthereumConfig;
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
    if (DERIVED.includes(code) || ERC20.includes(code)) return this.derived(code, request);
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

  private async derived(code: string, request: PaymentRequest): Promise<PaymentDetails> {
    // Tokens live on their chain's addresses: USDT_ERC20 is paid to an address of the ETH key.
    const chain = (currencyInfo(code).chain ?? code) as AddressCurrency;
    const xpub = this.xpubFor(chain, request);
    if (chain === 'ETH' && !request.merchant.sandbox && !this.config.ethereum.source) {
      throw new PaymentNotAvailableError(`${code} payments are not watched here (no ETH_RPC_URL)`);
    }
    // One counter per (key, chain): every invoice gets the next unused child index, so an ETH
    // and a token invoice never share an address.
    const index = (await nextCounterValue(`address#${chain}#${xpub}`)) - 1;
    const address = deriveAddress(chain, xpub, index);
    const { payPrecision, precision } = currencyInfo(code);
    if (ERC20.includes(code)) {
      const { chainId, contracts } = this.config.ethereum;
      const contract = contracts[code as keyof typeof contracts];
      return { payment_address: address, payment_uri: erc20TransferUri(contract, chainId, address, request.amount, precision) };
    }
    const amount = formatFixed(request.amount, payPrecision);
    const extras = chain === 'ETH' ? { chainId: this.config.ethereum.chainId } : {};
    return { payment_address: address, payment_uri: paymentUri(chain, address, amount, extras) };
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
      clientIp: request.clientIp,
    });
    return { payment_address: url, payment_uri: url, gateway_url: url };
  }
}
