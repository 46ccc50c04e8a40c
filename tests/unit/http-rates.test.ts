import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatDecimal, multiply, parseDecimal } from '#shared/domain/money';
import { ConfigError } from '#shared/core/env';
import { HttpRateProvider, parseExchangeRates, rateFromSnapshot, RateSourceError, sourceCode } from '#shared/payments/http-rates';
import { payAmountFor, RateUnavailableError } from '#shared/payments/rates';
import type { RateCache, RateSnapshot } from '#shared/store/rates';

const d = parseDecimal;
const s = formatDecimal;

const body = (rates: Record<string, unknown>, currency: unknown = 'USD') => ({ data: { currency, rates } });

function snapshot(rates: Record<string, string>): RateSnapshot {
  return {
    source: 'rates.example',
    url: 'https://rates.example/?currency=USD',
    base: 'USD',
    rates: new Map(Object.entries(rates).map(([code, rate]) => [code, d(rate)])),
    fetchedAt: new Date('2030-01-01T00:00:00Z'),
  };
}

describe('parseExchangeRates', () => {
  it('reads every plain positive decimal string exactly and sets the base to 1', () => {
    const rates = parseExchangeRates(body({ USD: '1.0', BTC: '0.0000153846153846', CNY: '7.20', SHIB: '87719.298245614035087719' }), 'USD');

    expect(Object.fromEntries([...rates].map(([code, rate]) => [code, s(rate)]))).toEqual({
      USD: '1',
      BTC: '0.0000153846153846',
      CNY: '7.2',
      SHIB: '87719.298245614035087719',
    });
  });

  it('drops entries that are not plain positive decimal strings', () => {
    const rates = parseExchangeRates(
      body({
        CNY: '7.2',
        NUM: 7.2,
        ABC: 'abc',
        ZERO: '0',
        NEG: '-1',
        EXP: '1e-5',
        EMPTY: '',
        SPACE: ' 7.2',
        DOT: '7.',
        NUL: null,
        OBJ: { value: '1' },
      }),
      'USD',
    );

    expect([...rates.keys()].sort()).toEqual(['CNY', 'USD']);
  });

  it('rejects bodies that are not the format or are for another base', () => {
    const cases: [unknown, RegExp][] = [
      [null, /no "data"/],
      ['text', /no "data"/],
      [{ rates: { BTC: '1' } }, /no "data"/],
      [{ data: { currency: 'USD' } }, /no "rates"/],
      [{ data: { currency: 'USD', rates: ['1'] } }, /no "rates"/],
      [body({ BTC: '1' }, 'EUR'), /rates are for "EUR", asked for USD/],
      [{ data: { rates: { BTC: '1' } } }, /rates are for undefined, asked for USD/],
      [body({ BTC: 1, ETH: 'x' }), /no usable rate/],
    ];
    for (const [input, reason] of cases) {
      expect(() => parseExchangeRates(input, 'USD')).toThrow(RateSourceError);
      expect(() => parseExchangeRates(input, 'USD')).toThrow(reason);
    }
  });

  it('keeps every digit of any decimal string the source can send', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9]\d{0,29}$|^0\.\d{0,39}[1-9]$/), (text) => {
        const rates = parseExchangeRates(body({ XYZ: text }), 'USD');
        expect(s(rates.get('XYZ')!)).toBe(text);
      }),
    );
  });
});

