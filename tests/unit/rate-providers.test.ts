import { describe, expect, it } from 'vitest';
import { readRatesConfig } from '#shared/core/config';
import { HttpRateProvider } from '#shared/payments/http-rates';
import { liveRateProvider, sandboxRateProvider } from '#shared/payments/providers';
import { RateUnavailableError } from '#shared/payments/rates';

describe("live merchants' rates", () => {
  it('fail closed when no rate source is configured: the demo table never prices real payments', async () => {
    const rates = liveRateProvider(readRatesConfig({}));
    await expect(rates.getRate('USD', 'BTC', new Date())).rejects.toBeInstanceOf(RateUnavailableError);
    await expect(rates.getRate('USD', 'BTC', new Date())).rejects.toThrow(/RATE_SOURCE_URL/);
  });

  it('come from the HTTP source when RATE_SOURCE_URL names one', () => {
    expect(liveRateProvider(readRatesConfig({ RATE_SOURCE_URL: 'https://rates.example/v2/exchange-rates' }))).toBeInstanceOf(HttpRateProvider);
  });

  it('come from the demo table only where it is asked for explicitly (the local runtime, tests)', async () => {
    const rates = liveRateProvider(readRatesConfig({ STATIC_RATES_FOR_LIVE_MERCHANTS: 'true' }));
    expect(rates).toBe(sandboxRateProvider);
    expect((await rates.getRate('USD', 'BTC', new Date())).source).toBe('static');
  });
});
