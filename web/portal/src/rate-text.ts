import { dateTime } from '../../common/format';
import type { Lang } from '../../common/i18n';
import { formatAmount } from '#shared/domain/amount-format';
import type { RefundRate } from '#shared/domain/refund';

/** A rate's ratio as a person reads it: a decimal of 8 significant digits, never an exponent (1/65000: 0.000015384615). */
export function ratioText(numerator: string | number, denominator: string | number): string {
  const value = Number(numerator) / Number(denominator);
  if (!Number.isFinite(value) || value <= 0) return `${numerator}/${denominator}`;
  const decimals = Math.min(20, Math.max(0, 7 - Math.floor(Math.log10(value))));
  const text = value.toFixed(decimals);
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** When a rate was read; none for a fixed rate (a static table's, dated 1 January 1970). */
export const rateTime = (asOf: string, lang: Lang): string => (Date.parse(asOf) > 0 ? dateTime(asOf, lang) : '');

/** A refund card's locked rate: "1.50 USD · 1 USD = 0.000015384615 BTC (coingecko, 2 Dec 2026, 10:00:00 UTC)". */
export const lockedRateText = (rate: RefundRate, currency: string, lang: Lang): string =>
  `${formatAmount(rate.fiat_amount, rate.fiat_currency)} · 1 ${rate.fiat_currency} = ${ratioText(rate.numerator, rate.denominator)} ${currency} (${[rate.source, rateTime(rate.as_of, lang)].filter(Boolean).join(', ')})`;
