import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { formatDecimal, parseDecimal } from '#shared/domain/money';
import { HttpRateProvider, type HttpRateProviderOptions } from '#shared/payments/http-rates';
import { convert, payAmountFor, RateUnavailableError, receiveAmountFor } from '#shared/payments/rates';
import { db, tableName } from '#shared/store/client';
import { ratesKey } from '#shared/store/keys';
import { type RateCache, type RateSnapshot, tableRateCache } from '#shared/store/rates';

const d = parseDecimal;
const s = formatDecimal;

const T0 = new Date('2030-01-01T00:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const MAX_AGE = 300;

const RATES = {
  USD: '1.0',
  BTC: '0.0000153846153846',
  ETH: '0.000333',
  CNY: '7.2',
  EUR: '0.9216',
  USDT: '1.0005',
  DOGE: '6.25',
};

interface RateServer {
  url: string;
  /** Paths with query of every request received, in order. */
  requests: string[];
  close(): Promise<void>;
}

const servers: RateServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A real HTTP server on a free loopback port; `answer` writes each response. */
async function startRateServer(answer: (request: IncomingMessage, response: ServerResponse) => void = coinbase(RATES)): Promise<RateServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    answer(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed = false;
  const handle: RateServer = {
    url: `http://127.0.0.1:${port}/v2/exchange-rates`,
    requests,
    close: () =>
      closed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            closed = true;
            server.close(() => resolve());
            server.closeAllConnections();
          }),
  };
  servers.push(handle);
  return handle;
}

function coinbase(rates: Record<string, unknown>, currency = 'USD') {
  return (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ data: { currency, rates } }));
  };
}

/** The table cache with its calls counted (the real store underneath). */
function countedCache() {
  const calls = { get: 0, put: 0 };
  const cache: RateCache = {
    get: (source) => {
      calls.get += 1;
      return tableRateCache.get(source);
    },
    put: (snapshot) => {
      calls.put += 1;
      return tableRateCache.put(snapshot);
    },
  };
  return { calls, cache };
}

/** A provider with a source name of its own, so tests never share a cache item. */
function provider(url: string, options: Partial<HttpRateProviderOptions> = {}) {
  return new HttpRateProvider({ url, maxAgeSeconds: MAX_AGE, cache: tableRateCache, source: `test-${randomUUID()}`, ...options });
}

function snapshotOf(p: HttpRateProvider, rates: Record<string, string>, fetchedAt: Date): RateSnapshot {
  const parsed = new Map(Object.entries(rates).map(([code, rate]) => [code, d(rate)]));
  return { source: p.source, url: p.requestUrl, base: 'USD', rates: parsed, fetchedAt };
}

