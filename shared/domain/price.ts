import { InvalidPriceError } from '#shared/domain/errors';
import { currency } from '#shared/domain/currencies';
import { compare, decimalFromNumber, decimalPlaces, type Decimal, isPositive, parseDecimal, significantDigits } from '#shared/domain/money';

/** A price written as a plain decimal: "19.90", "10" (no exponent, sign or spaces). */
const PRICE_TEXT = /^[0-9]+(\.[0-9]+)?$/;

/** Prices are below one trillion units of their currency. */
const MAX_PRICE = parseDecimal('1000000000000');
/** A JSON number carries 15 significant digits exactly; more would not round-trip. */
const MAX_SIGNIFICANT_DIGITS = 15;

/**
 * A merchant's `price_amount` as an exact decimal: the decimal text the request carried (a
 * JSON number's own digits, or a string such as "19.90" that PHP clients send), or a number.
 * It must be above zero, below {@link MAX_PRICE}, with no more decimals than its currency has
 * (0.30000000000000004 USD is refused rather than silently rounded: the merchant's arithmetic
 * went wrong).
 */
export function parsePrice(value: unknown, priceCurrency: string): Decimal {
  let price: Decimal;
  if (typeof value === 'string' && PRICE_TEXT.test(value)) price = parseDecimal(value);
  else if (typeof value === 'number' && Number.isFinite(value)) price = decimalFromNumber(value);
  else throw new InvalidPriceError('not a decimal number');
  if (!isPositive(price)) throw new InvalidPriceError('not above zero');
  if (compare(price, MAX_PRICE) >= 0) throw new InvalidPriceError('too large');
  if (decimalPlaces(price) > currency(priceCurrency).precision) throw new InvalidPriceError('too many decimals');
  if (significantDigits(price) > MAX_SIGNIFICANT_DIGITS) throw new InvalidPriceError('too many digits');
  return price;
}
