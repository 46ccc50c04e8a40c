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
