import { PAY_CURRENCIES, PRICE_CURRENCIES, quoteCurrency } from '#shared/domain/currencies';
import { type Decimal, isPositive, parseDecimal } from '#shared/domain/money';
import { ConfigError } from '#shared/core/env';
import { describeFetchError, readTextLimited } from '#shared/core/fetch-text';
import { logger } from '#shared/core/logger';
import { type ExchangeRate, type RateProvider, RateUnavailableError } from '#shared/payments/rates';
import type { RateCache, RateSnapshot } from '#shared/store/rates';

/**
 * Exchange rates from an HTTP source in the Coinbase exchange-rates format, cached in the
 * table and failing closed:
 *
 *     GET <url>?currency=USD  ->  {"data":{"currency":"USD","rates":{"BTC":"0.0000153846","CNY":"7.2",...}}}
 *
 * Each rate is how many units of that currency one unit of the base buys, as a decimal string.
 * Rates are only ever read as exact decimals; a JSON number (already a float) is rejected.
 */

const ONE = parseDecimal('1');

/** A plain positive decimal string as the source writes it ("7.2", "0.0000153846"); no exponent, no sign. */
const PLAIN_DECIMAL = /^\d{1,30}(?:\.\d{1,40})?$/;

/** Larger answers are refused (the Coinbase one is tens of kilobytes). */
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The code to look up in the source for one of our currencies: gateways quote in their fiat,
 * a token is priced as its asset (USDT_ARB as USDT, LBTC as BTC; shared/domain/currencies.ts).
 */
export function sourceCode(code: string): string {
  return quoteCurrency(code);
}

/** Only currencies this service can be asked about are kept (a small cache item, no junk). */
const KNOWN_SOURCE_CODES: ReadonlySet<string> = new Set([...PRICE_CURRENCIES, ...PAY_CURRENCIES].map(sourceCode));

/** The source answered something unusable (or did not answer). Never leaves this module's provider. */
export class RateSourceError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RateSourceError';
  }
}

/**
 * The rates of a Coinbase-format body, as exact decimals. Entries that are not plain positive
 * decimal strings are dropped (so a pair that needs them is unavailable); the base is always 1.
 * Throws {@link RateSourceError} when the body is not that format or is for another base.
 */
export function parseExchangeRates(body: unknown, base: string): Map<string, Decimal> {
  const data = (body as { data?: unknown } | null)?.data;
  if (!data || typeof data !== 'object') throw new RateSourceError('no "data" object');
  const { currency, rates } = data as { currency?: unknown; rates?: unknown };
  if (currency !== base) throw new RateSourceError(`rates are for ${JSON.stringify(currency)}, asked for ${base}`);
  if (!rates || typeof rates !== 'object' || Array.isArray(rates)) throw new RateSourceError('no "rates" object');
  const parsed = new Map<string, Decimal>();
  for (const [code, text] of Object.entries(rates)) {
    if (typeof text !== 'string' || !PLAIN_DECIMAL.test(text)) continue;
    const rate = parseDecimal(text);
    if (isPositive(rate)) parsed.set(code, rate);
  }
  if (parsed.size === 0) throw new RateSourceError('no usable rate in the answer');
  parsed.set(base, ONE);
  return parsed;
}

/**
 * The exact rate `from` -> `to` in a snapshot. With rates in "units per 1 base", one `from`
 * is worth rates[to] / rates[from] units of `to`. Throws {@link RateUnavailableError} when the
 * snapshot lacks either currency.
 */
export function rateFromSnapshot(snapshot: RateSnapshot, from: string, to: string, source: string): ExchangeRate {
  const fromCode = sourceCode(from);
  const toCode = sourceCode(to);
  const fromRate = snapshot.rates.get(fromCode);
  const toRate = snapshot.rates.get(toCode);
  if (!fromRate || !toRate) {
    const missing = [fromRate ? undefined : fromCode, toRate ? undefined : toCode].filter(Boolean).join(', ');
    throw new RateUnavailableError(from, to, `${source} has no rate for ${missing}`);
  }
  return { from, to, numerator: toRate, denominator: fromRate, source, asOf: snapshot.fetchedAt };
}

export interface HttpRateProviderOptions {
  /** The exchange-rates endpoint (e.g. https://api.coinbase.com/v2/exchange-rates). */
  url: string;
  /** A snapshot older than this is never used. */
  maxAgeSeconds: number;
  /** Where snapshots are shared between processes (`tableRateCache` in every deployment). */
  cache: RateCache;
  /** The `currency` asked for; every rate is per one unit of it. Default USD. */
  base?: string;
  /** Default 3000. */
  fetchTimeoutMs?: number;
  /** How long this process reuses a snapshot without reading the table again. Default 5. */
  memorySeconds?: number;
  /** The cache name of the source. Default: the URL's host (with port). */
  source?: string;
  /** Injectable for tests; default the global fetch. */
  fetch?: typeof fetch;
}

/**
 * A {@link RateProvider} over an HTTP source. For each rate it uses the newest snapshot it can
 * find (process memory, then the table); one older than `maxAgeSeconds` is never used: it
 * fetches the source instead, stores the answer in the table for every other process, and if
 * the source fails too it throws {@link RateUnavailableError} (fail closed, never a guess).
 *
 * The in-memory copy: a Lambda container serves many requests and each checkout asks for two
 * rates, so without it every rate costs a table read. It is kept for `memorySeconds` (a few
 * seconds, so a refresh by another process is seen almost at once) and is still subject to the
 * max age on every use, so it never extends how old a rate may be.
 */
