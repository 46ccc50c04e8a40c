import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { type Backoff, SQS_LONGEST_WAIT_SECONDS } from '#shared/core/backoff';
import { type RetryPolicy, withRetries } from '#shared/core/retry';
import { apiConfig, emailConfig, portalConfig } from '#shared/core/config';
import { logger } from '#shared/core/logger';
import { countMetric } from '#shared/core/metrics';
import { AUDIT_EMAIL_TOPICS, type EmailEvent, type EmailPreferences, preferencesOf, utcDay } from '#shared/domain/email';
import { linkIdOfReference } from '#shared/domain/payment-link';
import type { PortalUser } from '#shared/domain/portal';
import { refundUrl } from '#shared/core/server-key';
import { orderSummary } from '#shared/email/events';
import { type Audience, firstFullWindow, type LimitName, mailboxOf, type MailWindow, windowsOf } from '#shared/email/limits';
import { merchantMessage, receiptMessage, refundLinkMessage, type EmailMessage, type MessageContext } from '#shared/email/messages';
import { emailQueue, type EmailJob, type SentEmail } from '#shared/email/queue';
import { receiptPageUrl, subscriberEmails } from '#shared/email/subscriber-emails';
import { EmailRefusedError, type EmailTransport } from '#shared/email/transport';
import { claimEmail, countPaymentOnce, finishEmail, findPaymentDigest, releaseEmail, suppressedAmong } from '#shared/store/emails';
import { isConditionFailure } from '#shared/store/errors';
import { findMerchant } from '#shared/store/merchants';
import { findOrderWithInvoice } from '#shared/store/orders';
import { findRefund } from '#shared/store/refunds';
import { listMerchantUsers } from '#shared/store/portal-users';
import { type JobKind, jobQueueHandler, runJob } from '#shared/jobs/delayed-jobs';

/** How long one worker holds an email while it sends it (SES answers in well under a second). */
const LEASE_SECONDS = 60;

/** Tries of a sent email's SENT record (each the SDK's own three) before the job's retry carries it: about 2 s of waiting. */
const RECORD_SENT: RetryPolicy = { attempts: 4, baseDelayMs: 250 };

/** A user of the merchant who receives mail: active, with an address. */
type Member = PortalUser & { email_preferences?: Partial<EmailPreferences> };

/** One email owed: who (`user:<id>`, `buyer`, or a subscriber), the message, and the mail limits' windows it counts against. */
interface Owed {
  recipient: string;
  message: EmailMessage;
  windows: MailWindow[];
}

const merchantOf = (event: EmailEvent): number => ('order' in event ? event.order.user_id : event.merchant_id);

/** Whether a user's preferences ask for this event. */
function wants(preferences: EmailPreferences, event: EmailEvent): boolean {
  switch (event.kind) {
    case 'order_paid':
      return preferences.payments === 'each';
    case 'daily_summary':
      return preferences.payments === 'daily';
    case 'order_unresolved':
      return preferences.topics.unresolved;
    case 'callbacks_failing':
    case 'callback_dead_lettered':
      return preferences.topics.callbacks;
    case 'account_change': {
      const topic = AUDIT_EMAIL_TOPICS[event.action];
      return topic !== undefined && preferences.topics[topic];
    }
    case 'refund_link':
    case 'subscriber':
    case 'subscriber_links':
      return false;
  }
}

/** The merchant's active users with an address, and their preferences. */
async function subscribers(merchantId: number): Promise<{ user: Member; preferences: EmailPreferences & { address: string } }[]> {
  const users = (await listMerchantUsers(merchantId)) as Member[];
  return users
    .filter((user) => !user.disabled && !user.removed_at)
    .map((user) => ({ user, preferences: preferencesOf(user.email_preferences) }))
    .filter((entry): entry is { user: Member; preferences: EmailPreferences & { address: string } } => entry.preferences.address !== undefined);
}

/**
 * The emails an event owes, as of now: each subscribed user who wants it (in the user's
 * language), the buyer's receipt of a paid order with an email, and a subscriber's own emails. A paid order is also
 * counted, once, in the day's digest when some user takes the daily summary.
 */