describe('rateFromSnapshot', () => {
  const rates = snapshot({ USD: '1', BTC: '0.0000153846153846', CNY: '7.2', EUR: '0.9216' });

  it('1 from = rates[to] / rates[from] to', () => {
    const usdToBtc = rateFromSnapshot(rates, 'USD', 'BTC', 'http:rates.example');
    const btcToEur = rateFromSnapshot(rates, 'BTC', 'EUR', 'http:rates.example');

    expect([s(usdToBtc.numerator), s(usdToBtc.denominator)]).toEqual(['0.0000153846153846', '1']);
    expect([s(btcToEur.numerator), s(btcToEur.denominator)]).toEqual(['0.9216', '0.0000153846153846']);
    expect(usdToBtc).toMatchObject({ from: 'USD', to: 'BTC', source: 'http:rates.example', asOf: rates.fetchedAt });
    // Going there and back multiplies to exactly 1 (numerators and denominators swap).
    const back = rateFromSnapshot(rates, 'EUR', 'BTC', 'x');
    expect(s(multiply(btcToEur.numerator, back.numerator))).toBe(s(multiply(btcToEur.denominator, back.denominator)));
  });

  it('prices gateways in CNY and Lightning as BTC', () => {
    const alipay = rateFromSnapshot(rates, 'USD', 'WECHAT', 'x');
    const lightning = rateFromSnapshot(rates, 'EUR', 'LBTC', 'x');

    expect(alipay).toMatchObject({ from: 'USD', to: 'WECHAT' });
    expect(s(payAmountFor(d('9.99'), alipay))).toBe('71.93'); // 71.928 rounded up
    expect([s(lightning.numerator), s(lightning.denominator)]).toEqual(['0.0000153846153846', '0.9216']);
    expect(sourceCode('ALIGLOBAL')).toBe('CNY');
    expect(sourceCode('LBTC')).toBe('BTC');
    expect(sourceCode('ETH')).toBe('ETH');
  });

  it('prices the ERC-20 stable coins as the coins the source lists (USDT, USDC)', () => {
    const stable = snapshot({ USD: '1', USDT: '0.9995', USDC: '1.0002' });
    const usdt = rateFromSnapshot(stable, 'USD', 'USDT_ERC20', 'x');
    expect(usdt).toMatchObject({ from: 'USD', to: 'USDT_ERC20' });
    expect(s(payAmountFor(d('10'), usdt))).toBe('9.995');
    expect(s(payAmountFor(d('10'), rateFromSnapshot(stable, 'USD', 'USDC_ERC20', 'x')))).toBe('10.002');
    expect([sourceCode('USDT_ERC20'), sourceCode('USDC_ERC20')]).toEqual(['USDT', 'USDC']);
    expect(() => rateFromSnapshot(rates, 'USD', 'USDT_ERC20', 'x')).toThrow(/no rate for USDT/);
  });

  it('throws RateUnavailableError naming the missing currencies', () => {
    expect(() => rateFromSnapshot(rates, 'USD', 'ETH', 'http:rates.example')).toThrow(RateUnavailableError);
    expect(() => rateFromSnapshot(rates, 'LTC', 'ETH', 'http:rates.example')).toThrow(/no rate for LTC, ETH/);
  });
});

describe('HttpRateProvider configuration', () => {
  const cache: RateCache = {
    get: async () => undefined,
    put: async () => undefined,
  };

  it('derives the source from the URL host and asks for the base currency', () => {
    const provider = new HttpRateProvider({ url: 'https://api.coinbase.com/v2/exchange-rates', maxAgeSeconds: 300, cache });

    expect(provider.source).toBe('api.coinbase.com');
    expect(provider.label).toBe('http:api.coinbase.com');
    expect(provider.requestUrl).toBe('https://api.coinbase.com/v2/exchange-rates?currency=USD');
  });

  it('refuses a URL that is not http(s) and non-positive limits', () => {
    expect(() => new HttpRateProvider({ url: 'not a url', maxAgeSeconds: 300, cache })).toThrow(ConfigError);
    expect(() => new HttpRateProvider({ url: 'file:///etc/rates.json', maxAgeSeconds: 300, cache })).toThrow(ConfigError);
    expect(() => new HttpRateProvider({ url: 'https://x.example', maxAgeSeconds: 0, cache })).toThrow(/maxAgeSeconds/);
    expect(() => new HttpRateProvider({ url: 'https://x.example', maxAgeSeconds: 1.5, cache })).toThrow(/maxAgeSeconds/);
    expect(() => new HttpRateProvider({ url: 'https://x.example', maxAgeSeconds: 300, fetchTimeoutMs: 0, cache })).toThrow(/fetchTimeoutMs/);
  });

  it('refuses an unknown currency before any I/O', async () => {
    let fetched = 0;
    const provider = new HttpRateProvider({
      url: 'https://x.example',
      maxAgeSeconds: 300,
      cache,
      fetch: async () => {
        fetched += 1;
        return new Response('{}');
      },
    });

    await expect(provider.getRate('USD', 'XYZ', new Date())).rejects.toThrow(RangeError);
    expect(fetched).toBe(0);
  });

  it('answers with the rates it fetched when the table refuses to store them', async () => {
    let stored = 0;
    const refusing: RateCache = {
      get: async () => undefined,
      put: async () => {
        stored += 1;
        throw Object.assign(new Error('not authorized to perform dynamodb:PutItem'), { name: 'AccessDeniedException' });
      },
    };
    const provider = new HttpRateProvider({ url: 'https://x.example', maxAgeSeconds: 300, cache: refusing, fetch: async () => Response.json(body({ USD: '1', BTC: '0.00002' })) });

    const rate = await provider.getRate('USD', 'BTC', new Date());
    expect([s(rate.numerator), s(rate.denominator)]).toEqual(['0.00002', '1']);
    expect(stored).toBe(1);
  });
});
