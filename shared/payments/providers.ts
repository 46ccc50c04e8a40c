import { apiConfig, ratesConfig, type readRatesConfig, receivingConfig } from '#shared/core/config';
import { eosConfig } from '#shared/chains/eos';
import { HttpRateProvider } from '#shared/payments/http-rates';
import { tableRateCache } from '#shared/store/rates';
import { SandboxLightningNode } from '#shared/payments/lightning/index';
import { lndConfig } from '#shared/payments/lightning/lnd-config';
import { LndRestNode } from '#shared/payments/lightning/lnd-rest';
import type { PaymentMethods } from '#shared/payments/payment-details';
import { NoRateProvider, type RateProvider, StaticRateProvider } from '#shared/payments/rates';
import { HdPaymentMethods } from '#shared/payments/payment-methods';
import { SandboxGateway } from '#shared/payments/gateways/sandbox';
import { liveGateways } from '#shared/payments/gateways/router';
import { liveWatchedCurrencies } from '#shared/payments/availability';
import { evmSettings } from '#shared/chains/evm';
import { tronSettings } from '#shared/chains/tron';
import { solanaSettings } from '#shared/chains/solana';
import { tonSettings } from '#shared/chains/ton';
import { stellarSettings } from '#shared/chains/stellar';

/**
 * The payment providers of the process, each built the first time it is needed (so a module
 * importing this one costs nothing at cold start) from the configuration (shared/core/config.ts).
 */

/** Sandbox merchants are always priced from the fixed demo table (nothing settles). */
export const sandboxRateProvider: RateProvider = new StaticRateProvider();

/**
 * Rates for live merchants, chosen once per process: an HTTP source in the Coinbase
 * exchange-rates format when RATE_SOURCE_URL names one, cached in the table for
 * RATE_MAX_AGE_SECONDS (300) and failing closed (PAYMENT_NOT_AVAILABLE) when stale. Without
 * one, live checkouts fail closed too, unless STATIC_RATES_FOR_LIVE_MERCHANTS is set (the
 * local runtime and the tests do): the demo table must never price real payments.
 */
export function liveRateProvider(config: ReturnType<typeof readRatesConfig>): RateProvider {
  if (config.sourceUrl) {
    return new HttpRateProvider({ url: config.sourceUrl, maxAgeSeconds: config.maxAgeSeconds, cache: tableRateCache });
  }
  return config.staticForLiveMerchants ? sandboxRateProvider : new NoRateProvider();
}

let rates: RateProvider | undefined;
let methods: PaymentMethods | undefined;

/** The live merchants' rate provider of the process. */
export const rateProvider = (): RateProvider => (rates ??= liveRateProvider(ratesConfig()));

/** The LND node live merchants' LBTC invoices come from, when LND_REST_URL names one. */
function liveLightningNode(): LndRestNode | undefined {
  const { client } = lndConfig();
  return client && new LndRestNode(client);
}

/** The payment methods of the process (address derivation, Lightning, gateways). */
export function paymentMethods(): PaymentMethods {
  return (methods ??= new HdPaymentMethods({
    ...receivingConfig(),
    // Live merchants are paid in EOS and LBTC only where a watcher sees those payments: EOS
    // with EOS_ACCOUNT and EOS_HISTORY_URL (Hyperion), LBTC with LND_REST_URL (its macaroon
    // and certificate read on first use). Otherwise PAYMENT_NOT_AVAILABLE; sandbox merchants
    // always get the sandbox account and node.
    eosAccount: eosConfig().watched ? eosConfig().account : undefined,
    lightning: liveLightningNode(),
    sandboxLightning: new SandboxLightningNode(),
    // Live gateways (credentials from SSM or the environment); one without credentials
    // fails closed (PAYMENT_NOT_AVAILABLE), sandbox merchants get the sandbox gateway.
    gateway: liveGateways,
    sandboxGateway: new SandboxGateway(apiConfig().paymentPageUrl),
    evm: evmSettings(),
    tronContract: tronSettings().contract,
    solana: { mints: Object.fromEntries(solanaSettings().tokens.map((token) => [token.currency, token.mint])), platformWallet: solanaSettings().platformWallet },
    ton: { usdtMaster: tonSettings().usdtMaster, platformWallet: tonSettings().platformWallet },
    stellar: { issuer: stellarSettings().issuer, platformWallet: stellarSettings().platformWallet },
    latePaymentWindowSeconds: apiConfig().latePaymentWindowSeconds,
    watchedCurrencies: liveWatchedCurrencies(),
  }));
}