describe('HttpRateProvider: a fresh fetch', () => {
  it('gives the exact ratio of the source strings and an exact pay amount', async () => {
    const server = await startRateServer();
    const rates = provider(server.url);

    const rate = await rates.getRate('USD', 'BTC', T0);

    expect(server.requests).toEqual(['/v2/exchange-rates?currency=USD']);
    expect(s(rate.numerator)).toBe('0.0000153846153846');
    expect(s(rate.denominator)).toBe('1');
    expect(rate.source).toBe(`http:${rates.source}`);
    expect(rate.asOf).toEqual(T0);
    // 100 USD is exactly 0.00153846153846 BTC; the buyer pays it rounded up to 8 decimals.
    expect(s(convert(d('100'), rate, 14, 'down'))).toBe('0.00153846153846');
    expect(s(payAmountFor(d('100'), rate))).toBe('0.00153847');
    expect(s(receiveAmountFor(d('100'), rate))).toBe('0.00153846');
  });

  it('crosses two non-base currencies exactly and quotes gateways in CNY', async () => {
    const server = await startRateServer();
    const rates = provider(server.url);

    const eurToAlipay = await rates.getRate('EUR', 'ALIPAY', T0);
    const btcToUsd = await rates.getRate('BTC', 'USD', T0);
    const usdToLightning = await rates.getRate('USD', 'LBTC', T0);

    // 1 EUR = 7.2 / 0.9216 CNY = 7.8125 CNY exactly.
    expect([s(eurToAlipay.numerator), s(eurToAlipay.denominator)]).toEqual(['7.2', '0.9216']);
    expect(s(payAmountFor(d('10'), eurToAlipay))).toBe('78.13');
    expect(s(convert(d('10'), eurToAlipay, 6, 'down'))).toBe('78.125');
    // 1 BTC = 1 / 0.0000153846153846 USD: 65000.00000000026 -> 65000.01 rounded up.
    expect(s(payAmountFor(d('1'), btcToUsd))).toBe('65000.01');
    expect(s(receiveAmountFor(d('1'), btcToUsd))).toBe('65000');
    // Lightning is priced as bitcoin.
    expect(s(usdToLightning.numerator)).toBe('0.0000153846153846');
    expect(server.requests).toHaveLength(1);
  });

  it("keeps amounts within the 15 significant digits a JSON number holds exactly, rounding in the merchant's favour", () => {
    const usdToEth = { from: 'USD', to: 'ETH', numerator: d('1'), denominator: d('3000'), source: 'test', asOf: T0 };
    // 100,000,000,000 USD is 33,333,333.333... ETH: 8 decimals would be 16 digits.
    const pay = payAmountFor(d('100000000000'), usdToEth);
    expect(s(pay)).toBe('33333333.3333334');
    expect(Number(s(pay)).toString()).toBe(s(pay));
    const thirds = { from: 'USD', to: 'ETH', numerator: d('1'), denominator: d('3'), source: 'test', asOf: T0 };
    expect(s(receiveAmountFor(d('100000000000'), thirds))).toBe('33333333333.3333');
    // Ordinary amounts are untouched.
    expect(s(payAmountFor(d('100'), usdToEth))).toBe('0.03333334');
  });

  it('names the source after the URL host and stores rates as decimal strings', async () => {
    const server = await startRateServer();
    const host = new URL(server.url).host;
    const rates = new HttpRateProvider({ url: server.url, maxAgeSeconds: MAX_AGE, cache: tableRateCache });

    const rate = await rates.getRate('USD', 'ETH', new Date());

    expect(rates.source).toBe(host);
    expect(rate.source).toBe(`http:${host}`);
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: ratesKey(host) }));
    expect(Item).toMatchObject({ PK: `RATES#${host}`, SK: 'RATES', type: 'RATES', base: 'USD', fetched_at: rate.asOf.toISOString() });
    expect(Item!.rates).toEqual({ USD: '1', BTC: '0.0000153846153846', ETH: '0.000333', CNY: '7.2', EUR: '0.9216', USDT: '1.0005' });
    expect(Object.values(Item!.rates).every((value) => typeof value === 'string')).toBe(true);
    // Currencies the service never quotes (DOGE) are not kept.
    expect(Item!.rates).not.toHaveProperty('DOGE');
  });

  it('uses the injected fetch with the configured URL and base', async () => {
    const seen: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      seen.push(String(input));
      return new Response(JSON.stringify({ data: { currency: 'EUR', rates: { USD: '1.0850', BTC: '0.0000167' } } }));
    };
    const rates = provider('https://rates.example/v2/exchange-rates?key=abc', { fetch: fakeFetch, base: 'EUR' });

    const rate = await rates.getRate('EUR', 'USD', T0);

    expect(seen).toEqual(['https://rates.example/v2/exchange-rates?key=abc&currency=EUR']);
    expect([s(rate.numerator), s(rate.denominator)]).toEqual(['1.085', '1']);
  });
});