async function owedEmails(event: EmailEvent, now: Date): Promise<Owed[]> {
  const merchantId = merchantOf(event);
  const merchant = await findMerchant(merchantId);
  if (!merchant) return [];
  const users = await subscribers(merchantId);
  if (event.kind === 'order_paid' && users.some(({ preferences }) => preferences.payments === 'daily')) {
    await countPaymentOnce(event.event_id, merchantId, utcDay(event.order.at), event.order.price_currency, event.order.price_amount, now);
  }
  const context: MessageContext = {
    merchantName: merchant.name,
    portalUrl: portalConfig().appUrl,
    paymentPageUrl: apiConfig().paymentPageUrl,
    ...(event.kind === 'daily_summary' ? { digest: await findPaymentDigest(event.date, merchantId) } : {}),
  };
  // A buyer address that is a member's own mailbox was given by the team itself: team mail.
  const team = new Set(users.map(({ preferences }) => mailboxOf(preferences.address)));
  const { limits } = emailConfig();
  const counted = (recipient: string, message: EmailMessage, audience: Audience, linkId?: string): Owed => ({
    recipient,
    message,
    windows: windowsOf({ audience, address: message.to, merchantId, sandbox: merchant.sandbox, ...(linkId ? { linkId } : {}) }, limits),
  });
  const buyer = (message: EmailMessage, merchantOrderId: string): Owed => counted('buyer', message, team.has(mailboxOf(message.to)) ? 'team' : 'buyer', linkIdOfReference(merchantOrderId));
  const owed: Owed[] = [];
  for (const { user, preferences } of users) {
    if (!wants(preferences, event)) continue;
    const message = merchantMessage(event, preferences.address, preferences.language, context);
    if (message) owed.push(counted(`user:${user.user_id}`, message, 'team'));
  }
  if (event.kind === 'order_paid' && event.order.email) {
    const subscriberUrl = event.order.subscription_id ? await receiptPageUrl(event.order.subscription_id, merchantId, now) : undefined;
    owed.push(buyer(receiptMessage({ ...event.order, email: event.order.email }, context, subscriberUrl), event.order.merchant_order_id));
  }
  // A subscriber's own emails (shared/email/subscriber-emails.ts), counted as buyer mail; a plan link's in its window.
  for (const email of await subscriberEmails(event, context, now)) {
    owed.push(counted(email.recipient, email.message, team.has(mailboxOf(email.message.to)) ? 'team' : 'buyer', email.planLinkId));
  }
  if (event.kind === 'refund_link') {
    const refundEmail = await refundLinkEmail(event, context);
    if (refundEmail) owed.push(buyer(refundEmail.message, refundEmail.merchantOrderId));
  }
  return owed;
}

/**
 * The buyer's refund-link email, when the order has an email and the link still works (the
 * buyer may have set the address, or the merchant issued a newer link, before this job ran).
 * The link is made here again from the refund with the server's key, as the refunds service
 * makes it: the stream record and the queue never carry it.
 */
async function refundLinkEmail(event: Extract<EmailEvent, { kind: 'refund_link' }>, context: MessageContext): Promise<{ message: EmailMessage; merchantOrderId: string } | undefined> {
  const [found, refund] = await Promise.all([findOrderWithInvoice(event.order_id), findRefund(event.order_id, event.refund_id)]);
  const email = found?.order.email;
  if (!email || found.order.user_id !== event.merchant_id) return undefined;
  if (refund?.status !== 'AWAITING_ADDRESS' || refund.link_version !== event.link_version) return undefined;
  const url = await refundUrl(refund);
  const message = refundLinkMessage({ email, order: orderSummary(found.order), amount: event.amount, currency: event.currency, ...(event.reason ? { reason: event.reason } : {}), url }, context);
  return { message, merchantOrderId: found.order.merchant_order_id };
}

/**
 * Sends one owed email once: claimed first (a redelivered job, or a duplicate from a replayed
 * stream record, finds it claimed or sent and sends nothing), counted in its mail limits' windows
 * at `now`, then sent, then recorded. A suppressed address (it bounced or complained) is
 * recorded and skipped; so is an email over a limit (LIMITED, naming the limit): kept in the
 * email log, never sent and never retried, so a flood neither reaches the mailbox later nor
 * fills the queue. A failed send releases the claim (marked counted: its retries are not counted
 * again) and throws, so the job is retried. A send that went out is never sent again for a
 * record that failed (see recordSent).
 */
