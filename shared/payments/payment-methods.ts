import { randomBytes } from 'node:crypto';
import { chainOf, currency as currencyInfo, isGateway, keyOf } from '#shared/domain/currencies';
import { PaymentNotAvailableError } from '#shared/domain/errors';
import { formatFixed, toMinorUnits } from '#shared/domain/money';
import { erc20TransferUri } from '#shared/payments/addresses/erc20-uri';
import type { PaymentGateway } from '#shared/payments/gateways/port';
import { deriveAddress, eosTransferUri, paymentUri, solanaPayUri, tronTokenUri, type AddressCurrency } from '#shared/payments/addresses/index';
import { lightningUri, type LightningNode } from '#shared/payments/lightning/index';
import type { PaymentDetails, PaymentMethods, PaymentRequest } from '#shared/payments/payment-details';
import type { EvmSettings } from '#shared/chains/evm';
import type { MerchantProfile } from '#shared/domain/merchant';
import { WALLET_NETWORK_OF, type WalletNetwork } from '#shared/domain/networks';
import { SourceError } from '#shared/core/source-error';
import { returnAddressIndex, takeAddressIndex } from '#shared/store/derivation-indexes';
import { BLOCK_CHAIN_ITEMS, PER_ADDRESS_ITEMS, type WatchedAddress, watchAddress } from '#shared/store/watch-list';
import { MAINNET_USDT_TRC20 } from '#shared/chains/tron';
import { MAINNET_PYUSD_MINT, MAINNET_USDC_SOL_MINT } from '#shared/chains/solana';
import { newSolanaReference } from '#shared/payments/addresses/solana';
import { tonTransferUri, usdtTonTransferUri } from '#shared/payments/addresses/ton';
import { muxedAddress, newMemoId, stellarPayUri } from '#shared/payments/addresses/stellar';
import { MAINNET_USDT_TON_MASTER } from '#shared/chains/ton';
import { MAINNET_USDC_XLM_ISSUER } from '#shared/chains/stellar';

/**
 * The public BIP32 test-vector-1 account key m/84'/0'/0' (seed 000102...0f). Its private key
 * is published, so it must never receive real funds: it is used only for sandbox merchants.
 */
export const SANDBOX_XPUB = 'xpub6C1HVMz946r433QEjZGpYYWYcspxXXBPys5PBGkmQboRXE6RLfFiStEkKbWKCZaPgDrzZh9nUEunxuiuy6MNdw23du2Ek7GoKYMJVH8eK5E';

/**
 * The Solana wallet sandbox USDC_SOL invoices name: the public key of the all-zero ed25519 seed
 * (its private key is that seed: anyone has it). Sandbox payments are simulated.
 */
export const SANDBOX_SOL_WALLET = '4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS';

/**
 * The TON wallet sandbox TON and USDT_TON invoices name: an account whose address is a hash of a
 * text (no key has it, no contract can be deployed at it). Sandbox payments are simulated.
 */
export const SANDBOX_TON_WALLET = 'UQB3we_mCY94Qap7o--GvWAXgaKI9iJ-r9QgNAEmR1UokEKN';

/** The Stellar account sandbox USDC_XLM invoices name: the all-zero seed's (anyone has its key). Sandbox payments are simulated. */
export const SANDBOX_XLM_ACCOUNT = 'GA5WUJ54Z23KILLCUOUNAKTPBVZWKMQVO4O6EQ5GHLAERIMLLHNCSKYH';

/** Each wallet network's sandbox wallet (their keys are public or nonexistent: nothing of them settles). */
const SANDBOX_WALLETS: Readonly<Record<WalletNetwork, string>> = { SOL: SANDBOX_SOL_WALLET, TON: SANDBOX_TON_WALLET, XLM: SANDBOX_XLM_ACCOUNT };

/** The EOS account sandbox invoices name; nothing watches it, sandbox payments are simulated. */
export const SANDBOX_EOS_ACCOUNT = 'sandboxpayio';

