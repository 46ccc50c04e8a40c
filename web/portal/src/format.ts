import { currentLang } from './i18n';

/** Dates and amounts as the user's language writes them (UTC times, to match the CSV and the API). */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  return new Intl.DateTimeFormat(currentLang() === 'zh' ? 'zh-CN' : 'en-GB', {
    dateStyle: 'medium',
    timeStyle: 'medium',
    timeZone: 'UTC',
  }).format(new Date(iso)) + ' UTC';
}

export const formatAmount = (amount: string | number, currency: string): string => `${amount} ${currency}`;
