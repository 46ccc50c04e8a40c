import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { add, compare, decimalFromNumber, divide, formatDecimal, formatFixed, fromMinorUnits, multiply, parseDecimal, roundTo, toMinorUnits } from '#shared/domain/money';
import { convert, payAmountFor, receiveAmountFor, StaticRateProvider, type ExchangeRate } from '#shared/payments/rates';
import { parsePrice } from '#shared/domain/price';
import { InvalidPriceError } from '#shared/domain/errors';

const d = parseDecimal;
const s = formatDecimal;

describe('decimal arithmetic', () => {
  it('adds 0.1 and 0.2 to exactly 0.3', () => {
    expect(0.1 + 0.2).not.toBe(0.3); // what floats do
    expect(s(add(decimalFromNumber(0.1), decimalFromNumber(0.2)))).toBe('0.3');
  });

  it('parses and prints without losing digits', () => {
    expect(s(d('123456789012345678901234567890.123456789012345678'))).toBe('123456789012345678901234567890.123456789012345678');
    expect(s(d('1e-7'))).toBe('0.0000001');
    expect(s(d('1.5e+21'))).toBe('1500000000000000000000');
    expect(s(d('-0.50'))).toBe('-0.5');
    expect(s(d('000.000'))).toBe('0');
    expect(() => d('1,5')).toThrow();
    expect(() => d('')).toThrow();
    expect(() => d('NaN')).toThrow();
  });

  it('reads JSON numbers as the decimals they were written as', () => {
    expect(s(decimalFromNumber(9.99))).toBe('9.99');
    expect(s(decimalFromNumber(1e-8))).toBe('0.00000001');
    expect(s(decimalFromNumber(999999999999.99))).toBe('999999999999.99');
    expect(() => decimalFromNumber(Infinity)).toThrow();
    expect(() => decimalFromNumber(NaN)).toThrow();
  });

  it('multiplies 8-decimal amounts exactly where floats drift', () => {
    expect(0.00000003 * 3).not.toBe(0.00000009);
    expect(s(multiply(d('0.00000003'), d('3')))).toBe('0.00000009');
    expect(s(multiply(d('19.99'), d('3')))).toBe('59.97');
  });

  it('rounds once, in the asked direction', () => {
    expect(s(divide(d('10'), d('3'), 2, 'down'))).toBe('3.33');
    expect(s(divide(d('10'), d('3'), 2, 'up'))).toBe('3.34');
    expect(s(divide(d('10'), d('3'), 2, 'half-up'))).toBe('3.33');
    expect(s(divide(d('2'), d('3'), 2, 'half-up'))).toBe('0.67');
    expect(s(roundTo(d('1.005'), 2, 'half-up'))).toBe('1.01');
    expect(s(roundTo(d('-1.005'), 2, 'half-up'))).toBe('-1.01');
    expect(s(roundTo(d('-1.001'), 2, 'up'))).toBe('-1.01');
    expect(formatFixed(d('0.001'), 8)).toBe('0.00100000');
    expect(formatFixed(d('17.3625'), 4)).toBe('17.3625');
  });

  it('converts to and from minor units exactly, refusing sub-unit amounts', () => {
    expect(toMinorUnits(d('0.00000001'), 8)).toBe(1n);
    expect(toMinorUnits(d('21000000'), 8)).toBe(2_100_000_000_000_000n);
    expect(toMinorUnits(d('0.01'), 18)).toBe(10_000_000_000_000_000n);
    expect(() => toMinorUnits(d('0.001'), 2)).toThrow();
    expect(s(fromMinorUnits(123n, 2))).toBe('1.23');
  });

  it('compares across scales', () => {
    expect(compare(d('1.10'), d('1.1'))).toBe(0);
    expect(compare(d('0.00000001'), d('0'))).toBe(1);
    expect(compare(d('-2'), d('1.5'))).toBe(-1);
  });
});

describe('conversion never loses or invents a minor unit', () => {
  const decimalArb = (maxUnits: bigint, scale: number) => fc.bigInt({ min: 1n, max: maxUnits }).map((units) => ({ units, scale }));

  it('rounds the pay amount up to the smallest amount that covers the price, and receive down', async () => {
    fc.assert(
      fc.property(
        decimalArb(10n ** 14n, 2), // price with cents, below one trillion
        decimalArb(10n ** 12n, 4), // USD price of the price currency
        decimalArb(10n ** 12n, 4), // USD price of the pay currency
        fc.integer({ min: 0, max: 8 }),
        (price, fromUsd, toUsd, places) => {
          const rate: ExchangeRate = { from: 'A', to: 'B', numerator: fromUsd, denominator: toUsd, source: 't', asOf: new Date(0) };
          const up = convert(price, rate, places, 'up');
          const down = convert(price, rate, places, 'down');
          const exact = multiply(price, fromUsd); // value in USD * toUsd = pay * toUsd
          const unit = { units: 1n, scale: places };
          // up * toUsd >= exact and (up - unit) * toUsd < exact: the smallest covering amount.
          expect(compare(multiply(up, toUsd), exact)).toBeGreaterThanOrEqual(0);
          expect(compare(multiply(add(up, { units: -1n, scale: places }), toUsd), exact)).toBe(-1);
          // down * toUsd <= exact and (down + unit) * toUsd > exact.
          expect(compare(multiply(down, toUsd), exact)).toBeLessThanOrEqual(0);
          expect(compare(multiply(add(down, unit), toUsd), exact)).toBe(1);
          // Both land on the target's precision.
          expect(toMinorUnits(up, places) - toMinorUnits(down, places)).toBeLessThanOrEqual(1n);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('prices the sandbox table exactly', async () => {
    const rates = new StaticRateProvider();
    const now = new Date();
    // 65 USD at 65000 USD/BTC is exactly 0.001 BTC; 100 USD in ETH at 3000 is 0.0333333...
    expect(s(payAmountFor(d('65'), await rates.getRate('USD', 'BTC', now)))).toBe('0.001');
    expect(s(payAmountFor(d('100'), await rates.getRate('USD', 'ETH', now)))).toBe('0.03333334');
    expect(s(receiveAmountFor(d('100'), await rates.getRate('CNY', 'USD', now)))).toBe('13.89');
    expect(s(payAmountFor(d('100'), await rates.getRate('CNY', 'ALIPAY', now)))).toBe('100');
    await expect(rates.getRate('USD', 'XYZ', now)).rejects.toThrow(/XYZ/);
  });
});

describe('parsePrice', () => {
  it.each([
    [9.99, 'USD', '9.99'],
    [1, 'JPY', '1'],
    [0.00000001, 'BTC', '0.00000001'],
    [999999999999.99, 'USD', '999999999999.99'],
    // The decimal text a request carried (a JSON number's own digits, or PHP's "19.90").
    ['19.90', 'USD', '19.9'],
    ['0.00000001', 'BTC', '0.00000001'],
  ])('accepts %s %s', (value, currency, expected) => {
    expect(s(parsePrice(value, currency))).toBe(expected);
  });

  it.each([
    [0, 'USD'],
    [-1, 'USD'],
    [1.5, 'JPY'],
    [0.1 + 0.2, 'USD'],
    [1e12, 'USD'],
    [Infinity, 'USD'],
    [NaN, 'USD'],
    ['five', 'USD'],
    ['-5', 'USD'],
    ['1e2', 'USD'],
    [' 5', 'USD'],
    ['9.999999999999999999999', 'USD'],
    [0.000000001, 'BTC'],
  ])('refuses %s %s', (value, currency) => {
    expect(() => parsePrice(value, currency)).toThrow(InvalidPriceError);
  });
});