describe('HttpRateProvider: the cache', () => {
  it('a second process within the max age reads the table snapshot without calling the source', async () => {
    const server = await startRateServer();
    const source = `test-${randomUUID()}`;
    const first = provider(server.url, { source });
    await first.getRate('USD', 'BTC', T0);
    const { calls, cache } = countedCache();
    const second = provider(server.url, { source, cache });

    const rate = await second.getRate('USD', 'BTC', at(MAX_AGE - 3));
    const again = await second.getRate('USD', 'CNY', at(MAX_AGE - 1)); // from its memory

    expect(server.requests).toHaveLength(1);
    expect(calls).toEqual({ get: 1, put: 0 });
    expect(rate.asOf).toEqual(T0);
    expect(again.asOf).toEqual(T0);
    expect(s(rate.numerator)).toBe('0.0000153846153846');
  });

  it('keeps a copy in process memory for a few seconds, then reads the table again', async () => {
    const server = await startRateServer();
    const { calls, cache } = countedCache();
    const rates = provider(server.url, { cache, memorySeconds: 5 });

    await rates.getRate('USD', 'BTC', T0);
    await rates.getRate('USD', 'CNY', at(1));
    await rates.getRate('USD', 'ETH', at(4));
    expect(calls).toEqual({ get: 1, put: 1 });

    await rates.getRate('USD', 'ETH', at(6));
    expect(calls).toEqual({ get: 2, put: 1 });
    expect(server.requests).toHaveLength(1);
  });

  it('concurrent requests of one process share a single fetch', async () => {
    const server = await startRateServer((request, response) => {
      setTimeout(() => coinbase(RATES)(request, response), 100);
    });
    const rates = provider(server.url);

    const answers = await Promise.all([rates.getRate('USD', 'BTC', T0), rates.getRate('USD', 'CNY', T0), rates.getRate('EUR', 'ETH', T0)]);

    expect(answers.map((rate) => s(rate.numerator))).toEqual(['0.0000153846153846', '7.2', '0.000333']);
    expect(server.requests).toHaveLength(1);
  });

  it('refetches once the snapshot reaches the max age, and uses the new rates', async () => {
    let btc = '0.0000153846153846';
    const server = await startRateServer((request, response) => coinbase({ ...RATES, BTC: btc })(request, response));
    const source = `test-${randomUUID()}`;
    await provider(server.url, { source }).getRate('USD', 'BTC', T0);
    btc = '0.00002';
    const later = provider(server.url, { source });

    const rate = await later.getRate('USD', 'BTC', at(MAX_AGE));

    expect(server.requests).toHaveLength(2);
    expect(rate.asOf).toEqual(at(MAX_AGE));
    expect(s(rate.numerator)).toBe('0.00002');
    expect((await tableRateCache.get(source))?.fetchedAt).toEqual(at(MAX_AGE));
  });

  it('an older snapshot never overwrites a newer one in the table', async () => {
    const source = `test-${randomUUID()}`;
    const base = { source, url: 'http://rates.example/?currency=USD', base: 'USD' };
    await tableRateCache.put({ ...base, rates: new Map([['BTC', d('0.00002')]]), fetchedAt: at(100) });

    await expect(tableRateCache.put({ ...base, rates: new Map([['BTC', d('0.00001')]]), fetchedAt: at(0) })).resolves.toBeUndefined();
    await tableRateCache.put({ ...base, rates: new Map([['BTC', d('0.00003')]]), fetchedAt: at(100) });

    const stored = await tableRateCache.get(source);
    expect(stored?.fetchedAt).toEqual(at(100));
    expect(s(stored!.rates.get('BTC')!)).toBe('0.00002');

    await tableRateCache.put({ ...base, rates: new Map([['BTC', d('0.00004')]]), fetchedAt: at(101) });
    expect(s((await tableRateCache.get(source))!.rates.get('BTC')!)).toBe('0.00004');
  });

  it('a process that fetched earlier than the stored snapshot uses its own answer but does not replace it', async () => {
    let btc = '0.00002';
    const server = await startRateServer((request, response) => coinbase({ ...RATES, BTC: btc })(request, response));
    const source = `test-${randomUUID()}`;
    await provider(server.url, { source }).getRate('USD', 'BTC', at(1000));
    btc = '0.00001';

    // A clock far behind: the stored snapshot is not fresh for it, so it fetches.
    const rate = await provider(server.url, { source }).getRate('USD', 'BTC', T0);

    expect(server.requests).toHaveLength(2);
    expect(s(rate.numerator)).toBe('0.00001');
    const stored = await tableRateCache.get(source);
    expect(stored?.fetchedAt).toEqual(at(1000));
    expect(s(stored!.rates.get('BTC')!)).toBe('0.00002');
  });
});

