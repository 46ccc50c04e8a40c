import { describe, expect, it } from 'vitest';
import { formatDecimal } from '#shared/domain/money';
import type { IntervalUnit, SubscriptionStatus } from '#shared/domain/subscription';
import { CHURN_WINDOW_DAYS, churn, monthlyRecurringRevenue, monthlyShare } from '#shared/domain/subscription-figures';

/**
 * The subscriptions screen's figures (shared/domain/subscription-figures.ts): a plan's price as
 * a month's worth, MRR per currency over the paying subscriptions, and the window's churn as
 * its module defines it.
 */

const NOW = new Date('2026-06-30T12:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000).toISOString();
const plan = (price: string, unit: IntervalUnit, count = 1, currency = 'USD') => ({ price_amount: price, price_currency: currency, interval_unit: unit, interval_count: count });
const subscribed = (status: SubscriptionStatus, planOf = plan('30', 'month')) => ({ subscription: { status }, plan: planOf });

describe("a plan's price as a month's worth", () => {
  it.each([
    [plan('30', 'month'), '30'],
    [plan('90', 'month', 3), '30'],
    [plan('120', 'year'), '10'],
    [plan('360', 'year', 3), '10'],
    [plan('12', 'week'), '52'],
    [plan('1', 'day'), '30.416666666667'],
    [plan('14', 'day', 14), '30.416666666667'],
  ])('%o is %s a month', (given, month) => {
    expect(formatDecimal(monthlyShare(given))).toBe(month);
  });
});

describe('monthly recurring revenue', () => {
  it('sums the active and past due subscriptions, per currency, rounded to its decimals once', () => {
    const mrr = monthlyRecurringRevenue([
      subscribed('active'),
      subscribed('past_due', plan('1', 'day')),
      subscribed('active', plan('1', 'day')),
      subscribed('active', plan('1000', 'year', 1, 'JPY')),
      // None of these pays: a trial, a first period not paid, an ended one.
      subscribed('trialing', plan('500', 'month')),
      subscribed('incomplete', plan('500', 'month')),
      subscribed('canceled', plan('500', 'month')),
    ]);
    // 30 + 2 x 30.41666... is 90.83 rounded once after the sum; each share rounded first would make 30 + 2 x 30.42 = 90.84.
    expect(mrr).toEqual([
      { currency: 'JPY', amount: '83', subscriptions: 1 },
      { currency: 'USD', amount: '90.83', subscriptions: 3 },
    ]);
  });

  it('is empty when nothing pays', () => {
    expect(monthlyRecurringRevenue([subscribed('trialing'), subscribed('canceled')])).toEqual([]);
  });
});

describe(`churn over the last ${CHURN_WINDOW_DAYS} days`, () => {
  const ended = (canceledDaysAgo: number, periodsPaid = 1) => ({ status: 'canceled' as const, started_at: daysAgo(200), canceled_at: daysAgo(canceledDaysAgo), periods_paid: periodsPaid });
  const paying = (startedDaysAgo: number, status: SubscriptionStatus = 'active') => ({ status, started_at: daysAgo(startedDaysAgo), periods_paid: 1 });

  it('counts the paying ones lost in the window over those and the paying ones started before it', () => {
    const figures = churn(
      [
        ended(1),
        ended(29),
        // Ended before the window, or never paid: no customer lost in it.
        ended(31),
        ended(3, 0),
        paying(100),
        paying(40, 'past_due'),
        // Started within the window: not paying at its start.
        paying(10),
      ],
      NOW,
    );
    expect(figures).toEqual({ window_days: 30, ended: 2, at_start: 4, rate: 0.5 });
  });

  it('has no rate when there was nobody paying to lose', () => {
    expect(churn([paying(5), ended(2, 0)], NOW)).toEqual({ window_days: 30, ended: 0, at_start: 0, rate: null });
    expect(churn([paying(45)], NOW).rate).toBe(0);
  });
});
