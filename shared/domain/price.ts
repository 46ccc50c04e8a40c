import { InvalidPriceError } from '#shared/domain/errors';
import { currency } from '#shared/domain/currencies';
import { compare, decimalFromNumber, decimalPlaces, type Decimal, isPositive, parseDecimal, significantDigits } from '#shared/domain/money';

/** Prices are below one trillion units of their currency. */
const MAX_PRICE = parseDecimal('1000000000000');
/** A JSON number carries 15 significant digits exactly; more would not round-trip. */
const MAX_SIGNIFICANT_DIGITS = 15;

/**
 * A merchant's `price_amount` as an exact decimal. It must be a finite number above zero,
 * below {@link MAX_PRICE}, with no more decimals than its currency has (0.30000000000000004
 * USD is refused rather than silently rounded: the merchant's arithmetic went wrong).
 */
export function parsePrice(value: unknown, priceCurrency: string): Decimal {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new InvalidPriceError('not a finite number');
  const price = decimalFromNumber(value);
  if (!isPositive(price)) throw new InvalidPriceError('not above zero');
  if (compare(price, MAX_PRICE) >= 0) throw new InvalidPriceError('too large');
  if (decimalPlaces(price) > currency(priceCurrency).precision) throw new InvalidPriceError('too many decimals');
  if (significantDigits(price) > MAX_SIGNIFICANT_DIGITS) throw new InvalidPriceError('too many digits');
  return price;
}
