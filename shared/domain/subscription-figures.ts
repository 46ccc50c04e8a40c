import { displayDecimals } from '#shared/domain/amount-format';
import { add, type Decimal, divide, formatDecimal, multiply, parseDecimal, roundTo, ZERO } from '#shared/domain/money';
import type { IntervalUnit, Plan, Subscription } from '#shared/domain/subscription';

/**
 * The figures of a merchant's subscriptions that the portal shows over their list: monthly
 * recurring revenue and churn. Pure functions of the subscriptions and plans read (the service
 * reads them from the status index, bounded) and of `now`.
 *
 * - Monthly recurring revenue (MRR): the sum, over the subscriptions active or past due, of
 *   their plan's price as a month's worth (a daily price times 365/12, a weekly one times 52/12,
 *   a yearly one divided by 12, each divided by the plan's interval count), per price currency
 *   (amounts in different currencies are never added or converted). It is the plan's price now:
 *   a changed price counts at once, though each subscription pays it from its next period made.
 * - Churn over the last {@link CHURN_WINDOW_DAYS} days: `ended / (ended + kept)`, where `ended`
 *   counts the subscriptions canceled within the window that had paid at least one period (a
 *   trial or a first period never paid is no customer lost), and `kept` the subscriptions active
 *   or past due now that were started before the window began. `ended + kept` stands for the
 *   paying subscriptions at the window's start: an approximation, which counts a subscription
 *   started and ended within the window as paying at its start, and a trial or incomplete one at
 *   the start that pays now as paying then. Times are real time (a sandbox test clock moves no
 *   figure): canceled_at and started_at are written in real time.
 */

export const CHURN_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

/** Decimals each month's share of a price is kept to before the sum is rounded to the currency's own. */
const SHARE_PLACES = 12;

/** How many of a plan's interval units a year holds (a month is a twelfth of it). */
const UNITS_A_YEAR: Record<IntervalUnit, number> = { day: 365, week: 52, month: 12, year: 1 };

/** A plan's price as a month's worth, unrounded (to {@link SHARE_PLACES} decimals). */
export function monthlyShare(plan: Pick<Plan, 'price_amount' | 'interval_unit' | 'interval_count'>): Decimal {
  const yearly = multiply(parseDecimal(plan.price_amount), { units: BigInt(UNITS_A_YEAR[plan.interval_unit]), scale: 0 });
  return divide(yearly, { units: BigInt(12 * plan.interval_count), scale: 0 }, SHARE_PLACES, 'half-up');
}

/** Statuses whose subscriptions pay (or owe) a period now: they make the MRR. */
export const PAYING_STATUSES = ['active', 'past_due'] as const;

export interface MonthlyRevenue {
  currency: string;
  /** A decimal string, rounded half-up to the currency's display decimals. */
  amount: string;
  /** The subscriptions it sums. */
  subscriptions: number;
}

type WithPlan = { subscription: Pick<Subscription, 'status'>; plan: Pick<Plan, 'price_amount' | 'price_currency' | 'interval_unit' | 'interval_count'> };

/** The MRR of these subscriptions (those active or past due count), one figure per price currency, by currency code. */
export function monthlyRecurringRevenue(subscriptions: readonly WithPlan[]): MonthlyRevenue[] {
  const sums = new Map<string, { total: Decimal; count: number }>();
  for (const { subscription, plan } of subscriptions) {
    if (!(PAYING_STATUSES as readonly string[]).includes(subscription.status)) continue;
    const sum = sums.get(plan.price_currency) ?? { total: ZERO, count: 0 };
    sums.set(plan.price_currency, { total: add(sum.total, monthlyShare(plan)), count: sum.count + 1 });
  }
  return [...sums]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([currency, { total, count }]) => ({ currency, amount: formatDecimal(roundTo(total, displayDecimals(currency), 'half-up')), subscriptions: count }));
}

export interface Churn {
  window_days: number;
  /** Subscriptions canceled within the window that had paid a period. */
  ended: number;
  /** `ended` and the paying subscriptions now that started before the window: the paying ones at its start, approximately. */
  at_start: number;
  /** ended / at_start, or null when there was none to lose. */
  rate: number | null;
}

type ChurnFacts = Pick<Subscription, 'status' | 'started_at' | 'canceled_at' | 'periods_paid'>;

/** The churn of the last {@link CHURN_WINDOW_DAYS} days at `now`, from the subscriptions active, past due and canceled. */
export function churn(subscriptions: readonly ChurnFacts[], now: Date): Churn {
  const start = new Date(now.getTime() - CHURN_WINDOW_DAYS * DAY_MS).toISOString();
  const ended = subscriptions.filter((s) => s.status === 'canceled' && s.periods_paid > 0 && s.canceled_at !== undefined && s.canceled_at >= start).length;
  const kept = subscriptions.filter((s) => (PAYING_STATUSES as readonly string[]).includes(s.status) && s.started_at < start).length;
  const atStart = ended + kept;
  return { window_days: CHURN_WINDOW_DAYS, ended, at_start: atStart, rate: atStart === 0 ? null : ended / atStart };
}
