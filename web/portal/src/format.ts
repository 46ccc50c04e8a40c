import { dateTime } from '../../common/format';
import { currentLang } from './i18n';

/** Times in the user's language (UTC, to match the CSV and the API). */
export const formatTime = (iso: string | null | undefined): string => dateTime(iso, currentLang());

/** Amounts as every screen, page and email writes them: the currency's decimals, never rounded. */
export { formatAmount } from '#shared/domain/amount-format';