/** The keys invoice addresses are derived from: a currency whose key is one of these is paid to a fresh address. */
const DERIVED: readonly string[] = ['BTC', 'LTC', 'BCH', 'ETH', 'TRX'];
const isDerived = (code: string): boolean => DERIVED.includes(keyOf(code));

/** The counter of a key's child indexes (one per key and chain). */
export const counterName = (chain: AddressCurrency, xpub: string): string => `address#${chain}#${xpub}`;

/** The key whose addresses a currency is paid to (every EVM network's: ETH's). */
const addressKeyOf = (code: string): AddressCurrency => keyOf(code) as AddressCurrency;

export interface PaymentMethodsConfig {
  /** Platform extended public keys per currency (the fallback when a merchant has none). */
  platformXpubs: Readonly<Partial<Record<AddressCurrency, string>>>;
  /**
   * Live merchants' EOS account (each invoice gets its own memo); set only where a watcher
   * reads its transfers. Undefined: EOS fails closed for live merchants.
   */
  eosAccount: string | undefined;
  /** Live merchants' Lightning node (LND); undefined: LBTC fails closed for live merchants. */
  lightning: LightningNode | undefined;
  /** The simulated node sandbox merchants' invoices come from (its key is public). */
  sandboxLightning: LightningNode;
  /** Gateways for live merchants that have them enabled (none configured: only sandbox). */
  gateway: PaymentGateway | undefined;
  /** The gateway sandbox merchants use. */
  sandboxGateway: PaymentGateway;
  /** Every EVM network: the chain id, coin and token contracts payment URIs name. */
  evm: EvmSettings;
  /** TRON: the USDT contract payment URIs name (default mainnet USDT). */
  tronContract?: string;
  /** Solana: the mints payment URIs name (USDC_SOL's, PYUSD's), and the platform's wallet (live merchants without their own). */
  solana?: { mints: Readonly<Record<string, string>>; platformWallet?: string };
  /** TON: the USDT jetton master payment URIs name, and the platform's wallet (live merchants without their own). */
  ton?: { usdtMaster: string; platformWallet?: string };
  /** Stellar: the USDC issuer payment URIs name, and the platform's account (live merchants without their own). */
  stellar?: { issuer: string; platformWallet?: string };
  /**
   * How long after expiry a per-address source still asks about an invoice's address
   * (LATE_PAYMENT_WINDOW_SECONDS): TRON's watcher polls addresses, not blocks (watch-list.ts).
   */
  latePaymentWindowSeconds?: number;
  /**
   * The pay currencies a watcher can see paid (their chain has a source: ETH_RPC_URL gives ETH,
   * USDT_ERC20 and USDC_ERC20, ARBITRUM_RPC_URL gives ETH_ARB, USDT_ARB and USDC_ARB, ...). A
   * live merchant's invoice in any other fails closed: nobody would ever see it paid.
   */
  watchedCurrencies?: ReadonlySet<string>;
}

/**
 * Payment details for every listed currency: a fresh HD address per invoice for BTC, LTC,
 * BCH and ETH (index from an atomic counter per key), an account plus memo for EOS, a BOLT11
 * invoice for LBTC, and gateway links for ALIPAY, ALIGLOBAL and WECHAT.
 *
 * EOS, LBTC and the gateways have a sandbox provider and a real one. A sandbox merchant always
 * gets the sandbox provider (nothing of it settles); a live merchant only ever gets the real
 * one, and without it PaymentNotAvailableError: never a sandbox account, invoice or link.
 */
export class HdPaymentMethods implements PaymentMethods {
  constructor(private readonly config: PaymentMethodsConfig) {}

