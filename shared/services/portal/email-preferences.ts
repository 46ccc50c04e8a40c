import { type EmailPreferences, preferencesOf } from '#shared/domain/email';
import { checkMailbox } from '#shared/domain/email-address';
import { PortalInputError, PortalNotFoundError } from '#shared/domain/portal-errors';
import type { EmailPreferencesBody } from '#shared/schemas/portal';
import { saveEmailPreferences } from '#shared/store/emails';
import type { PortalContext } from '#shared/services/portal/sessions';

/**
 * Each portal user's own email preferences (any role: they concern only the user's mailbox):
 * where the email goes, in which language, and which events it tells of.
 */

/** The signed-in user's preferences (the defaults, without an address, until saved). */
export function portalEmailPreferences(context: PortalContext): EmailPreferences {
  return preferencesOf(context.user.email_preferences);
}

/** Saves the signed-in user's preferences; an empty address means no email at all. */
export async function changeEmailPreferences(context: PortalContext, body: EmailPreferencesBody): Promise<EmailPreferences> {
  const checked = body.address === '' ? undefined : checkMailbox(body.address);
  if (checked && 'problem' in checked) throw new PortalInputError(`address ${checked.problem}`);
  const address = checked?.address;
  const preferences: EmailPreferences = { ...(address ? { address } : {}), language: body.language, payments: body.payments, topics: { ...body.topics } };
  if (!(await saveEmailPreferences(context.user.user_id, context.user.merchant_id, preferences))) throw new PortalNotFoundError();
  return preferences;
}
