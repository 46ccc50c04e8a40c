import type { AuditAction } from '#shared/domain/audit';
import type { OrderStatus } from '#shared/domain/statuses';

/**
 * Email: what merchants' portal users and buyers are told, and who chooses what. Pure values;
 * the email subsystem (shared/email/) turns events into messages and sends them.
 */

/** The languages an email is written in (the portal's and the payment page's). */
export const EMAIL_LANGUAGES = ['en', 'zh'] as const;
export type EmailLanguage = (typeof EMAIL_LANGUAGES)[number];

/** How a portal user hears of payments: one email each, one summary a day (UTC), or not at all. */
export const PAYMENT_EMAIL_CHOICES = ['each', 'daily', 'off'] as const;
export type PaymentEmailChoice = (typeof PAYMENT_EMAIL_CHOICES)[number];

/** The merchant events a portal user can switch on or off (payments have their own choice). */
export const EMAIL_TOPICS = ['unresolved', 'callbacks', 'refund_address', 'new_passkey', 'team'] as const;
export type EmailTopic = (typeof EMAIL_TOPICS)[number];

/**
 * A portal user's email preferences, kept on the user's item. Nothing is sent until the user
 * gives an address; once given, every event is on until switched off.
 */
export interface EmailPreferences {
  /** Where the user's email goes; absent: none is sent. */
  address?: string;
  language: EmailLanguage;
  payments: PaymentEmailChoice;
  topics: Record<EmailTopic, boolean>;
}

export const DEFAULT_EMAIL_PREFERENCES: EmailPreferences = {
  language: 'en',
  payments: 'each',
  topics: { unresolved: true, callbacks: true, refund_address: true, new_passkey: true, team: true },
};

/** A user's preferences, with the defaults for what the stored ones lack (older items have none). */
export function preferencesOf(stored: Partial<EmailPreferences> | undefined): EmailPreferences {
  return {
    ...DEFAULT_EMAIL_PREFERENCES,
    ...stored,
    topics: { ...DEFAULT_EMAIL_PREFERENCES.topics, ...stored?.topics },
  };
}

/** The audit actions merchants are emailed about, and under which topic. */
export const AUDIT_EMAIL_TOPICS: Partial<Record<AuditAction, EmailTopic>> = {
  'sign_in.new_passkey': 'new_passkey',
  'passkey.added': 'new_passkey',
  'member.invited': 'team',
  'member.joined': 'team',
  'member.removed': 'team',
  'member.role_changed': 'team',
  'refund.address_set': 'refund_address',
};

/** An order as an email shows it (never its token, callback URL or anything secret). */
export interface OrderSummary {
  order_id: string;
  user_id: number;
  merchant_order_id: string;
  title: string;
  price_amount: string;
  price_currency: string;
  pay_amount: string;
  pay_currency: string;
  status: OrderStatus;
  /** The buyer's address, when the merchant gave one (receipts go there). */
  email?: string;
  unresolved_reason?: string;
  /** When the order reached this status. */
  at: string;
  /** A subscription's period order: its subscription (the receipt links to the subscriber's page). */
  subscription_id?: string;
}

/**
 * What a subscriber's email tells (shared/email/subscriber-emails.ts): the trial started, a
 * period's order made (the invoice), a reminder a day before its due date or on it, the
 * subscription past due or ended, a new page link.
 */
export const SUBSCRIBER_NOTICES = ['trial_started', 'invoice', 'before_due', 'on_due', 'past_due', 'canceled', 'new_link'] as const;
export type SubscriberNotice = (typeof SUBSCRIBER_NOTICES)[number];

/**
 * One event that may owe emails: what the table stream (or the daily schedule) saw, queued as
 * it is. `event_id` is stable across redeliveries of the record: the sender sends each
 * recipient one email per event id.
 */
export type EmailEvent =
  | { kind: 'order_paid' | 'order_unresolved'; event_id: string; order: OrderSummary }
  | {
      kind: 'account_change';
      event_id: string;
      merchant_id: number;
      action: AuditAction;
      at: string;
      /** Who made it: a portal user's name, or the operator. */
      actor: string;
      /** The member concerned (team changes), and a role where one was given. */
      member?: string;
      role?: string;
      /** A refund's address set by the buyer: the refund, and where to pay it. */
      refund?: { order_id: string; amount: string; currency: string; address: string };
    }
  | {
      kind: 'callbacks_failing' | 'callback_dead_lettered';
      event_id: string;
      merchant_id: number;
      order_id: string;
      merchant_order_id: string;
      /** When the first attempt was owed, and the last attempt. */
      since: string;
      last_attempt_at: string;
      attempts: number;
      /** The last attempt's outcome: an HTTP status or a transport error's kind. */
      last_error: string;
    }
  | { kind: 'daily_summary'; event_id: string; merchant_id: number; date: string }
  | {
      /** A refund asked, or its link issued again: the buyer's one-time link, when the order has an email. */
      kind: 'refund_link';
      event_id: string;
      merchant_id: number;
      order_id: string;
      refund_id: string;
      /** Which of the refund's links (the sender makes it again from this, never from the record). */
      link_version: number;
      amount: string;
      currency: string;
      /** The merchant's note to the buyer. */
      reason?: string;
    }
  | {
      /** A subscriber's email of their subscription, to its customer_email (the sender reads the rest, and makes the page link, itself). */
      kind: 'subscriber';
      event_id: string;
      merchant_id: number;
      subscription_id: string;
      notice: SubscriberNotice;
      /** The period (0: the first) and attempt of an invoice or a reminder. */
      period?: number;
      attempt?: number;
      /** A new link's version. */
      link_version?: number;
    }
  | {
      /** Someone asked for the page links of the subscriptions to a plan started with `email` (only that address is mailed, if any). */
      kind: 'subscriber_links';
      event_id: string;
      merchant_id: number;
      plan_id: string;
      email: string;
    };

/** The UTC day (YYYY-MM-DD) of a time. */
export const utcDay = (at: Date | string): string => new Date(at).toISOString().slice(0, 10);

/** The day before `day` (YYYY-MM-DD). */
export const dayBefore = (day: string): string => utcDay(new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000));
