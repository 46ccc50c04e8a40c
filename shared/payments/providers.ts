import { apiConfig } from '#shared/config';
import { optionalString } from '#shared/env';
import { SandboxLightningNode } from '#shared/payments/lightning/index';
import type { PaymentMethods } from '#shared/payments/methods';
import { type RateProvider, StaticRateProvider } from '#shared/payments/rates';
import { HdPaymentMethods } from '#shared/payments/sandbox-methods';

/**
 * The external providers of this process, chosen from the environment once at cold start.
 * Rates: the static table (RATE_SOURCE unset or "static"); an HTTP source is configured by URL.
 */
export const rateProvider: RateProvider = new StaticRateProvider();

export const paymentMethods: PaymentMethods = new HdPaymentMethods({
  platformXpubs: {
    BTC: optionalString(process.env, 'PLATFORM_XPUB_BTC'),
    LTC: optionalString(process.env, 'PLATFORM_XPUB_LTC'),
    BCH: optionalString(process.env, 'PLATFORM_XPUB_BCH'),
    ETH: optionalString(process.env, 'PLATFORM_XPUB_ETH'),
  },
  eosAccount: optionalString(process.env, 'EOS_ACCOUNT'),
  lightning: new SandboxLightningNode(),
  sandboxGatewayUrl: apiConfig.paymentPageUrl,
});
