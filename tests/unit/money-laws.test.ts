import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  add,
  compare,
  type Decimal,
  decimalFromNumber,
  decimalPlaces,
  decimalToNumber,
  divide,
  formatDecimal,
  formatFixed,
  fromMinorUnits,
  InvalidDecimalError,
  isPositive,
  multiply,
  normalize,
  parseDecimal,
  type Rounding,
  roundTo,
  significantDigits,
  subtract,
  toMinorUnits,
  ZERO,
} from '#shared/domain/money';

/**
 * The decimal arithmetic against a model written here independently: a value is the fraction
 * n / 10^k of two bigints, results are checked by cross-multiplication (never through the code
 * under test), and rounding by what each mode promises (the bounds it must land within), not by
 * re-doing its division.
 */
type Fraction = { n: bigint; d: bigint };
const frac = (value: Decimal): Fraction => ({ n: value.units, d: 10n ** BigInt(value.scale) });
const cmp = (a: Fraction, b: Fraction): number => {
  const x = a.n * b.d;
  const y = b.n * a.d;
  return x < y ? -1 : x > y ? 1 : 0;
};
const abs = (f: Fraction): Fraction => ({ n: f.n < 0n ? -f.n : f.n, d: f.d });
const plus = (a: Fraction, b: Fraction): Fraction => ({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });

/** The text a decimal is written as: digits, an optional fraction, the sign. */
const decimalText = fc.tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 20 })).map(([negative, units, scale]) => {
  const digits = units.toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
});
const decimal = decimalText.map(parseDecimal);
const nonZero = decimal.filter((value) => value.units !== 0n);
const ROUNDINGS: Rounding[] = ['up', 'down', 'half-up'];

/** The one canonical form: no trailing zero in the fraction, zero as 0 with scale 0. */
function expectCanonical(value: Decimal): void {
  if (value.units === 0n) expect(value).toEqual({ units: 0n, scale: 0 });
  else if (value.scale > 0) expect(value.units % 10n).not.toBe(0n);
  expect(value.scale).toBeGreaterThanOrEqual(0);
}

/** `rounded` is `exact` rounded to a multiple of 10^-places as `rounding` says. */
function expectRounded(rounded: Decimal, exact: Fraction, places: number, rounding: Rounding): void {
  expect(decimalPlaces(rounded)).toBeLessThanOrEqual(places);
  const r = frac(rounded);
  const unit: Fraction = { n: 1n, d: 10n ** BigInt(places) };
  const error = plus(r, { n: -exact.n, d: exact.d });
  if (cmp(error, { n: 0n, d: 1n }) === 0) return;
  // Never the other side of zero; within one unit.
  expect(rounded.units === 0n || rounded.units < 0n === exact.n < 0n).toBe(true);
  expect(cmp(abs(error), unit)).toBe(-1);
  const away = cmp(abs(r), abs(exact)) > 0;
  if (rounding === 'up') expect(away).toBe(true);
  if (rounding === 'down') expect(away).toBe(false);
  if (rounding === 'half-up') {
    const half = cmp(abs(error), { n: 1n, d: 2n * unit.d });
    expect(half).toBeLessThanOrEqual(0);
    if (half === 0) expect(away).toBe(true);
  }
}

