import { describe, expect, it } from 'vitest';
import { addMonths, nextStep, type Plan, periodDue, periodOrderState, periodReference, type Subscription } from '#shared/domain/subscription';

/**
 * A subscription's periods and steps (shared/domain/subscription.ts): due dates in UTC from the
 * anchor with months clamped to their last day, and the step owed at each moment of a period.
 */

const monthly = { interval_unit: 'month', interval_count: 1, grace_days: 5, invoice_days_before: 3 } as const satisfies Partial<Plan>;
const day = (iso: string) => new Date(iso);

function subscription(overrides: Partial<Subscription> = {}): Subscription {
  return {
    subscription_id: '00000000-0000-4000-8000-000000000001',
    user_id: 1,
    plan_id: '00000000-0000-4000-8000-000000000002',
    sandbox: true,
    status: 'active',
    started_at: '2027-01-31T10:00:00.000Z',
    anchor_at: '2027-01-31T10:00:00.000Z',
    period: 1,
    periods_paid: 1,
    clock_offset_ms: 0,
    created_at: '2027-01-31T10:00:00.000Z',
    updated_at: '2027-01-31T10:00:00.000Z',
    version: 3,
    ...overrides,
  };
}

describe('period due dates', () => {
  it('clamps a month to its last day and never lets the clamp shift the months after it', () => {
    const dues = [0, 1, 2, 3, 12, 13].map((n) => periodDue(monthly, '2027-01-31T10:00:00.000Z', n).toISOString());
    expect(dues).toEqual(['2027-01-31T10:00:00.000Z', '2027-02-28T10:00:00.000Z', '2027-03-31T10:00:00.000Z', '2027-04-30T10:00:00.000Z', '2028-01-31T10:00:00.000Z', '2028-02-29T10:00:00.000Z']);
  });

  it('counts days, weeks, several months and years from the anchor, in UTC', () => {
    const anchor = '2028-02-29T23:30:00.000Z';
    expect(periodDue({ interval_unit: 'day', interval_count: 10 }, anchor, 2).toISOString()).toBe('2028-03-20T23:30:00.000Z');
    expect(periodDue({ interval_unit: 'week', interval_count: 2 }, anchor, 1).toISOString()).toBe('2028-03-14T23:30:00.000Z');
    expect(periodDue({ interval_unit: 'month', interval_count: 3 }, anchor, 1).toISOString()).toBe('2028-05-29T23:30:00.000Z');
    expect(periodDue({ interval_unit: 'year', interval_count: 1 }, anchor, 1).toISOString()).toBe('2029-02-28T23:30:00.000Z');
    expect(periodDue({ interval_unit: 'year', interval_count: 1 }, anchor, 4).toISOString()).toBe('2032-02-29T23:30:00.000Z');
    expect(addMonths(day('2027-12-31T00:00:00Z'), 2).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });
});

describe('the step a subscription owes', () => {
  // Period 2 (index 1) is due 28 February 10:00; its order is made 3 days before, past due at the due date, canceled 5 days after.
  it("waits until the invoice day, then makes the period's order", () => {
    expect(nextStep(subscription(), monthly, undefined, day('2027-02-20T00:00:00Z'))).toEqual({ kind: 'wait', until: '2027-02-25T10:00:00.000Z' });
    expect(nextStep(subscription(), monthly, undefined, day('2027-02-25T10:00:00Z'))).toEqual({ kind: 'make-order', attempt: 1 });
  });

  it('reminds a day before the due date and on it, marks it past due, then cancels both at the end of the grace period', () => {
    const invoiced = subscription({ period_order_id: 'o-1', period_attempt: 1 });
    expect(nextStep(invoiced, monthly, 'open', day('2027-02-26T00:00:00Z'))).toEqual({ kind: 'wait', until: '2027-02-27T10:00:00.000Z' });
    expect(nextStep(invoiced, monthly, 'open', day('2027-02-27T10:00:00Z'))).toEqual({ kind: 'remind', reminder: 'before_due' });
    const reminded = { ...invoiced, reminders: ['before_due' as const] };
    expect(nextStep(reminded, monthly, 'open', day('2027-02-27T12:00:00Z'))).toEqual({ kind: 'wait', until: '2027-02-28T10:00:00.000Z' });
    expect(nextStep(reminded, monthly, 'open', day('2027-02-28T10:00:00Z'))).toEqual({ kind: 'past-due' });
    const late = { ...reminded, status: 'past_due' as const };
    expect(nextStep(late, monthly, 'open', day('2027-02-28T10:00:00Z'))).toEqual({ kind: 'remind', reminder: 'on_due' });
    const remindedTwice = { ...late, reminders: ['before_due' as const, 'on_due' as const] };
    expect(nextStep(remindedTwice, monthly, 'open', day('2027-03-01T00:00:00Z'))).toEqual({ kind: 'wait', until: '2027-03-05T10:00:00.000Z' });
    expect(nextStep(remindedTwice, monthly, 'open', day('2027-03-05T10:00:00Z'))).toEqual({ kind: 'cancel', reason: 'grace_ended', cancelOrder: 'o-1' });
  });

  it('sends no reminder before the due date for an order made less than a day before it', () => {
    const lastMinute = { ...monthly, invoice_days_before: 0 };
    const invoiced = subscription({ period_order_id: 'o-1', period_attempt: 1 });
    expect(nextStep(invoiced, lastMinute, 'open', day('2027-02-28T09:00:00Z'))).toEqual({ kind: 'wait', until: '2027-02-28T10:00:00.000Z' });
  });

  it('takes a paid order as paid at any time, even late in the grace period (never cancels a paid one)', () => {
    const late = subscription({ status: 'past_due', period_order_id: 'o-1', period_attempt: 1 });
    expect(nextStep(late, monthly, 'paid', day('2027-03-05T09:59:59Z'))).toEqual({ kind: 'paid' });
    expect(nextStep(late, monthly, 'paid', day('2027-04-30T00:00:00Z'))).toEqual({ kind: 'paid' });
  });

  it('makes a new order (the next attempt) when the last one lapsed unpaid within the grace period', () => {
    const lapsed = subscription({ status: 'past_due', period_order_id: 'o-1', period_attempt: 1 });
    expect(nextStep(lapsed, monthly, 'lapsed', day('2027-03-01T00:00:00Z'))).toEqual({ kind: 'make-order', attempt: 2 });
    expect(nextStep(lapsed, monthly, 'lapsed', day('2027-03-05T10:00:00Z'))).toEqual({ kind: 'cancel', reason: 'grace_ended' });
  });

  it("never bills the next period of a subscription canceled at the period's end, and ends it at the due date", () => {
    const ending = subscription({ cancel_at_period_end: true, cancel_reason: 'subscriber' });
    expect(nextStep(ending, monthly, undefined, day('2027-02-26T00:00:00Z'))).toEqual({ kind: 'wait', until: '2027-02-28T10:00:00.000Z' });
    expect(nextStep(ending, monthly, undefined, day('2027-02-28T10:00:00Z'))).toEqual({ kind: 'cancel', reason: 'subscriber' });
    const invoiced = { ...ending, period_order_id: 'o-1', period_attempt: 1 };
    expect(nextStep(invoiced, monthly, 'open', day('2027-02-28T10:00:00Z'))).toEqual({ kind: 'cancel', reason: 'subscriber', cancelOrder: 'o-1' });
  });

  it('keeps a first period never paid incomplete (not past due) until the grace period ends', () => {
    const first = subscription({ status: 'incomplete', period: 0, periods_paid: 0, period_order_id: 'o-0', period_attempt: 1 });
    expect(nextStep(first, monthly, 'open', day('2027-02-01T00:00:00Z'))).toEqual({ kind: 'wait', until: '2027-02-05T10:00:00.000Z' });
    expect(nextStep(first, monthly, 'open', day('2027-02-05T10:00:00Z'))).toEqual({ kind: 'cancel', reason: 'grace_ended', cancelOrder: 'o-0' });
  });

  it('owes nothing once canceled', () => {
    expect(nextStep(subscription({ status: 'canceled' }), monthly, 'open', day('2030-01-01T00:00:00Z'))).toEqual({ kind: 'wait' });
  });
});

describe('period orders', () => {
  it('reads order statuses as open, paid or lapsed', () => {
    expect(['NEW', 'PENDING', 'UNRESOLVED'].map(periodOrderState)).toEqual(['open', 'open', 'open']);
    expect(['PAID', 'REFUND_PENDING', 'REFUNDED', 'RESOLVED'].map(periodOrderState)).toEqual(['paid', 'paid', 'paid', 'paid']);
    expect(['EXPIRED', 'CANCELED'].map(periodOrderState)).toEqual(['lapsed', 'lapsed']);
  });

  it('names the subscription, the period (1: the first) and a later attempt in the merchant_order_id', () => {
    expect(periodReference('abc', 0, 1)).toBe('sub_abc_1');
    expect(periodReference('abc', 11, 3)).toBe('sub_abc_12_3');
  });
});
