import { createTransport } from 'nodemailer';
import { EmailRefusedError, recipientOf, type EmailTransport } from '#shared/email/transport';

/**
 * SMTP (nodemailer) to a server on loopback: the local runtime's mailbox and the tests'. Never
 * in a Lambda bundle (the functions import ses.ts only).
 */
export function smtpTransport(url: string): EmailTransport & { close(): void } {
  const transport = createTransport({ url, ignoreTLS: true, pool: false });
  return {
    async send(message) {
      const to = recipientOf(message);
      try {
        // An address object, not a string: nodemailer parses a string as a header's address list
        // (a name, a list, a group); an object's address is taken as the one recipient.
        const info = await transport.sendMail({ from: message.from, to: { name: '', address: to }, subject: message.subject, text: message.text, html: message.html });
        return info.messageId;
      } catch (error) {
        // 5xx: the server refused the message or the recipient for good.
        const code = (error as { responseCode?: number }).responseCode;
        if (code !== undefined && code >= 500) throw new EmailRefusedError(`SMTP ${code}`, { cause: error });
        throw error;
      }
    },
    close: () => transport.close(),
  };
}
