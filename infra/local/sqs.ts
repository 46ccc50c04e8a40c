import { startFauxqs } from 'fauxqs';

export interface LocalSqs {
  endpoint: string;
  callbackQueueUrl: string;
  callbackDeadLetterQueueUrl: string;
  /** The watchers' step timer (shared/watchers/ticks.ts): what the stack gives the watch-chain functions. */
  watchTickQueueUrl: string;
  /** The email queue and its dead-letter queue (shared/email/queue.ts). */
  emailQueueUrl: string;
  emailDeadLetterQueueUrl: string;
  /** The subscription renewal jobs and their dead-letter queue (shared/services/subscription-renewals.ts). */
  subscriptionQueueUrl: string;
  subscriptionDeadLetterQueueUrl: string;
  stop(): Promise<void>;
}

/** Receives before a callback job is dead-lettered (the delivery schedule's attempt count). */
export const CALLBACK_MAX_RECEIVES = 15;

/** Receives before an email job no handler could process goes to the dead-letter queue (the sender counts its own attempts). */
export const EMAIL_MAX_RECEIVES = 10;

/** Receives before a renewal job no handler could process goes to the dead-letter queue (the job counts its own attempts). */
export const SUBSCRIPTION_MAX_RECEIVES = 10;

/** A tick is worth something for a few minutes: the minute's scheduled run replaces a lost one. */
export const WATCH_TICK_RETENTION_SECONDS = 300;

/**
 * Starts the SQS emulator in-process with the callback queue and its dead-letter queue, the
 * watchers' step timer queue, the email queue and the subscription renewal queue, each with its dead-letter queue.
 * It keeps nothing across restarts; the table's outbox is what makes callbacks durable.
 */
export async function startLocalSqs(options: { port?: number; prefix: string; emailVisibilitySeconds?: number }): Promise<LocalSqs> {
  const server = await startFauxqs({ port: options.port ?? 0, logger: false });
  const dlq = server.createQueue(`${options.prefix}-callbacks-dlq`, {
    attributes: { MessageRetentionPeriod: '1209600' },
  });
  const queue = server.createQueue(`${options.prefix}-callbacks`, {
    attributes: {
      VisibilityTimeout: '60',
      MessageRetentionPeriod: '1209600',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: CALLBACK_MAX_RECEIVES }),
    },
  });
  const ticks = server.createQueue(`${options.prefix}-watch-ticks`, {
    attributes: { VisibilityTimeout: '30', MessageRetentionPeriod: String(WATCH_TICK_RETENTION_SECONDS) },
  });
  const emailDlq = server.createQueue(`${options.prefix}-email-dlq`, { attributes: { MessageRetentionPeriod: '1209600' } });
  const email = server.createQueue(`${options.prefix}-email`, {
    attributes: {
      // A job whose handler failed comes back after this (a test that waits on such retries sets it shorter).
      VisibilityTimeout: String(options.emailVisibilitySeconds ?? 60),
      MessageRetentionPeriod: '1209600',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: emailDlq.queueArn, maxReceiveCount: EMAIL_MAX_RECEIVES }),
    },
  });
  const subscriptionDlq = server.createQueue(`${options.prefix}-subscriptions-dlq`, { attributes: { MessageRetentionPeriod: '1209600' } });
  const subscriptions = server.createQueue(`${options.prefix}-subscriptions`, {
    attributes: {
      VisibilityTimeout: '60',
      MessageRetentionPeriod: '1209600',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: subscriptionDlq.queueArn, maxReceiveCount: SUBSCRIPTION_MAX_RECEIVES }),
    },
  });
  return {
    endpoint: `http://127.0.0.1:${server.port}`,
    callbackQueueUrl: queue.queueUrl,
    callbackDeadLetterQueueUrl: dlq.queueUrl,
    watchTickQueueUrl: ticks.queueUrl,
    emailQueueUrl: email.queueUrl,
    emailDeadLetterQueueUrl: emailDlq.queueUrl,
    subscriptionQueueUrl: subscriptions.queueUrl,
    subscriptionDeadLetterQueueUrl: subscriptionDlq.queueUrl,
    stop: () => server.stop(),
  };
}
