import type { Lang } from './i18n';

/** Formatting for every web app: times, countdowns, and the URLs a page may follow. */

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

/** A time as the language writes it, in UTC (to match the CSV and the API); '' for none. */
export function dateTime(iso: string | null | undefined, lang: Lang): string {
  if (!iso) return '';
  return `${new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso))} UTC`;
}
