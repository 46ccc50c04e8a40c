import { confirmationsConfig } from '#shared/core/config';
import { requiredConfirmations } from '#shared/domain/currencies';

/**
 * Confirmations a payment in `code` needs before it counts as paid: `<CODE>_CONFIRMATIONS`
 * when set, else the currency table's default (BTC 2, LTC 6, BCH 6, ETH 12; docs/merchant-guide.md "Order statuses" explains why).
 */
export function confirmationsRequired(code: string): number {
  return confirmationsConfig()[code] ?? requiredConfirmations(code);
}