  async paymentDetails(request: PaymentRequest): Promise<PaymentDetails> {
    const code = request.currency;
    if (isDerived(code)) return this.derived(code, request);
    const network = WALLET_NETWORK_OF[code];
    if (network === 'SOL') return this.solana(code, request);
    if (network === 'TON') return this.ton(code, request);
    if (network === 'XLM') return this.stellar(code, request);
    if (code === 'EOS') return this.eos(request);
    if (code === 'LBTC') return this.lightning(request);
    if (isGateway(code)) return this.gateway(request);
    throw new PaymentNotAvailableError(`${code} cannot be paid here`);
  }

  async releaseDetails(merchant: MerchantProfile, currency: string, details: PaymentDetails): Promise<void> {
    if (!isDerived(currency) || details.address_index === undefined) return;
    const key = addressKeyOf(currency);
    await returnAddressIndex(counterName(key, this.xpubFor(key, merchant)), details.address_index);
  }

  /** The merchant's own key first, then the platform's; sandbox merchants fall back to the test key. */
  private xpubFor(code: AddressCurrency, merchant: MerchantProfile): string {
    const own = merchant.xpubs?.[code];
    if (own) return own;
    const platform = this.config.platformXpubs[code];
    if (platform) return platform;
    if (merchant.sandbox) return SANDBOX_XPUB;
    throw new PaymentNotAvailableError(`${code} has no receiving key configured`);
  }

  private async derived(code: string, request: PaymentRequest): Promise<PaymentDetails> {
    // Tokens and other EVM networks live on their key's addresses: USDT_ERC20 and USDC_BASE
    // are paid to addresses of the ETH key.
    const key = addressKeyOf(code);
    const xpub = this.xpubFor(key, request.merchant);
    if (!request.merchant.sandbox && !this.config.watchedCurrencies?.has(code)) {
      throw new PaymentNotAvailableError(`${code} payments cannot be seen: no ${chainOf(code)} chain source is configured`);
    }
    // One sequence per (key, chain): every invoice gets the lowest unused child index, so no
    // two invoices share an address, on one network or across EVM networks.
    const index = await takeAddressIndex(counterName(key, xpub));
    const address = deriveAddress(key, xpub, index);
    const { payPrecision, precision } = currencyInfo(code);
    const network = this.config.evm[chainOf(code)];
    if (network && code !== network.native) {
      const contract = network.contracts[code];
      if (!contract) throw new PaymentNotAvailableError(`${code} has no contract on ${network.name}`);
      await this.open(code, address, request);
      return {
        payment_address: address,
        payment_uri: erc20TransferUri(contract, network.chainId, address, request.amount, precision),
        address_index: index,
      };
    }
    if (key === 'TRX') return this.tron(code, address, index, request);
    await this.open(code, address, request);
    const amount = formatFixed(request.amount, payPrecision);
    const extras = network ? { chainId: network.chainId } : {};
    return { payment_address: address, payment_uri: paymentUri(key, address, amount, extras), address_index: index };
  }

  /**
   * USDT on TRON: the address goes on the TRON watcher's list (its source is asked per
   * address) while the invoice and its late window last. TRON has no URI standard: the URI names
   * the address, the token contract and the amount (`tron:T...?token=TR7N...&amount=9.99`).
   */
  private async tron(code: string, address: string, index: number, request: PaymentRequest): Promise<PaymentDetails> {
    const contract = this.config.tronContract ?? MAINNET_USDT_TRC20;
    await this.watch('TRON', address, code, request);
    const amount = formatFixed(request.amount, currencyInfo(code).payPrecision);
    return { payment_address: address, payment_uri: tronTokenUri(address, contract, amount), address_index: index };
  }

