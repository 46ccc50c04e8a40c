import { section } from '#shared/core/config';
import { type Env, positiveInteger } from '#shared/core/env';
import { requiredConfirmations } from '#shared/domain/currencies';

/**
 * Confirmations a payment needs, per currency, where `<CURRENCY>_CONFIRMATIONS` is set
 * (BTC_CONFIRMATIONS=3); the others keep the currency table's documented default.
 */
export const readConfirmationsConfig = (env: Env): Readonly<Record<string, number>> => {
  const settings: Record<string, number> = {};
  for (const name of Object.keys(env)) {
    const match = /^([A-Z][A-Z0-9_]*)_CONFIRMATIONS$/.exec(name);
    if (match) settings[match[1]!] = positiveInteger(env, name, 1);
  }
  return settings;
};
export const confirmationsConfig = section(readConfirmationsConfig);

/**
 * Confirmations a payment in `code` needs before it counts as paid: `<CODE>_CONFIRMATIONS`
 * when set, else the currency table's default (BTC 2, LTC 6, BCH 6, ETH 12; docs/merchant-guide.md "Order statuses" explains why).
 */
export function confirmationsRequired(code: string): number {
  return confirmationsConfig()[code] ?? requiredConfirmations(code);
}
