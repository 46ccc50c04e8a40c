import { sesTransport } from '#shared/email/ses';
import { emailQueueHandler } from '#shared/email/sender';

/** The email queue: each message is one event's emails, sent once each through Amazon SES. */
export const handler = emailQueueHandler(sesTransport);
