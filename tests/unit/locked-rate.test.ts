import { describe, expect, it } from 'vitest';
import { lockedRateText, ratioText, rateTime } from '../../web/portal/src/rate-text';

/** The refund card's locked rate, as the portal writes it (issue 41: "1 USD = 1/1 USDC_ARB (static, 1 Jan 1970 ...)"). */
describe("a refund's locked rate, as the portal reads it", () => {
  it('reads a ratio as a decimal of eight significant digits, never a fraction or an exponent', () => {
    expect(ratioText('1', '1')).toBe('1');
    expect(ratioText('1', '65000')).toBe('0.000015384615');
    expect(ratioText('7.1', '1')).toBe('7.1');
    expect(ratioText('3', '2')).toBe('1.5');
    expect(ratioText('1', '3')).toBe('0.33333333');
    // Nothing to divide: the ratio as given, not NaN or Infinity.
    expect(ratioText('1', '0')).toBe('1/0');
  });

  it("gives a static table's rate no date, and a read rate its time in the user's language", () => {
    expect(rateTime(new Date(0).toISOString(), 'en')).toBe('');
    expect(rateTime('2026-12-02T10:00:00.000Z', 'en')).toBe('2 Dec 2026, 10:00:00 UTC');
    expect(rateTime('2026-12-02T10:00:00.000Z', 'zh')).toMatch(/^2026年12月2日 10:00:00 UTC$/);
  });

  it("writes the card's line: the fiat value in its decimals, the rate, its source and time", () => {
    const staticRate = { fiat_amount: '1.5', fiat_currency: 'USD', numerator: '1', denominator: '1', source: 'static', as_of: new Date(0).toISOString() };
    expect(lockedRateText(staticRate, 'USDC_ARB', 'en')).toBe('1.50 USD · 1 USD = 1 USDC_ARB (static)');
    const read = { fiat_amount: '65', fiat_currency: 'USD', numerator: '1', denominator: '65000', source: 'coingecko', as_of: '2026-12-02T10:00:00.000Z' };
    expect(lockedRateText(read, 'BTC', 'en')).toBe('65.00 USD · 1 USD = 0.000015384615 BTC (coingecko, 2 Dec 2026, 10:00:00 UTC)');
  });
});
