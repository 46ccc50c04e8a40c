/**
 * Exact decimal arithmetic for money. A {@link Decimal} is an integer coefficient and a
 * base-10 scale (`value = units / 10^scale`), so no amount ever passes through a float.
 * JSON numbers exist only at the HTTP edge ({@link decimalFromNumber}, {@link decimalToNumber}).
 */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

/** How a result that does not fit the target scale is rounded. */
export type Rounding = 'up' | 'down' | 'half-up';

const DECIMAL_PATTERN = /^(-)?(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

export class InvalidDecimalError extends Error {
  constructor(input: string) {
    super(`not a decimal number: ${input}`);
    this.name = 'InvalidDecimalError';
  }
}

/** Parses "12.30", "-0.5", "1e-7" (the exponent form JavaScript prints for small numbers). */
export function parseDecimal(text: string): Decimal {
  const match = DECIMAL_PATTERN.exec(text.trim());
  if (!match) throw new InvalidDecimalError(text);
  const [, sign, whole = '0', fraction = '', exponentText] = match;
  const exponent = exponentText ? Number(exponentText) : 0;
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 400) throw new InvalidDecimalError(text);
  let units = BigInt(whole + fraction);
  let scale = fraction.length - exponent;
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return normalize({ units: sign ? -units : units, scale });
}

/**
 * A JSON number as the exact decimal it was written as. JavaScript prints the shortest string
 * that reads back as the same double, so 0.1 becomes "0.1", not 0.1000000000000000055...
 */
export function decimalFromNumber(value: number): Decimal {
  if (!Number.isFinite(value)) throw new InvalidDecimalError(String(value));
  return parseDecimal(String(value));
}

/** The JSON-edge number for an amount (amounts are bounded so they round-trip exactly). */
export function decimalToNumber(value: Decimal): number {
  return Number(formatDecimal(value));
}

/** Plain decimal string without exponent or trailing zeros: "0.00153846", "10", "-2.5". */
export function formatDecimal(value: Decimal): string {
  const { units, scale } = normalize(value);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString();
  if (scale === 0) return (negative ? '-' : '') + digits;
  const padded = digits.padStart(scale + 1, '0');
  const whole = padded.slice(0, padded.length - scale);
  const fraction = padded.slice(padded.length - scale);
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/** Formats with exactly `places` decimals (rounding if needed), e.g. for display or URIs. */
export function formatFixed(value: Decimal, places: number, rounding: Rounding = 'half-up'): string {
  const rounded = roundTo(value, places, rounding);
  const text = formatDecimal(rescale(rounded, places));
  if (places === 0) return text;
  const [whole, fraction = ''] = text.split('.');
  return `${whole}.${fraction.padEnd(places, '0')}`;
}

/** Drops trailing zeros so equal values have one representation. */
export function normalize(value: Decimal): Decimal {
  let { units, scale } = value;
  if (units === 0n) return { units: 0n, scale: 0 };
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

/** The number of decimal places the value needs (0.50 -> 1, 12 -> 0). */
export function decimalPlaces(value: Decimal): number {
  return normalize(value).scale;
}

/** Number of significant digits of the coefficient, for bounds that keep JSON numbers exact. */
export function significantDigits(value: Decimal): number {
  const { units } = normalize(value);
  return (units < 0n ? -units : units).toString().length;
}

function rescale(value: Decimal, scale: number): Decimal {
  if (scale < value.scale) throw new RangeError('rescale would lose digits; round first');
  return { units: value.units * 10n ** BigInt(scale - value.scale), scale };
}

export function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return normalize({ units: rescale(a, scale).units + rescale(b, scale).units, scale });
}

export function subtract(a: Decimal, b: Decimal): Decimal {
  return add(a, { units: -b.units, scale: b.scale });
}

export function multiply(a: Decimal, b: Decimal): Decimal {
  return normalize({ units: a.units * b.units, scale: a.scale + b.scale });
}

export function compare(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const x = rescale(a, scale).units;
  const y = rescale(b, scale).units;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function isPositive(value: Decimal): boolean {
  return value.units > 0n;
}

/** Integer division of bigints with the given rounding (operands of any sign). */
function divideUnits(numerator: bigint, denominator: bigint, rounding: Rounding): bigint {
  if (denominator === 0n) throw new RangeError('division by zero');
  if (denominator < 0n) return divideUnits(-numerator, -denominator, rounding);
  const quotient = numerator / denominator; // truncates toward zero
  const remainder = numerator % denominator;
  if (remainder === 0n) return quotient;
  const away = numerator < 0n ? -1n : 1n;
  if (rounding === 'down') return quotient;
  if (rounding === 'up') return quotient + away;
  const twice = 2n * (remainder < 0n ? -remainder : remainder);
  return twice >= denominator ? quotient + away : quotient;
}

/** Rounds to `places` decimals; 'up' and 'down' are away from / toward zero. */
export function roundTo(value: Decimal, places: number, rounding: Rounding): Decimal {
  if (value.scale <= places) return normalize(value);
  const factor = 10n ** BigInt(value.scale - places);
  return normalize({ units: divideUnits(value.units, factor, rounding), scale: places });
}

/** a / b rounded once to `places` decimals: the only lossy step in any conversion. */
export function divide(a: Decimal, b: Decimal, places: number, rounding: Rounding): Decimal {
  // a/b = (a.units / 10^a.scale) / (b.units / 10^b.scale); scale the numerator so the
  // integer quotient lands exactly on `places` decimals before rounding.
  const shift = places + b.scale - a.scale;
  const numerator = shift >= 0 ? a.units * 10n ** BigInt(shift) : a.units;
  const denominator = shift >= 0 ? b.units : b.units * 10n ** BigInt(-shift);
  return normalize({ units: divideUnits(numerator, denominator, rounding), scale: places });
}

/** An amount as an integer count of minor units (cents, satoshi, ...); throws if not exact. */
export function toMinorUnits(value: Decimal, precision: number): bigint {
  if (decimalPlaces(value) > precision) throw new RangeError(`more than ${precision} decimals`);
  return rescale(normalize(value), precision).units;
}

export function fromMinorUnits(units: bigint, precision: number): Decimal {
  return normalize({ units, scale: precision });
}

export const ZERO: Decimal = { units: 0n, scale: 0 };
