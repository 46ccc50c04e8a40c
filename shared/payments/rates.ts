import { type Decimal, decimalPlaces, divide, multiply, parseDecimal, roundTo, type Rounding, significantDigits } from '#shared/domain/money';
import { currency, quoteCurrency } from '#shared/domain/currencies';

/**
 * An exchange rate as an exact ratio: 1 unit of `from` is worth `numerator / denominator`
 * units of `to`. Keeping the ratio (rather than a pre-divided decimal) means a conversion
 * rounds exactly once, at the target currency's precision.
 */
export interface ExchangeRate {
  readonly from: string;
  readonly to: string;
  readonly numerator: Decimal;
  readonly denominator: Decimal;
  readonly source: string;
  readonly asOf: Date;
}

/** Where rates come from: a static table locally, an HTTP source in production. */
export interface RateProvider {
  /** Throws {@link RateUnavailableError} when the pair is unknown or its rate is too old. */
  getRate(from: string, to: string, now: Date): Promise<ExchangeRate>;
}

export class RateUnavailableError extends Error {
  constructor(from: string, to: string, reason: string) {
    super(`no usable rate ${from}/${to}: ${reason}`);
    this.name = 'RateUnavailableError';
  }
}

/**
 * Converts `amount` of the rate's `from` currency into its `to` currency at the target's
 * pay precision. Gateways quote in their settlement fiat, so a gateway target uses that.
 */
export function convert(amount: Decimal, rate: ExchangeRate, places: number, rounding: Rounding): Decimal {
  return divide(multiply(amount, rate.numerator), rate.denominator, places, rounding);
}

/**
 * Demo prices in USD per unit, for the local runtime and sandbox merchants only. They are
 * illustrative, fixed numbers: sandbox orders are never settled.
 */
export const SANDBOX_USD_PRICES: Readonly<Record<string, string>> = {
  USD: '1',
  USDT: '1',
  USDC: '1',
  // Celo's and PayPal's dollars (the others on other networks are priced as USDT, USDC and ETH).
  CUSD: '1',
  PYUSD: '1',
  CNY: '0.1389',
  EUR: '1.0850',
  GBP: '1.2700',
  HKD: '0.1282',
  SGD: '0.7450',
  CAD: '0.7300',
  AUD: '0.6600',
  JPY: '0.0066',
  BTC: '65000',
  LBTC: '65000',
  LTC: '80',
  BCH: '350',
  ETH: '3000',
  EOS: '0.80',
  TON: '5.00',
};

/** A fixed table of USD prices; any pair is the ratio of the two prices. */
export class StaticRateProvider implements RateProvider {
  private readonly prices: ReadonlyMap<string, Decimal>;

  constructor(
    usdPrices: Readonly<Record<string, string>> = SANDBOX_USD_PRICES,
    private readonly asOf: Date = new Date(0),
  ) {
    this.prices = new Map(Object.entries(usdPrices).map(([code, price]) => [code, parseDecimal(price)]));
  }

  async getRate(from: string, to: string, _now?: Date): Promise<ExchangeRate> {
    const fromPrice = this.prices.get(quoteCurrency(from));
    const toPrice = this.prices.get(quoteCurrency(to));
    if (!fromPrice || !toPrice) throw new RateUnavailableError(from, to, 'pair not in the static table');
    return { from, to, numerator: fromPrice, denominator: toPrice, source: 'static', asOf: this.asOf };
  }
}

/**
 * No rates at all: what live merchants get when no rate source is configured. Every checkout
 * fails closed (PAYMENT_NOT_AVAILABLE) instead of pricing real payments from a demo table.
 */
export class NoRateProvider implements RateProvider {
  async getRate(from: string, to: string): Promise<ExchangeRate> {
    throw new RateUnavailableError(from, to, 'no rate source is configured (RATE_SOURCE_URL)');
  }
}

/** Digits a JSON number (an IEEE double) holds exactly: the API shows amounts as numbers. */
const MAX_SIGNIFICANT_DIGITS = 15;

/**
 * `amount` with at most 15 significant digits, rounded as asked: a huge price in a cheap coin
 * (e.g. 999,999,999,999 USD in ETH) would otherwise need more digits than a JSON number keeps,
 * and the buyer would be shown an amount that is not the one the invoice expects.
 */
function exactInJson(amount: Decimal, rounding: Rounding): Decimal {
  const excess = significantDigits(amount) - MAX_SIGNIFICANT_DIGITS;
  return excess > 0 ? roundTo(amount, Math.max(0, decimalPlaces(amount) - excess), rounding) : amount;
}

/** Pay amount for a price: rounded up so the merchant never receives less than the price. */
export function payAmountFor(price: Decimal, rate: ExchangeRate): Decimal {
  return exactInJson(convert(price, rate, currency(rate.to).payPrecision, 'up'), 'up');
}

/** What the merchant is credited: rounded down so we never promise more than was priced. */
export function receiveAmountFor(price: Decimal, rate: ExchangeRate): Decimal {
  return exactInJson(convert(price, rate, currency(rate.to).payPrecision, 'down'), 'down');
}
