/**
 * The numbering run (shared/store/order-numbers.ts): every minute, beside the expiry sweep,
 * it gives the orders created since its last run, and older than the settle time, their
 * numbers, merchant by merchant.
 */
import { advanceNumberingRun, merchantsWithOrdersCreated, numberOrders, readNumberingRun } from '#shared/store/order-numbers';

/**
 * How old an order must be before it is numbered: older than any Create Order still in flight
 * (API Gateway ends a request after 30 s; a function's clock is NTP-synchronised), so no order
 * can be stored later with an earlier creation time and land below a number already given.
 */
export const NUMBERING_SETTLE_MS = 2 * 60_000;

/** The orders created before this time may be numbered at `now`. */
export const numberableBefore = (now: Date): string => new Date(now.getTime() - NUMBERING_SETTLE_MS).toISOString();

export interface NumberingResult {
  merchants: number;
  numbered: number;
  /** False when the deadline came first: the next run goes on where this one stopped. */
  complete: boolean;
}

/**
 * Numbers the orders created since the last run (per the order log) up to the settle time.
 * The run's mark moves only once every merchant seen is numbered up to it; two runs at once
 * are harmless (each batch is conditional on the merchant's cursor). A merchant seen for the
 * first time has all its earlier orders numbered first, so orders stored before numbering
 * existed are numbered once their merchant creates one more (or `npm run merchant -- number-orders`).
 */
export async function numberNewOrders(now: Date, deadline = Infinity): Promise<NumberingResult> {
  const before = numberableBefore(now);
  const from = await readNumberingRun();
  if (from >= before) return { merchants: 0, numbered: 0, complete: true };
  const merchants = await merchantsWithOrdersCreated(from, before);
  let numbered = 0;
  for (const userId of merchants) {
    const result = await numberOrders(userId, before, deadline);
    numbered += result.numbered;
    if (!result.done) return { merchants: merchants.length, numbered, complete: false };
  }
  await advanceNumberingRun(from, before);
  return { merchants: merchants.length, numbered, complete: true };
}

/** Numbers one merchant's orders up to the settle time (the operator's backfill of older orders). */
export async function numberMerchantOrders(userId: number, now: Date): Promise<number> {
  return (await numberOrders(userId, numberableBefore(now))).numbered;
}
