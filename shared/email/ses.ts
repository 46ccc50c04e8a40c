import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { emailConfig } from '#shared/core/config';
import { EmailRefusedError, recipientOf, type EmailTransport } from '#shared/email/transport';

let client: SESv2Client | undefined;

/** The one SES client of the process, built on first use (in the configured SES region). */
function ses(): SESv2Client {
  const { sesRegion } = emailConfig();
  return (client ??= new SESv2Client({ ...(sesRegion ? { region: sesRegion } : {}), maxAttempts: 3 }));
}

/** SES's answers that say this message will never be accepted (the others are worth a retry). */
const REFUSALS = new Set(['MessageRejected', 'BadRequestException', 'MailFromDomainNotVerifiedException', 'NotFoundException']);

/**
 * Amazon SES (v2 SendEmail), through the deploy's configuration set: its event destination
 * reports bounces and complaints to the bounce recorder (functions/record-email-bounce).
 */
export const sesTransport: EmailTransport = {
  async send(message) {
    // SES reads a destination as an RFC 5322 address (a name, encoded words): only a checked
    // addr-spec (ASCII, no specials, no `=?`) goes, which it can read only as itself.
    const to = recipientOf(message);
    try {
      const result = await ses().send(
        new SendEmailCommand({
          FromEmailAddress: message.from,
          Destination: { ToAddresses: [to] },
          Content: {
            Simple: {
              Subject: { Data: message.subject, Charset: 'UTF-8' },
              Body: { Text: { Data: message.text, Charset: 'UTF-8' }, Html: { Data: message.html, Charset: 'UTF-8' } },
            },
          },
          ...(emailConfig().sesConfigurationSet ? { ConfigurationSetName: emailConfig().sesConfigurationSet } : {}),
        }),
      );
      return result.MessageId ?? '';
    } catch (error) {
      if (REFUSALS.has((error as { name?: string }).name ?? '')) throw new EmailRefusedError(`SES refused the message: ${(error as Error).name}`, { cause: error });
      throw error;
    }
  },
};
