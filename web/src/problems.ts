import type { Answer } from './api';
import { t } from './state';

/** What a refused request says: the API's limit with its wait, else the page's own word for the code, else a plain failure. */
export function problemOf(answer: Extract<Answer<unknown>, { ok: false }>, explained: Readonly<Record<string, string>>): string {
  if (answer.status === 429 && answer.retryAfterMs > 0) return t().API_LIMIT_EXCEEDED(Math.ceil(answer.retryAfterMs / 1000));
  return explained[answer.code] ?? t().failed;
}