async function sendOnce(eventId: string, owed: Owed, suppressed: ReadonlySet<string>, transport: EmailTransport, now: Date): Promise<void> {
  const claim = await claimEmail(eventId, owed.recipient, now, LEASE_SECONDS);
  if (!claim) return;
  // Not sent yet: the try holding it may still fail, so this job is tried again after its lease.
  if ('heldUntil' in claim) throw new EmailHeldError(claim.heldUntil);
  const { lease } = claim;
  if (suppressed.has(owed.message.to)) {
    await finishEmail(eventId, owed.recipient, lease, 'SUPPRESSED', new Date());
    countMetric('EmailSuppressed');
    return;
  }
  let full: LimitName | undefined;
  try {
    full = claim.counted ? undefined : await firstFullWindow(owed.windows, now.getTime());
  } catch (error) {
    await releaseEmail(eventId, owed.recipient, lease, (error as Error).message ?? String(error), new Date(), false);
    throw error;
  }
  if (full) {
    await finishEmail(eventId, owed.recipient, lease, 'LIMITED', new Date(), { limitedBy: full });
    countMetric('EmailLimited');
    logger.warn('email over its limit, not sent', { eventId, recipient: owed.recipient, limit: full });
    return;
  }
  let messageId: string;
  try {
    messageId = await transport.send({ ...owed.message, from: emailConfig().from });
  } catch (error) {
    if (error instanceof EmailRefusedError) {
      // Never accepted, so never retried.
      logger.warn('email refused', { eventId, recipient: owed.recipient, reason: error.message });
      await finishEmail(eventId, owed.recipient, lease, 'REFUSED', new Date());
      countMetric('EmailRefused');
      return;
    }
    await releaseEmail(eventId, owed.recipient, lease, (error as Error).message ?? String(error), new Date(), true);
    throw error;
  }
  countMetric('EmailSent');
  await recordSent(eventId, { recipient: owed.recipient, lease, message_id: messageId });
}

/**
 * Records a sent email as SENT, tried again for a few seconds: the send happened, and a claim
 * left SENDING would be taken over once its lease ended and the email sent a second time.
 * Still failing, it throws {@link EmailUnrecordedError}, and the job's retry carries the email
 * (EmailJob's `sent`): that try records it and does not send it. A record its condition refuses
 * was written already (the SDK's retry of a write whose answer was lost) or the lease was taken
 * over by another try: nothing is left to do.
 */
async function recordSent(eventId: string, sent: SentEmail): Promise<void> {
  try {
    await withRetries(RECORD_SENT, { retried: (error) => !isConditionFailure(error) }, () => finishEmail(eventId, sent.recipient, sent.lease, 'SENT', new Date(), { messageId: sent.message_id }));
  } catch (error) {
    if (isConditionFailure(error)) return;
    throw new EmailUnrecordedError(sent, error);
  }
}