export class HttpRateProvider implements RateProvider {
  /** The cache name of the source, e.g. "api.coinbase.com". */
  readonly source: string;
  /** What an {@link ExchangeRate} says it came from: "http:<host>". */
  readonly label: string;
  /** The exact URL fetched: the configured one with `currency=<base>`. */
  readonly requestUrl: string;
  private readonly base: string;
  private readonly maxAgeMs: number;
  private readonly fetchTimeoutMs: number;
  private readonly memoryMs: number;
  private readonly cache: RateCache;
  private readonly fetch: typeof fetch;
  private memory: { snapshot: RateSnapshot; loadedAtMs: number } | undefined;
  /** One fetch at a time per process: concurrent requests after expiry share it. */
  private refreshing: Promise<RateSnapshot> | undefined;

  constructor(options: HttpRateProviderOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new ConfigError(`rate source URL is not a URL: "${options.url}"`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new ConfigError(`rate source URL must be http(s), got "${url.protocol}"`);
    }
    for (const [name, value] of [
      ['maxAgeSeconds', options.maxAgeSeconds],
      ['fetchTimeoutMs', options.fetchTimeoutMs ?? 3000],
      ['memorySeconds', options.memorySeconds ?? 5],
    ] as const) {
      const least = name === 'memorySeconds' ? 0 : 1; // 0 turns the memory copy off
      if (!Number.isSafeInteger(value) || value < least) {
        throw new ConfigError(`${name} must be an integer of at least ${least}, got ${value}`);
      }
    }
    this.base = options.base ?? 'USD';
    url.searchParams.set('currency', this.base);
    this.requestUrl = url.toString();
    this.source = options.source ?? url.host;
    this.label = `http:${this.source}`;
    this.maxAgeMs = options.maxAgeSeconds * 1000;
    this.fetchTimeoutMs = options.fetchTimeoutMs ?? 3000;
    this.memoryMs = (options.memorySeconds ?? 5) * 1000;
    this.cache = options.cache;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  async getRate(from: string, to: string, now: Date): Promise<ExchangeRate> {
    // Unknown codes throw here, before any I/O (as the static provider does).
    sourceCode(from);
    sourceCode(to);
    const snapshot = await this.usableSnapshot(from, to, now);
    return rateFromSnapshot(snapshot, from, to, this.label);
  }

  private async usableSnapshot(from: string, to: string, now: Date): Promise<RateSnapshot> {
    const nowMs = now.getTime();
    const remembered = this.memory;
    if (remembered) {
      const held = nowMs - remembered.loadedAtMs;
      if (held >= 0 && held < this.memoryMs && this.isFresh(remembered.snapshot, nowMs)) return remembered.snapshot;
    }
    // Store errors propagate as they are (the API answers 503); only the source fails closed.
    const cached = await this.cache.get(this.source);
    if (cached && this.isOurs(cached) && this.isFresh(cached, nowMs)) {
      this.memory = { snapshot: cached, loadedAtMs: nowMs };
      return cached;
    }
    let fetched: RateSnapshot;
    try {
      fetched = await this.refresh(now);
    } catch (error) {
      if (!(error instanceof RateSourceError)) throw error;
      logger.warn('rate source failed', { source: this.label, reason: error.message });
      throw new RateUnavailableError(from, to, `${this.label} failed (${error.message}) and no snapshot is younger than ${this.maxAgeMs / 1000}s`);
    }
    return fetched;
  }

  /**
   * Younger than the max age. A snapshot stamped more than the max age in the future (a wrong
   * clock) is not trusted either.
   */
  private isFresh(snapshot: RateSnapshot, nowMs: number): boolean {
    const age = nowMs - snapshot.fetchedAt.getTime();
    return age < this.maxAgeMs && age > -this.maxAgeMs;
  }

  /** Only a snapshot of the same URL and base means what this provider's rates mean. */
  private isOurs(snapshot: RateSnapshot): boolean {
    return snapshot.url === this.requestUrl && snapshot.base === this.base;
  }

  private refresh(now: Date): Promise<RateSnapshot> {
    this.refreshing ??= this.fetchAndStore(now).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async fetchAndStore(now: Date): Promise<RateSnapshot> {
    const rates = await this.fetchRates();
    const snapshot: RateSnapshot = { source: this.source, url: this.requestUrl, base: this.base, rates, fetchedAt: now };
    // A snapshot the table cannot keep costs the next process a fetch, not this answer its rates.
    await this.cache.put(snapshot).catch((error: unknown) => logger.warn('rate snapshot not stored', { source: this.label, error: String(error) }));
    this.memory = { snapshot, loadedAtMs: now.getTime() };
    return snapshot;
  }

  /** Fetches and parses the source; every way it can fail becomes a {@link RateSourceError}. */
  private async fetchRates(): Promise<Map<string, Decimal>> {
    let text: string;
    try {
      // The signal also bounds reading the body, so a source that trickles bytes times out too.
      const signal = AbortSignal.timeout(this.fetchTimeoutMs);
      const response = await this.fetch(this.requestUrl, { headers: { accept: 'application/json' }, signal });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw new RateSourceError(`HTTP ${response.status}`);
      }
      text = await readTextLimited(response, MAX_BODY_BYTES, () => new RateSourceError(`answer larger than ${MAX_BODY_BYTES} bytes`), signal);
    } catch (error) {
      if (error instanceof RateSourceError) throw error;
      const name = (error as { name?: string }).name;
      const reason = name === 'TimeoutError' ? `no answer within ${this.fetchTimeoutMs}ms` : describeFetchError(error);
      throw new RateSourceError(reason, { cause: error });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new RateSourceError('answer is not JSON', { cause: error });
    }
    const all = parseExchangeRates(body, this.base);
    return new Map([...all].filter(([code]) => KNOWN_SOURCE_CODES.has(code)));
  }
}
