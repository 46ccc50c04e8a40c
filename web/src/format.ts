import { currency, isGateway as chargedThroughGateway, quoteCurrency as settlementOf, type Currency } from '#shared/domain/currencies';
import { networkName } from '#shared/domain/networks';
import type { Lang } from './i18n';

/**
 * Formatting for the page. Decimals, kinds and settlement currencies come from the service's
 * own currency table (shared/domain/currencies.ts, bundled into the page at build time), so
 * the page and the API cannot disagree about them.
 */

const known = (code: string): Currency | undefined => {
  try {
    return currency(code);
  } catch {
    return undefined;
  }
};

export const isGateway = (code: string): boolean => chargedThroughGateway(code);

/** What a pay amount is quoted in: gateways charge their settlement fiat (CNY), Lightning is bitcoin, a token its coin (USDT_ARB: USDT). */
export const quoteCurrency = (code: string): string => {
  const quoted = known(code) ? settlementOf(code) : code;
  return quoted === 'CUSD' ? 'cUSD' : quoted;
};

/**
 * The network a coin or token is sent on, named (Arbitrum One), where the address alone does
 * not say it: ether and every token (an Ethereum address is the same on every EVM network).
 */
export const network = (code: string): string | undefined => (code === 'ETH' || known(code)?.chain ? networkName(code) : undefined);

/**
 * A pay amount exactly as it must be sent: fixed decimals, no grouping, never an exponent
 * (String(0.0000001) would be "1e-7"), matching the amount in the payment URI.
 */
export function payAmount(amount: number, currency: string): string {
  return amount.toFixed(known(currency)?.payPrecision ?? 8);
}

/** A price for reading: grouped for the language, fiat with 2 decimals (JPY none), coins up to 8. */
export function price(amount: number, code: string, lang: Lang): string {
  const found = known(code);
  const coin = found !== undefined && found.kind !== 'fiat';
  const fiatDecimals = found?.kind === 'fiat' ? found.precision : 2;
  const formatted = new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en-US', {
    minimumFractionDigits: coin ? 0 : fiatDecimals,
    maximumFractionDigits: coin ? 8 : fiatDecimals,
  }).format(amount);
  return `${formatted} ${code}`;
}

/** Time left as m:ss, or h:mm:ss from an hour up (gateway invoices run three hours). */
export function countdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** Only http(s) URLs are followed: a merchant URL can never become `javascript:` on this page. */
export function safeUrl(url: string | undefined): string {
  if (!url) return '';
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : '';
  } catch {
    return '';
  }
}
