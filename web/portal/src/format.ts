import { exactAmount } from '../../common/amounts';
import { dateTime } from '../../common/format';
import { currentLang } from './i18n';

/** Times in the user's language (UTC, to match the CSV and the API); amounts exact, as the payment page writes them. */
export const formatTime = (iso: string | null | undefined): string => dateTime(iso, currentLang());

export const formatAmount = (amount: string | number, currency: string): string => exactAmount(amount, currency, currentLang());