describe('decimal arithmetic against an independent model', () => {
  it('parses and prints every decimal text back to its canonical form', () => {
    fc.assert(
      fc.property(decimalText, (text) => {
        const value = parseDecimal(text);
        expectCanonical(value);
        // Canonical text: no trailing fraction zeros, no leading zeros, no "-0".
        const expected = text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
        const stripped = expected.replace(/^(-?)0+(?=\d)/, '$1');
        expect(formatDecimal(value)).toBe(stripped === '-0' ? '0' : stripped);
      }),
    );
  });

  it('adds, subtracts and multiplies exactly, in canonical form', () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const sum = add(a, b);
        const difference = subtract(a, b);
        const product = multiply(a, b);
        for (const result of [sum, difference, product]) expectCanonical(result);
        expect(cmp(frac(sum), plus(frac(a), frac(b)))).toBe(0);
        expect(cmp(frac(difference), plus(frac(a), { n: -b.units, d: frac(b).d }))).toBe(0);
        expect(cmp(frac(product), { n: a.units * b.units, d: frac(a).d * frac(b).d })).toBe(0);
        expect(compare(a, b)).toBe(cmp(frac(a), frac(b)));
      }),
    );
  });

  it('divides and rounds once, as each rounding promises, whatever the signs', () => {
    fc.assert(
      fc.property(decimal, nonZero, fc.integer({ min: 0, max: 12 }), fc.constantFrom(...ROUNDINGS), (a, b, places, rounding) => {
        const quotient = divide(a, b, places, rounding);
        expectCanonical(quotient);
        expectRounded(quotient, { n: a.units * frac(b).d * (b.units < 0n ? -1n : 1n), d: frac(a).d * (b.units < 0n ? -b.units : b.units) }, places, rounding);
        const rounded = roundTo(a, places, rounding);
        expectCanonical(rounded);
        expectRounded(rounded, frac(a), places, rounding);
      }),
      { numRuns: 500 },
    );
  });

  it('rounds ties away from zero with half-up, and only ties', () => {
    expect(formatDecimal(roundTo(parseDecimal('2.5'), 0, 'half-up'))).toBe('3');
    expect(formatDecimal(roundTo(parseDecimal('-2.5'), 0, 'half-up'))).toBe('-3');
    expect(formatDecimal(roundTo(parseDecimal('2.4999'), 0, 'half-up'))).toBe('2');
    expect(formatDecimal(divide(parseDecimal('5'), parseDecimal('-2'), 0, 'half-up'))).toBe('-3');
    expect(formatDecimal(divide(parseDecimal('-7'), parseDecimal('2'), 0, 'down'))).toBe('-3');
    expect(formatDecimal(divide(parseDecimal('-7'), parseDecimal('2'), 0, 'up'))).toBe('-4');
    expect(formatDecimal(divide(parseDecimal('1'), parseDecimal('0.003'), 2, 'down'))).toBe('333.33');
    expect(formatDecimal(divide(parseDecimal('0.5'), parseDecimal('2'), 0, 'half-up'))).toBe('0');
  });

  it('refuses division by zero', () => {
    expect(() => divide(parseDecimal('1'), ZERO, 2, 'up')).toThrow(new RangeError('division by zero'));
    expect(() => divide(parseDecimal('1'), parseDecimal('0.000'), 2, 'up')).toThrow(RangeError);
  });

  it('formats with exactly the asked places', () => {
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 12 }), fc.constantFrom(...ROUNDINGS), (value, places, rounding) => {
        const text = formatFixed(value, places, rounding);
        expect(text).toMatch(places === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+\\.\\d{${places}}$`));
        expect(compare(parseDecimal(text), roundTo(value, places, rounding))).toBe(0);
      }),
    );
    expect(formatFixed(parseDecimal('2.5'), 0)).toBe('3');
    expect(formatFixed(parseDecimal('-0.001'), 2, 'down')).toBe('0.00');
    expect(formatFixed(parseDecimal('12'), 2)).toBe('12.00');
  });

  it('reads the exponent form, either case, signed, within bounds, and surrounding blanks', () => {
    expect(formatDecimal(parseDecimal('1.5E+3'))).toBe('1500');
    expect(formatDecimal(parseDecimal('15e-1'))).toBe('1.5');
    expect(formatDecimal(parseDecimal('-2e2'))).toBe('-200');
    expect(formatDecimal(parseDecimal(' 7.10 '))).toBe('7.1');
    expect(formatDecimal(parseDecimal('1e400'))).toBe(`1${'0'.repeat(400)}`);
    expect(formatDecimal(parseDecimal('1e-400'))).toBe(`0.${'0'.repeat(399)}1`);
    for (const text of ['1e401', '1e-401', '1e99999999999999999999', '.5', '5.', '+5', '--5', '0x10', '1e', '1.2.3', 'e5']) {
      expect(() => parseDecimal(text)).toThrow(new InvalidDecimalError(text));
      expect(() => parseDecimal(text)).toThrow(`not a decimal number: ${text}`);
    }
    expect(new InvalidDecimalError('x').name).toBe('InvalidDecimalError');
  });

  it('crosses the JSON edge exactly and refuses non-finite numbers', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        expect(decimalToNumber(decimalFromNumber(value))).toBe(value === 0 ? 0 : value);
      }),
    );
    for (const value of [Infinity, -Infinity, NaN]) expect(() => decimalFromNumber(value)).toThrow(new InvalidDecimalError(String(value)));
  });

  it('counts places and significant digits, and knows positive from zero and negative', () => {
    expect([decimalPlaces(parseDecimal('0.50')), decimalPlaces(parseDecimal('12')), decimalPlaces(parseDecimal('-0.001'))]).toEqual([1, 0, 3]);
    expect([significantDigits(parseDecimal('120.50')), significantDigits(parseDecimal('-0.00123')), significantDigits(ZERO)]).toEqual([4, 3, 1]);
    expect([isPositive(parseDecimal('0.00000001')), isPositive(ZERO), isPositive(parseDecimal('-1'))]).toEqual([true, false, false]);
    expect(normalize({ units: 1200n, scale: 3 })).toEqual({ units: 12n, scale: 1 });
    expect(normalize({ units: 0n, scale: 5 })).toEqual(ZERO);
    expect(normalize({ units: 100n, scale: 0 })).toEqual({ units: 100n, scale: 0 });
  });

  it('converts minor units both ways, refusing more decimals than the currency has', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 18 }), (units, precision) => {
        const value = fromMinorUnits(units, precision);
        expectCanonical(value);
        expect(cmp(frac(value), { n: units, d: 10n ** BigInt(precision) })).toBe(0);
        expect(toMinorUnits(value, precision)).toBe(units);
      }),
    );
    expect(() => toMinorUnits(parseDecimal('0.001'), 2)).toThrow(new RangeError('more than 2 decimals'));
    expect(toMinorUnits(parseDecimal('0.01'), 2)).toBe(1n);
  });
});
