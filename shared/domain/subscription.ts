/**
 * Recurring billing (beyond the MugglePay contract). Crypto cannot be pulled from a buyer's
 * wallet, so a subscription is an ordinary order each period that the subscriber pays: made
 * `invoice_days_before` days before the period's due date, past_due when unpaid at the due
 * date, canceled when still unpaid `grace_days` after it. Periods are computed in UTC from the
 * billing anchor (the start, after any trial), months clamped to the month's last day. Pure
 * functions of values: the clock is a `now` argument (a sandbox subscription's own clock is
 * `now` moved by its test clock's offset, {@link subscriptionNow}).
 */

export const INTERVAL_UNITS = ['day', 'week', 'month', 'year'] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];

/**
 * - incomplete: started without a trial, its first period not paid yet (canceled when still
 *   unpaid at the end of the grace period);
 * - trialing: in its free trial (the first period's order is made before the trial ends);
 * - active: the current period is paid;
 * - past_due: a period was not paid by its due date (active again when paid within the grace period);
 * - canceled: final (the grace period ended unpaid, or the subscriber or merchant canceled).
 */
export const SUBSCRIPTION_STATUSES = ['incomplete', 'trialing', 'active', 'past_due', 'canceled'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const CANCEL_REASONS = ['grace_ended', 'subscriber', 'merchant'] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

/** The most periods a plan's interval may span at once (count of its unit). */
export const MAX_INTERVAL_COUNT: Record<IntervalUnit, number> = { day: 365, week: 52, month: 12, year: 3 };
export const MAX_TRIAL_DAYS = 365;

/**
 * How often a plan change is tried, each time on the version another change wrote first (each
 * loss is another change landing, so ten changes at once all land).
 */
export const PLAN_CHANGE_ATTEMPTS = 10;

export const MAX_GRACE_DAYS = 60;
export const MAX_INVOICE_DAYS_BEFORE = 30;

export interface Plan {
  plan_id: string;
  user_id: number;
  name: string;
  description: string;
  /** A decimal string in price_currency (the price of each period from the next one made). */
  price_amount: string;
  price_currency: string;
  interval_unit: IntervalUnit;
  interval_count: number;
  trial_days: number;
  /** How long after a due date an unpaid period is waited for before the subscription is canceled. */
  grace_days: number;
  /** How many days before a due date the period's order is made and sent. */
  invoice_days_before: number;
  /** Each period's order's callback_url and success_url. */
  callback_url?: string;
  success_url?: string;
  /** Where the subscription's own events go (created, renewed, past_due, canceled), signed as callbacks. */
  events_url?: string;
  /** Archived: no new subscriber; existing subscriptions go on. */
  archived: boolean;
  sandbox: boolean;
  created_at: string;
  updated_at: string;
}

/** A subscriber's subscription to a plan. */
export interface Subscription {
  subscription_id: string;
  user_id: number;
  plan_id: string;
  sandbox: boolean;
  customer_email?: string;
  /** The merchant's own id for the customer. */
  customer_id?: string;
  status: SubscriptionStatus;
  /** When it was started (the subscription's clock). */
  started_at: string;
  /** The first period's due date: the start, or the end of the trial. */
  anchor_at: string;
  /** The period being billed (0: the first): the one whose order is made, waited for or paid next. */
  period: number;
  /** The current period's order, once made; `period_attempt` counts its orders (a new one only after the last expired unpaid). */
  period_order_id?: string;
  period_attempt?: number;
  /** Periods paid so far. */
  periods_paid: number;
  /** The reminders of the current period's order already taken (a day before the due date, and on it). */
  reminders?: Reminder[];
  /** Canceled at the end of the period paid (no further order is made). */
  cancel_at_period_end?: boolean;
  canceled_at?: string;
  cancel_reason?: CancelReason;
  /** The test clock (sandbox only): how far the subscription's time runs ahead of the real one. */
  clock_offset_ms: number;
  /** When its next step is due, on its own clock (absent once canceled). */
  next_step_at?: string;
  created_at: string;
  updated_at: string;
  version: number;
}

const DAY_MS = 86_400_000;

/** The subscription's own time: the real time moved by its test clock. */
export const subscriptionNow = (subscription: Pick<Subscription, 'clock_offset_ms'>, now: Date): Date => new Date(now.getTime() + subscription.clock_offset_ms);

/** The real time at which the subscription's clock reads `at`. */
export const realTimeOf = (subscription: Pick<Subscription, 'clock_offset_ms'>, at: string): Date => new Date(Date.parse(at) - subscription.clock_offset_ms);

/** `months` months after `from` in UTC, its day clamped to the target month's last (31 January + 1 month: 28 or 29 February). */
export function addMonths(from: Date, months: number): Date {
  const year = from.getUTCFullYear();
  const month = from.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(from.getUTCDate(), lastDay);
  return new Date(Date.UTC(year, month, day, from.getUTCHours(), from.getUTCMinutes(), from.getUTCSeconds(), from.getUTCMilliseconds()));
}

/**
 * When period `n` (0: the first) is due: `n` intervals after the anchor, each computed from the
 * anchor itself (not from the period before), so a clamped month never shifts the ones after
 * it: started 31 January, due 28/29 February, then 31 March.
 */
export function periodDue(plan: Pick<Plan, 'interval_unit' | 'interval_count'>, anchorAt: string, n: number): Date {
  const anchor = new Date(anchorAt);
  const steps = n * plan.interval_count;
  switch (plan.interval_unit) {
    case 'day':
      return new Date(anchor.getTime() + steps * DAY_MS);
    case 'week':
      return new Date(anchor.getTime() + steps * 7 * DAY_MS);
    case 'month':
      return addMonths(anchor, steps);
    case 'year':
      return addMonths(anchor, steps * 12);
  }
}

/** What a period's order has come to, as a subscription's step reads it. */
export type PeriodOrderState = 'open' | 'paid' | 'lapsed';

/** PAID and what can follow it (a refund asked or made, a resolution) count as paid; EXPIRED and CANCELED as lapsed. */
export function periodOrderState(status: string): PeriodOrderState {
  if (status === 'EXPIRED' || status === 'CANCELED') return 'lapsed';
  if (status === 'NEW' || status === 'PENDING' || status === 'UNRESOLVED') return 'open';
  return 'paid';
}

/** The subscriber is reminded of an unpaid period's order a day before its due date, and on it. */
export const REMINDERS = ['before_due', 'on_due'] as const;
export type Reminder = (typeof REMINDERS)[number];
const REMINDER_BEFORE_MS = DAY_MS;

/**
 * One period of a subscription and the order made for it (one item per attempt, in the
 * subscription's partition): the subscription's history, the subscriber's receipts, and what
 * the subscriber's emails are made from (its insert: the invoice; its reminders).
 */
export interface SubscriptionPeriod {
  subscription_id: string;
  user_id: number;
  /** 0: the first. */
  period: number;
  attempt: number;
  order_id: string;
  due_at: string;
  price_amount: string;
  price_currency: string;
  created_at: string;
  /** When each reminder was taken (the subscription's clock). */
  reminded?: Partial<Record<Reminder, string>>;
}

/** One change a subscription's step makes; the step is taken again after it until it answers `wait`. */
export type SubscriptionStep =
  /** Make the current period's order (attempt `attempt`): its price is the plan's now. */
  | { kind: 'make-order'; attempt: number }
  /** The current period's order was paid: the next period becomes the current one. */
  | { kind: 'paid' }
  | { kind: 'past-due' }
  /** Remind the subscriber of the open order (an email is made from it). */
  | { kind: 'remind'; reminder: Reminder }
  /** Canceled; `cancelOrder` names the period's unpaid order, canceled with it. */
  | { kind: 'cancel'; reason: CancelReason; cancelOrder?: string }
  /** Nothing to do before `until` (its clock's time), or ever (canceled). */
  | { kind: 'wait'; until?: string };

/**
 * The next change a subscription owes at its clock's time `at`, given its plan and the state of
 * the current period's order (undefined: none made yet). Pure: the service applies it with a
 * conditional write and asks again.
 */
export function nextStep(
  subscription: Subscription,
  plan: Pick<Plan, 'interval_unit' | 'interval_count' | 'grace_days' | 'invoice_days_before'>,
  order: PeriodOrderState | undefined,
  at: Date,
): SubscriptionStep {
  if (subscription.status === 'canceled') return { kind: 'wait' };
  const due = periodDue(plan, subscription.anchor_at, subscription.period);
  const invoiceAt = new Date(due.getTime() - plan.invoice_days_before * DAY_MS);
  const graceEnd = new Date(due.getTime() + plan.grace_days * DAY_MS);
  const time = at.getTime();
  if (order === 'paid') return { kind: 'paid' };
  // Canceled at the end of the period paid or of the trial: the next period is never billed, so no order is made for it
  // (nor made again after one lapsed); one made before the cancellation is canceled at the due date unless paid by then.
  if (subscription.cancel_at_period_end && (subscription.periods_paid > 0 || subscription.status === 'trialing') && (time >= due.getTime() || order !== 'open')) {
    if (time >= due.getTime())
      return { kind: 'cancel', reason: subscription.cancel_reason ?? 'subscriber', ...(subscription.period_order_id && order === 'open' ? { cancelOrder: subscription.period_order_id } : {}) };
    return { kind: 'wait', until: due.toISOString() };
  }
  if (time >= graceEnd.getTime()) return { kind: 'cancel', reason: 'grace_ended', ...(subscription.period_order_id && order === 'open' ? { cancelOrder: subscription.period_order_id } : {}) };
  if (order === undefined || order === 'lapsed') {
    if (time < invoiceAt.getTime()) return { kind: 'wait', until: invoiceAt.toISOString() };
    return { kind: 'make-order', attempt: (subscription.period_attempt ?? 0) + 1 };
  }
  // The order is open: reminded a day before the due date (when it was made before then) and on it, past due at
  // the due date (a first period never paid stays incomplete), then canceled at the end of the grace period.
  const reminded = subscription.reminders ?? [];
  const remindAt = due.getTime() - REMINDER_BEFORE_MS;
  if (time >= due.getTime() && subscription.status !== 'past_due' && subscription.status !== 'incomplete') return { kind: 'past-due' };
  // A first period never paid was invoiced at its start: nothing to remind on the day it was sent.
  if (time >= due.getTime() && !reminded.includes('on_due') && subscription.status !== 'incomplete') return { kind: 'remind', reminder: 'on_due' };
  if (time >= remindAt && time < due.getTime() && !reminded.includes('before_due') && remindAt > invoiceAt.getTime()) return { kind: 'remind', reminder: 'before_due' };
  const next = [remindAt > invoiceAt.getTime() && !reminded.includes('before_due') ? remindAt : undefined, due.getTime(), graceEnd.getTime()].find((t) => t !== undefined && t > time)!;
  return { kind: 'wait', until: new Date(next).toISOString() };
}

/** The merchant_order_id of a period's order: names the subscription, the period (1: the first) and, after the first, the attempt. */
export const periodReference = (subscriptionId: string, period: number, attempt: number): string => `sub_${subscriptionId}_${period + 1}${attempt > 1 ? `_${attempt}` : ''}`;

/** The status a new subscription starts in: trialing with trial days, else incomplete until its first period is paid. */
export const startingStatus = (trialDays: number): SubscriptionStatus => (trialDays > 0 ? 'trialing' : 'incomplete');

/** The first period's due date of a subscription started at `startedAt`: after its trial. */
export const anchorOf = (startedAt: Date, trialDays: number): string => new Date(startedAt.getTime() + trialDays * DAY_MS).toISOString();

/** The longest a test clock may be moved in one request: a year and a day. */
export const MAX_CLOCK_ADVANCE_DAYS = 366;