/** An email went out and its SENT record could not be written: the job's retry carries it, to record it and not send it. */
class EmailUnrecordedError extends Error {
  constructor(
    readonly sent: SentEmail,
    cause: unknown,
  ) {
    super(`sent, not recorded: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'EmailUnrecordedError';
  }
}

/** Another try holds an owed email's claim until `heldUntil`: this job's next try waits for the lease to end. */
class EmailHeldError extends Error {
  constructor(readonly heldUntil: string) {
    super(`held by another try until ${heldUntil}`);
    this.name = 'EmailHeldError';
  }
}

/**
 * Why a try of an email job failed, until when another try holds one of its emails (its retry
 * waits for that), and the emails it sent but could not record (its retry records them).
 */
interface EmailFailure {
  reason: string;
  heldUntil?: string;
  sent?: SentEmail[];
}

/** What a carried email's retry leaves of its claim's lease, seconds: for the message's delivery and the record itself. */
const RECORD_MARGIN_SECONDS = 10;

/**
 * How long a failed try's retry waits, seconds, from the backoff's `delaySeconds` and the try's
 * end. A try that sent emails it could not record comes back before their claims' leases end (by
 * {@link RECORD_MARGIN_SECONDS}): a copy of the job (a replayed stream record) held off by those
 * claims takes them over when they end, and would send the emails again unless they are recorded
 * by then. Otherwise a try that found an email held by another waits for that lease to end (a
 * lease is at most LEASE_SECONDS long: a wait past that, another clock's lease, is not waited).
 */
export function emailRetryDelay(delaySeconds: number, failure: EmailFailure, finishedAt: Date): number {
  const secondsUntil = (iso: string) => Math.ceil((Date.parse(iso) - finishedAt.getTime()) / 1000);
  const leaseLeft = failure.sent?.length ? Math.min(...failure.sent.map(({ lease }) => secondsUntil(lease))) : 0;
  if (leaseLeft > RECORD_MARGIN_SECONDS) return Math.max(1, Math.min(delaySeconds, leaseLeft - RECORD_MARGIN_SECONDS));
  return failure.heldUntil ? Math.max(delaySeconds, Math.min(LEASE_SECONDS, secondsUntil(failure.heldUntil)) + 1) : delaySeconds;
}

/** The email retries' schedule, seconds, from EMAIL_RETRY_BASE_SECONDS: doubling to 12 hours, no jitter. */
export const EMAIL_BACKOFF: Omit<Backoff, 'base'> = { cap: SQS_LONGEST_WAIT_SECONDS, jitter: 'none' };

/**
 * Emails as jobs of the delayed-job pipeline, sent with `transport`: a job is one event, and its
 * try sends every email the event owes, each once. When a send fails, the job comes back later
 * as a new message (attempt + 1, not before its doubling delay), and after the last attempt goes
 * to the dead-letter queue. Nothing here touches an order or a callback.
 */
function emailJobs(transport: EmailTransport): JobKind<EmailJob, EmailJob, EmailFailure> {
  return {
    name: 'email',
    queue: emailQueue,
    maxAttempts: () => emailConfig().maxAttempts,
    backoff: () => ({ ...EMAIL_BACKOFF, base: emailConfig().retryBaseSeconds }),
    open: async (job) => job,
    dueAt: (job) => job.not_before,
    async attempt(job, _job, now) {
      // What an earlier try sent and could not record: recorded now, and not sent again.
      const carried = job.sent ?? [];
      const recorded = await Promise.allSettled(carried.map((sent) => recordSent(job.event.event_id, sent)));
      const sentBefore = new Set(carried.map(({ recipient }) => recipient));
      const owed = (await owedEmails(job.event, now)).filter(({ recipient }) => !sentBefore.has(recipient));
      const suppressed = await suppressedAmong(owed.map(({ message }) => message.to));
      const results = await Promise.allSettled(owed.map((email) => sendOnce(job.event.event_id, email, suppressed, transport, now)));
      const failures = [...recorded, ...results].flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
      if (failures.length === 0) return { done: true };
      const held = failures.flatMap((error) => (error instanceof EmailHeldError ? [error.heldUntil] : [])).sort();
      const unrecorded = failures.flatMap((error) => (error instanceof EmailUnrecordedError ? [error.sent] : []));
      const first = failures[0] as Error | undefined;
      return {
        done: false,
        failure: { reason: first?.message ?? String(first), ...(held.length ? { heldUntil: held.at(-1) } : {}), ...(unrecorded.length ? { sent: unrecorded } : {}) },
      };
    },
    retryDelay: emailRetryDelay,
    retry: async (job, _job, failure, { delaySeconds, now }) => ({
      event: job.event,
      attempt: job.attempt + 1,
      not_before: new Date(now.getTime() + delaySeconds * 1000).toISOString(),
      ...(failure.sent ? { sent: failure.sent } : {}),
    }),
    retried(job, { reason }, delay) {
      countMetric('EmailRetried');
      logger.warn('email send failed, retried later', { eventId: job.event.event_id, attempt: job.attempt + 1, delay, reason });
    },
    giveUp: async (job, _job, { reason }) => ({ job, subject: job, reason }),
    deadLettered({ job, reason }) {
      countMetric('EmailDeadLettered');
      logger.error('email dead-lettered', { eventId: job.event.event_id, reason });
    },
  };
}

/** One email job (see emailJobs). Returns 'keep' while the job waits for its retry time. */
export async function processEmailJob(job: EmailJob, receiptHandle: string, transport: EmailTransport, now: Date): Promise<'done' | 'keep'> {
  return runJob(emailJobs(transport), job, receiptHandle, now);
}

/**
 * The email queue's consumer with `transport`: the sender function passes SES, the local
 * runtime its SMTP server. Each message is one job (see emailJobs).
 */
export function emailQueueHandler(transport: EmailTransport): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return jobQueueHandler(emailJobs(transport));
}
