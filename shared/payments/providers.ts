import { apiConfig, ratesConfig, type readRatesConfig, receivingConfig } from '#shared/core/config';
import { HttpRateProvider } from '#shared/payments/http-rates';
import { tableRateCache } from '#shared/store/rates';
import { SandboxLightningNode } from '#shared/payments/lightning/index';
import type { PaymentMethods } from '#shared/payments/methods';
import { NoRateProvider, type RateProvider, StaticRateProvider } from '#shared/payments/rates';
import { HdPaymentMethods } from '#shared/payments/payment-methods';
import { SandboxGateway } from '#shared/payments/gateway';
import { liveGateways } from '#shared/payments/gateways/router';
import { chainSourcesConfig, watchedCurrencies } from '#shared/payments/watchers/config';
import { SOURCE_FACTORIES } from '#shared/payments/watchers/sources';
import { ethereumSettings } from '#shared/payments/watchers/ethereum/config';

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

/** The payment methods of the process (address derivation, Lightning, gateways). */
export function paymentMethods(): PaymentMethods {
  return (methods ??= new HdPaymentMethods({
    ...receivingConfig(),
    // Nothing watches EOS transfers or settles Lightning invoices yet: live merchants get
    // PAYMENT_NOT_AVAILABLE for EOS and LBTC, sandbox merchants the sandbox account and node.
    eosAccount: undefined,
    lightning: undefined,
    sandboxLightning: new SandboxLightningNode(),
    // Live gateways (credentials from SSM or the environment); one without credentials
    // fails closed (PAYMENT_NOT_AVAILABLE), sandbox merchants get the sandbox gateway.
    gateway: liveGateways,
    sandboxGateway: new SandboxGateway(apiConfig().paymentPageUrl),
    ethereum: ethereumSettings(),
    watchedCurrencies: watchedCurrencies(chainSourcesConfig().sources, (kind) => SOURCE_FACTORIES[kind] !== undefined),
  }));
}