  /**
   * USDC and PYUSD on Solana (Solana Pay): every invoice is paid to the merchant's one wallet, told apart
   * by a fresh reference key the wallet adds to the transfer (the invoice's memo: the address
   * index finds the invoice by wallet and reference). The reference goes on the Solana
   * watcher's list. `solana:<wallet>?amount=..&spl-token=<mint>&reference=<reference>`.
   */
  private async solana(code: string, request: PaymentRequest): Promise<PaymentDetails> {
    const wallet = this.receivingWallet(code, request);
    const reference = newSolanaReference();
    await this.watch('SOLANA', reference, code, request, { recipient: wallet });
    const mint = this.config.solana?.mints[code] ?? (code === 'PYUSD' ? MAINNET_PYUSD_MINT : MAINNET_USDC_SOL_MINT);
    const amount = formatFixed(request.amount, currencyInfo(code).payPrecision);
    return { payment_address: wallet, memo: reference, payment_uri: solanaPayUri(wallet, amount, mint, reference) };
  }

  /**
   * TON and USDT on TON: every invoice is paid to the merchant's one wallet (its canonical form),
   * told apart by a comment of its own the transfer must carry (the invoice's memo: the address
   * index finds the invoice by wallet and comment): 16 random digits, so no wallet or exchange
   * changes it (no case, no spaces) and two open invoices of a wallet never share one. The
   * wallet goes on the TON watcher's list (it reads the wallet, not the comment). The URI is the
   * `ton://transfer` link wallets open: the amount in nanotons, or for USDT the jetton form with
   * the amount in the jetton's units.
   */
  private async ton(code: string, request: PaymentRequest): Promise<PaymentDetails> {
    const wallet = this.receivingWallet(code, request);
    const comment = newDigitsMemo();
    await this.watch('TON', wallet, code, request, { owner: this.ownerOf(code, request) });
    const units = toMinorUnits(request.amount, currencyInfo(code).precision);
    const uri = code === 'TON' ? tonTransferUri(wallet, units, comment) : usdtTonTransferUri(wallet, units, comment, this.config.ton?.usdtMaster ?? MAINNET_USDT_TON_MASTER);
    return { payment_address: wallet, memo: comment, payment_uri: uri };
  }

  /**
   * USDC on Stellar: every invoice is paid to the merchant's one account, told apart by a random
   * 64-bit id: the payment address is the muxed address (SEP-23 `M...`) of the account and the
   * id, and the id is the memo, a MEMO_ID for wallets and exchanges that can pay only the plain
   * account. The address index and the Stellar watcher's list name the plain account
   * (`watched_address`), which both kinds of payment reach. The URI is a SEP-7 `web+stellar:pay`
   * link to the plain account with the MEMO_ID, which every SEP-7 wallet reads.
   */
  private async stellar(code: string, request: PaymentRequest): Promise<PaymentDetails> {
    const account = this.receivingWallet(code, request);
    const id = newMemoId();
    await this.watch('STELLAR', account, code, request, { owner: this.ownerOf(code, request) });
    const amount = formatFixed(request.amount, currencyInfo(code).payPrecision);
    const issuer = this.config.stellar?.issuer ?? MAINNET_USDC_XLM_ISSUER;
    return {
      payment_address: muxedAddress(account, id),
      watched_address: account,
      memo: id,
      payment_uri: stellarPayUri({ destination: account, amount, assetCode: 'USDC', assetIssuer: issuer, memo: id, memoType: 'MEMO_ID' }),
    };
  }

  /**
   * The one wallet a currency of a wallet network is paid to: the merchant's own, else the
   * platform's; a sandbox merchant's falls back to the public sandbox wallet, never a live one's.
   * A live merchant's fails closed while no source of the currency's chain is configured.
   */
  private receivingWallet(code: string, request: PaymentRequest): string {
    const network = WALLET_NETWORK_OF[code]!;
    const platform = { SOL: this.config.solana?.platformWallet, TON: this.config.ton?.platformWallet, XLM: this.config.stellar?.platformWallet }[network];
    const wallet = request.merchant.wallets?.[network] ?? platform ?? (request.merchant.sandbox ? SANDBOX_WALLETS[network] : undefined);
    if (!wallet) throw new PaymentNotAvailableError(`${code} has no receiving wallet configured`);
    if (!request.merchant.sandbox && !this.config.watchedCurrencies?.has(code)) {
      throw new PaymentNotAvailableError(`${code} payments cannot be seen: no ${chainOf(code)} source is configured`);
    }
    return wallet;
  }

