import { logger } from '#shared/core/logger';
import { countMetric } from '#shared/core/metrics';
import { suppressAddress } from '#shared/store/emails';

/**
 * An SES sending event (the configuration set's event destination, through EventBridge's
 * `detail`): the fields the bounce recorder reads.
 */
export interface SesEvent {
  eventType?: string;
  bounce?: { bounceType?: string; bounceSubType?: string; bouncedRecipients?: { emailAddress?: string }[] };
  complaint?: { complaintFeedbackType?: string; complainedRecipients?: { emailAddress?: string }[] };
}

/**
 * Records the addresses an SES event says must get no more mail: every recipient of a permanent
 * bounce (the address does not exist) and of a complaint (marked as spam). A transient bounce (a
 * full mailbox) is left alone: SES retries those itself. Answers the addresses suppressed.
 */
export async function recordSesEvent(event: SesEvent, now: Date): Promise<string[]> {
  const type = event.eventType;
  const addresses =
    type === 'Bounce' && event.bounce?.bounceType === 'Permanent'
      ? (event.bounce.bouncedRecipients ?? []).map((recipient) => recipient.emailAddress)
      : type === 'Complaint'
        ? (event.complaint?.complainedRecipients ?? []).map((recipient) => recipient.emailAddress)
        : [];
  const found = addresses.filter((address): address is string => typeof address === 'string' && address.includes('@'));
  const reason = type === 'Bounce' ? `bounce: ${event.bounce?.bounceSubType ?? 'Permanent'}` : `complaint: ${event.complaint?.complaintFeedbackType ?? 'unknown'}`;
  for (const address of found) await suppressAddress(address, reason, now);
  if (found.length) {
    countMetric('EmailAddressSuppressed', found.length);
    logger.info('email addresses suppressed', { count: found.length, reason });
  }
  return found;
}
