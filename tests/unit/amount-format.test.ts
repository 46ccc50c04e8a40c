import { describe, expect, it } from 'vitest';
import { displayDecimals, formatAmount } from '#shared/domain/amount-format';
import { currency, PAY_CURRENCIES, PRICE_CURRENCIES, RECEIVE_CURRENCIES } from '#shared/domain/currencies';
import { parseDecimal } from '#shared/domain/money';
import { payAmount } from '../../web/common/amounts';

/**
 * The one format of an amount a person reads (shared/domain/amount-format.ts), over every
 * currency the service knows: the decimals the payment page asks a buyer to pay (its copy field,
 * web/common/amounts.ts payAmount), grouped by thousands, never rounded.
 */
const EVERY_CURRENCY = [...new Set([...PRICE_CURRENCIES, ...PAY_CURRENCIES, ...RECEIVE_CURRENCIES])];

/** The decimals a person reads, written out here as the currency table's comments state them. */
const EXPECTED_DECIMALS: Record<string, number> = {
  USD: 2,
  CNY: 2,
  EUR: 2,
  GBP: 2,
  HKD: 2,
  SGD: 2,
  CAD: 2,
  AUD: 2,
  JPY: 0,
  ALIPAY: 2,
  ALIGLOBAL: 2,
  WECHAT: 2,
  BTC: 8,
  LTC: 8,
  BCH: 8,
  LBTC: 8,
  ETH: 8,
  ETH_ARB: 8,
  ETH_BASE: 8,
  EOS: 4,
  USDT: 6,
  USDC: 6,
  USDT_ERC20: 6,
  USDC_ERC20: 6,
  USDT_TRC20: 6,
  USDT_ARB: 6,
  USDT_BNB: 6,
  USDT_CELO: 6,
  USDC_ARB: 6,
  USDC_SOL: 6,
  USDC_BASE: 6,
  USDC_POL: 6,
  CUSD: 6,
  PYUSD: 6,
  USDT_TON: 6,
  TON: 6,
  USDC_XLM: 6,
};

describe.each(EVERY_CURRENCY)('an amount in %s', (code) => {
  it('reads with the decimals a buyer is asked to pay, and the code', () => {
    expect(displayDecimals(code)).toBe(EXPECTED_DECIMALS[code]);
    const decimals = EXPECTED_DECIMALS[code]!;
    expect(formatAmount('3', code)).toBe(decimals === 0 ? `3 ${code}` : `3.${'0'.repeat(decimals)} ${code}`);
  });

  it("has the payment page's digits for the amount to pay, grouped", () => {
    // Amounts a buyer can be asked to pay, none finer than the decimals shown: the smallest one, halves where the currency has decimals, and whole ones.
    const decimals = displayDecimals(code);
    const amounts = [Number(`1e-${decimals}`), ...(decimals > 0 ? [0.5, 1234.5] : []), 12, 1000000];
    for (const amount of amounts) {
      const shown = formatAmount(amount, code);
      expect(shown.endsWith(` ${code}`)).toBe(true);
      expect(shown.slice(0, -code.length - 1).replaceAll(',', '')).toBe(payAmount(amount, code));
    }
  });
});

/** Currencies booked to more decimals than a person is shown (wei, millisatoshi, nanotons, stroops, an 18-decimal token). */
const FINER = EVERY_CURRENCY.filter((code) => currency(code).precision > displayDecimals(code));

describe.each(FINER)('an amount in %s booked to its last unit', (code) => {
  it('keeps every digit it has beyond the decimals shown', () => {
    const long = `0.${'1'.repeat(currency(code).precision)}`;
    expect(formatAmount(long, code)).toBe(`${long} ${code}`);
  });
});

it('some currencies are booked finer than they are shown', () => {
  expect(FINER).toEqual(expect.arrayContaining(['ETH', 'LBTC', 'TON', 'USDC_XLM', 'USDT_BNB']));
});

describe('formatAmount', () => {
  it('pads a fiat amount to its cents, as the portal and the payment page show it', () => {
    expect(formatAmount('30', 'USD')).toBe('30.00 USD');
    expect(formatAmount(24.5, 'USD')).toBe('24.50 USD');
    expect(formatAmount('0.1', 'CNY')).toBe('0.10 CNY');
    expect(formatAmount('5000', 'JPY')).toBe('5,000 JPY');
  });

  it('groups the whole part by thousands', () => {
    expect(formatAmount('1234567.5', 'EUR')).toBe('1,234,567.50 EUR');
    expect(formatAmount('999', 'USD')).toBe('999.00 USD');
    expect(formatAmount('1000', 'USD')).toBe('1,000.00 USD');
    expect(formatAmount('1250.5', 'USDT_TRC20')).toBe('1,250.500000 USDT_TRC20');
  });

  it('never rounds: a payment of more decimals than shown reads as it is', () => {
    expect(formatAmount('0.123456789', 'ETH')).toBe('0.123456789 ETH');
    expect(formatAmount('0.00000001', 'BTC')).toBe('0.00000001 BTC');
    expect(formatAmount('10.005', 'USD')).toBe('10.005 USD');
  });

  it('reads JSON numbers as the decimals they were written as (no exponent, no float digits)', () => {
    expect(formatAmount(1e-7, 'BTC')).toBe('0.00000010 BTC');
    expect(formatAmount(0.3, 'USD')).toBe('0.30 USD');
  });

  it('takes the domain decimals too', () => {
    expect(formatAmount(parseDecimal('17.3625'), 'EOS')).toBe('17.3625 EOS');
    expect(formatAmount(parseDecimal('-2.5'), 'USD')).toBe('-2.50 USD');
  });

  it('shows an unknown code with the digits the amount has, and text that is no amount as it came', () => {
    expect(formatAmount('12.50', 'XYZ')).toBe('12.5 XYZ');
    expect(formatAmount('n/a', 'USD')).toBe('n/a USD');
    expect(formatAmount(Number.NaN, 'USD')).toBe('NaN USD');
  });
});
