import { currency, type Currency } from '#shared/domain/currencies';
import { decimalFromNumber, formatDecimal, parseDecimal, type Decimal } from '#shared/domain/money';

/**
 * Amounts as a person reads them, in one form wherever one is shown: the merchant portal, the
 * payment page, every email (text and HTML, English and Chinese) and the daily summary. An
 * amount reads with its currency's decimals, the whole part grouped by thousands, then its
 * code: "30.00 USD", "1,250.00 CNY", "0.00153846 BTC", "12.500000 USDT_TRC20", "5000 JPY".
 *
 * Machine values are not written with it. The orders CSV keeps the API's exact decimals in
 * their own column beside the currency's (a spreadsheet sums "1250.5", not "1,250.50 CNY"), the
 * payment URI and the amount a buyer copies into a wallet are money.ts's `formatFixed` (no
 * grouping: a wallet reads "1250.500000"), and the API's JSON has its numbers.
 */

const known = (code: string): Currency | undefined => {
  try {
    return currency(code);
  } catch {
    return undefined;
  }
};

/**
 * The decimals an amount in `code` is shown with: the decimals a buyer is quoted in, which for
 * fiat are the currency's own (USD 2, JPY none), for a gateway its fiat's (2), and for a coin the
 * ones the payment page asks to be paid (BTC 8, ETH 8 of its 18, USDT 6, TON 6 of its 9). An
 * unknown code shows the digits the amount has.
 */
export function displayDecimals(code: string): number {
  return known(code)?.payPrecision ?? 0;
}

/** The whole part of a plain decimal grouped by thousands with commas, as both languages write it. */
const grouped = (whole: string): string => whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

const asDecimal = (amount: Decimal | string | number): Decimal | undefined => {
  try {
    return typeof amount === 'string' ? parseDecimal(amount) : typeof amount === 'number' ? decimalFromNumber(amount) : amount;
  } catch {
    return undefined;
  }
};

/**
 * An amount in `code` for a person to read: padded to {@link displayDecimals}, never rounded (a
 * payment of 0.123456789 ETH reads as all nine of its decimals: an amount shown shorter than it is
 * would be a different amount). The API's decimal strings, its JSON numbers (read as the decimals
 * they were written as) and the domain's decimals all read the same. Text that is not an amount
 * is shown as it came, beside the code.
 */
export function formatAmount(amount: Decimal | string | number, code: string): string {
  const value = asDecimal(amount);
  if (value === undefined) return `${String(amount)} ${code}`;
  const plain = formatDecimal(value);
  const negative = plain.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? plain.slice(1) : plain).split('.');
  const decimals = fraction.padEnd(displayDecimals(code), '0');
  return `${negative ? '-' : ''}${grouped(whole)}${decimals ? `.${decimals}` : ''} ${code}`;
}
