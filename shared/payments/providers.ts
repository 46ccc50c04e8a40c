import { apiConfig } from '#shared/config';
import { flag, optionalString, positiveInteger } from '#shared/env';
import { HttpRateProvider } from '#shared/payments/http-rates';
import { tableRateCache } from '#shared/store/rates';
import { SandboxLightningNode } from '#shared/payments/lightning/index';
import type { PaymentMethods } from '#shared/payments/methods';
import { NoRateProvider, type RateProvider, StaticRateProvider } from '#shared/payments/rates';
import { HdPaymentMethods } from '#shared/payments/payment-methods';
import { SandboxGateway } from '#shared/payments/gateway';
import { liveGateways } from '#shared/payments/gateways/router';
import { ethereumConfig } from '#shared/payments/watchers/ethereum/config';

/** Sandbox merchants are always priced from the fixed demo table (nothing settles). */
export const sandboxRateProvider: RateProvider = new StaticRateProvider();

/**
 * Rates for live merchants, chosen once at cold start: an HTTP source in the Coinbase
 * exchange-rates format when RATE_SOURCE_URL names one, cached in the table for
 * RATE_MAX_AGE_SECONDS (300) and failing closed (PAYMENT_NOT_AVAILABLE) when stale. Without
 * one, live checkouts fail closed too, unless STATIC_RATES_FOR_LIVE_MERCHANTS is set (the
 * local runtime and the tests do): the demo table must never price real payments.
 */
export function liveRateProvider(env: NodeJS.ProcessEnv): RateProvider {
  const url = optionalString(env, 'RATE_SOURCE_URL');
  if (url) {
    return new HttpRateProvider({ url, maxAgeSeconds: positiveInteger(env, 'RATE_MAX_AGE_SECONDS', 300), cache: tableRateCache });
  }
  return flag(env, 'STATIC_RATES_FOR_LIVE_MERCHANTS') ? sandboxRateProvider : new NoRateProvider();
}

export const rateProvider: RateProvider = liveRateProvider(process.env);

export const paymentMethods: PaymentMethods = new HdPaymentMethods({
  platformXpubs: {
    BTC: optionalString(process.env, 'PLATFORM_XPUB_BTC'),
    LTC: optionalString(process.env, 'PLATFORM_XPUB_LTC'),
    BCH: optionalString(process.env, 'PLATFORM_XPUB_BCH'),
    ETH: optionalString(process.env, 'PLATFORM_XPUB_ETH'),
  },
  eosAccount: optionalString(process.env, 'EOS_ACCOUNT'),
  lightning: new SandboxLightningNode(),
  gateway: liveGateways,
  sandboxGateway: new SandboxGateway(apiConfig.paymentPageUrl),
  ethereum: ethereumConfig(process.env),
});