  /**
   * Puts a block chain invoice's address on its chain's watch list (watch-list.ts)
   * while the invoice and its late window last: its watcher looks up only the outputs paid to
   * listed addresses. Written for every invoice, configured source or not (a sandbox invoice
   * is watched too): it must be there before the address is shown.
   */
  private async open(code: string, address: string, request: PaymentRequest): Promise<void> {
    await watchAddress(BLOCK_CHAIN_ITEMS, { chain: chainOf(code), currency: code, address, until: this.lateWindowEnd(request) });
  }

  /** When an invoice's late-payment window ends (LATE_PAYMENT_WINDOW_SECONDS after it expires). */
  private lateWindowEnd(request: PaymentRequest): string {
    return new Date(request.expiresAt.getTime() + (this.config.latePaymentWindowSeconds ?? 7 * 86_400) * 1000).toISOString();
  }

  /** The merchant whose own wallet receives `code` (its user id, for the watch list); undefined for the platform's. */
  private ownerOf(code: string, request: PaymentRequest): string | undefined {
    return request.merchant.wallets?.[WALLET_NETWORK_OF[code]!] ? String(request.merchant.user_id) : undefined;
  }

  /** Puts an address (or reference) on a per-address watcher's list while the invoice and its late window last. */
  private async watch(chain: string, address: string, code: string, request: PaymentRequest, extra: Pick<WatchedAddress, 'recipient' | 'owner'> = {}): Promise<void> {
    if (!this.config.watchedCurrencies?.has(code)) return;
    await watchAddress(PER_ADDRESS_ITEMS, {
      chain,
      address,
      currency: code,
      since: request.now.toISOString(),
      open_until: request.expiresAt.toISOString(),
      until: this.lateWindowEnd(request),
      ...(extra.recipient ? { recipient: extra.recipient } : {}),
      ...(extra.owner ? { owner: extra.owner } : {}),
    });
  }

  private async eos(request: PaymentRequest): Promise<PaymentDetails> {
    const account = request.merchant.sandbox ? SANDBOX_EOS_ACCOUNT : this.config.eosAccount;
    if (!account) throw new PaymentNotAvailableError('EOS has no receiving account configured');
    const memo = request.invoiceId;
    const quantity = `${formatFixed(request.amount, 4)} EOS`;
    return {
      payment_address: account,
      memo,
      payment_uri: eosTransferUri(account, quantity, memo),
    };
  }

  private async lightning(request: PaymentRequest): Promise<PaymentDetails> {
    // BTC amount (8 decimals) to millisatoshi: exact, 1 BTC = 10^11 msat.
    const amountMsat = toMinorUnits(request.amount, 11);
    const node = request.merchant.sandbox ? this.config.sandboxLightning : this.config.lightning;
    if (!node) throw new PaymentNotAvailableError('LBTC has no Lightning node configured');
    let invoice;
    try {
      invoice = await node.createInvoice({
        amountMsat,
        description: request.description.slice(0, 200),
        expirySeconds: Math.max(1, Math.round((request.expiresAt.getTime() - request.now.getTime()) / 1000)),
        now: request.now,
      });
    } catch (error) {
      // The node is down or answered garbage: nothing to show the buyer, try again later.
      if (error instanceof SourceError) throw new PaymentNotAvailableError(undefined, error);
      throw error;
    }
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

/** 16 random decimal digits, the first not 0 (53 bits: two open invoices of one wallet never share one). */
function newDigitsMemo(): string {
  const value = 10n ** 15n + (BigInt(`0x${randomBytes(8).toString('hex')}`) % (9n * 10n ** 15n));
  return value.toString();
}
