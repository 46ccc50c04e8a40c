import type { Lang } from './i18n';

/** Decimals a buyer is asked to pay in each pay currency (gateways charge CNY). */
const PAY_DECIMALS: Record<string, number> = {
  BTC: 8,
  LTC: 8,
  BCH: 8,
  ETH: 8,
  USDT_ERC20: 6,
  USDC_ERC20: 6,
  LBTC: 8,
  EOS: 4,
  ALIPAY: 2,
  ALIGLOBAL: 2,
  WECHAT: 2,
};
const GATEWAYS = ['ALIPAY', 'ALIGLOBAL', 'WECHAT'];

export const isGateway = (code: string): boolean => GATEWAYS.includes(code);

/** Codes whose amounts are in another unit: Lightning is bitcoin, an ERC-20 stable coin is the coin. */
const QUOTED_AS: Record<string, string> = { LBTC: 'BTC', USDT_ERC20: 'USDT', USDC_ERC20: 'USDC' };

/** What a pay amount is quoted in: gateways charge CNY, Lightning is bitcoin, the rest their own coin. */
export const quoteCurrency = (code: string): string => (isGateway(code) ? 'CNY' : (QUOTED_AS[code] ?? code));

/**
 * A pay amount exactly as it must be sent: fixed decimals, no grouping, never an exponent
 * (String(0.0000001) would be "1e-7"), matching the amount in the payment URI.
 */
export function payAmount(amount: number, currency: string): string {
  return amount.toFixed(PAY_DECIMALS[currency] ?? 8);
}

/** A price for reading: grouped for the language, fiat with 2 decimals (JPY none), coins up to 8. */
export function price(amount: number, currency: string, lang: Lang): string {
  const fiatDecimals = currency === 'JPY' ? 0 : 2;
  const coin = ['BTC', 'LTC', 'BCH', 'ETH', 'EOS', 'USDT', 'USDC'].includes(currency);
  const formatted = new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en-US', {
    minimumFractionDigits: coin ? 0 : fiatDecimals,
    maximumFractionDigits: coin ? 8 : fiatDecimals,
  }).format(amount);
  return `${formatted} ${currency}`;
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
