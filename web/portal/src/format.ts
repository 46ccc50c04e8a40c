import { dateTime } from '../../common/format';
import { currentLang } from './i18n';

/** Times in the user's language (UTC, to match the CSV and the API); amounts as the API writes them. */
export const formatTime = (iso: string | null | undefined): string => dateTime(iso, currentLang());

export const formatAmount = (amount: string | number, currency: string): string => `${amount} ${currency}`;