describe('HttpRateProvider: failing closed', () => {
  it('with the source down and the snapshot stale: RateUnavailableError, never the stale rate', async () => {
    const server = await startRateServer();
    const source = `test-${randomUUID()}`;
    const rates = provider(server.url, { source });
    await rates.getRate('USD', 'BTC', T0);
    await server.close();

    // Within the max age the stored snapshot still serves (this process and another one).
    await expect(rates.getRate('USD', 'BTC', at(60))).resolves.toMatchObject({ asOf: T0 });
    await expect(provider(server.url, { source }).getRate('USD', 'BTC', at(MAX_AGE - 1))).resolves.toMatchObject({ asOf: T0 });

    await expect(rates.getRate('USD', 'BTC', at(MAX_AGE))).rejects.toThrow(RateUnavailableError);
    await expect(provider(server.url, { source }).getRate('USD', 'BTC', at(MAX_AGE + 1))).rejects.toThrow(/ECONNREFUSED|fetch failed/);
  });

  const failures: [string, (request: IncomingMessage, response: ServerResponse) => void, RegExp][] = [
    ['an HTTP 500', (_q, r) => r.writeHead(500).end('{"errors":[{"id":"internal"}]}'), /HTTP 500/],
    ['a 404', (_q, r) => r.writeHead(404).end(), /HTTP 404/],
    ['malformed JSON', (_q, r) => r.writeHead(200).end('{"data":{"currency":"USD","rates":{"BTC":"0.00001"'), /not JSON/],
    ['JSON of another shape', (_q, r) => r.writeHead(200).end('{"rates":{"BTC":"0.00001"}}'), /no "data"/],
    ['rates for another base', coinbase(RATES, 'EUR'), /rates are for "EUR", asked for USD/],
    ['BTC as "abc"', coinbase({ ...RATES, BTC: 'abc' }), /no rate for BTC/],
    ['BTC as a JSON number', coinbase({ ...RATES, BTC: 0.0000153846153846 }), /no rate for BTC/],
    ['BTC as "0"', coinbase({ ...RATES, BTC: '0' }), /no rate for BTC/],
    ['BTC in exponent form', coinbase({ ...RATES, BTC: '1.5e-5' }), /no rate for BTC/],
    ['BTC missing', coinbase({ USD: '1', CNY: '7.2' }), /no rate for BTC/],
  ];

  it.each(failures)('with %s: RateUnavailableError, and a stale snapshot is not used', async (_name, answer, reason) => {
    const server = await startRateServer(answer);
    const rates = provider(server.url);
    await tableRateCache.put(snapshotOf(rates, { USD: '1', BTC: '0.0000153846153846' }, at(-MAX_AGE - 1)));

    const result = rates.getRate('USD', 'BTC', T0);

    await expect(result).rejects.toThrow(RateUnavailableError);
    await expect(result).rejects.toThrow(reason);
    expect(server.requests).toHaveLength(1);
  });

  it('with a source that hangs past the timeout: RateUnavailableError within the timeout', async () => {
    const server = await startRateServer(() => undefined); // never answers
    const rates = provider(server.url, { fetchTimeoutMs: 200 });
    const started = Date.now();

    await expect(rates.getRate('USD', 'BTC', T0)).rejects.toThrow(/no answer within 200ms/);

    expect(Date.now() - started).toBeLessThan(2_000);
    expect(server.requests).toHaveLength(1);
  });

  it('with a source that sends headers and then stalls the body: RateUnavailableError', async () => {
    const server = await startRateServer((_q, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"data":{"currency":"USD","rates":{');
    });
    const rates = provider(server.url, { fetchTimeoutMs: 200 });

    await expect(rates.getRate('USD', 'BTC', T0)).rejects.toThrow(RateUnavailableError);
  });

  it('a bad entry only makes the pairs that need it unavailable', async () => {
    const server = await startRateServer(coinbase({ ...RATES, BTC: 'abc' }));
    const rates = provider(server.url);

    await expect(rates.getRate('USD', 'BTC', T0)).rejects.toThrow(RateUnavailableError);
    await expect(rates.getRate('USD', 'CNY', T0)).resolves.toMatchObject({ numerator: d('7.2') });
    // The answer was fetched once and is not fetched again for the missing pair within the max age.
    await expect(rates.getRate('EUR', 'BTC', at(10))).rejects.toThrow(RateUnavailableError);
    expect(server.requests).toHaveLength(1);
  });
});
