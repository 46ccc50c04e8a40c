import { checkMailbox } from '#shared/domain/email-address';
import type { EmailMessage } from '#shared/email/messages';

/**
 * Where email leaves the service: a port with two adapters. In AWS, Amazon SES (ses.ts, the
 * only one the Lambda bundles contain); locally and in tests, SMTP to a real server on loopback
 * (smtp.ts, imported by the local runtime and tests only).
 */
export interface EmailTransport {
  /** Sends one message from `from`; answers the transport's message id. */
  send(message: EmailMessage & { from: string }): Promise<string>;
}

/**
 * The transport refused this message for good (a malformed or rejected address): sending it
 * again would fail again, so it is not retried.
 */
export class EmailRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EmailRefusedError';
  }
}

/**
 * The recipient as both transports send to it: checked again as the service takes addresses
 * (shared/domain/email-address.ts), since an order or a preference stored before that check may
 * hold a name, a list or an encoded word. Such an address is refused for good here, never handed
 * to a library that would read another recipient out of it.
 */
export function recipientOf(message: Pick<EmailMessage, 'to'>): string {
  const checked = checkMailbox(message.to);
  if ('problem' in checked) throw new EmailRefusedError(`not a deliverable address: it ${checked.problem}`);
  return checked.address;
}
